// Reading an http(s) picture. The URL is a stranger's, so everything is bounded: the whole
// read by a timeout, the body by 10 MiB + 1 byte (to tell "exactly 10 MiB" from "too big"),
// the redirects by a count so that a loop fails instead of spinning. Every failure becomes a
// FetchFailed (or DecodeFailed) read with a message that says what went wrong where; only a
// cancelled activity returns an error.
package people

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"liken.sh/runner/kube"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
	"liken.sh/runner/pictures"
	"liken.sh/runner/pictures/avatar"
)

// maxRedirects is how many redirects a fetch follows, as browsers and Go's default do.
const maxRedirects = 10

var errTooManyRedirects = fmt.Errorf("it redirected more than %d times", maxRedirects)

// httpClient is a.HTTP with our bounds (FetchTimeout, maxRedirects) filled in where the
// caller set none.
func (a *Activities) httpClient() *http.Client {
	c := http.Client{}
	if a.HTTP != nil {
		c = *a.HTTP
	}
	if c.Timeout == 0 {
		c.Timeout = FetchTimeout
	}
	if c.CheckRedirect == nil {
		c.CheckRedirect = func(_ *http.Request, via []*http.Request) error {
			if len(via) >= maxRedirects {
				return errTooManyRedirects
			}
			return nil
		}
	}
	return &c
}

// fetch reads an http(s) picture. With since, the GET is conditional on the version recorded
// there, and a 304 is an Unchanged read.
func (a *Activities) fetch(ctx context.Context, p *peoplev1.Person, src avatar.Source, since *peoplev1.AvatarStatus) (kube.AvatarRead, error) {
	fail := func(reason, format string, args ...any) (kube.AvatarRead, error) {
		return kube.AvatarRead{Source: p.Spec.Avatar, Reason: reason, Message: fmt.Sprintf(format, args...)}, nil
	}
	client := a.httpClient()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src.URL, nil)
	if err != nil {
		return fail(avatar.ReasonFetchFailed, "the picture's URL %s cannot be requested: %v", src.URL, err)
	}
	req.Header.Set("User-Agent", kube.PeopleComponent)
	req.Header.Set("Accept", "image/jpeg, image/png, image/gif, image/webp, image/*;q=0.8")
	if since != nil {
		if since.ETag != "" {
			req.Header.Set("If-None-Match", since.ETag)
		}
		if since.LastModified != "" {
			req.Header.Set("If-Modified-Since", since.LastModified)
		}
	}

	resp, err := client.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return kube.AvatarRead{}, ctx.Err()
		}
		return fail(avatar.ReasonFetchFailed, "the picture at %s could not be fetched: %s", src.URL, fetchError(err, client))
	}
	defer resp.Body.Close()

	switch {
	case resp.StatusCode == http.StatusNotModified && since != nil:
		return kube.AvatarRead{Source: p.Spec.Avatar, Reason: avatar.ReasonFetched, Unchanged: true}, nil
	case resp.StatusCode != http.StatusOK:
		return fail(avatar.ReasonFetchFailed, "the server answered %s for %s", resp.Status, src.URL)
	case resp.ContentLength > pictures.MaxBytes:
		return fail(avatar.ReasonFetchFailed, "the picture at %s is %d bytes, over the limit of 10 MiB (%d bytes); make it smaller", src.URL, resp.ContentLength, pictures.MaxBytes)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, pictures.MaxBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return kube.AvatarRead{}, ctx.Err()
		}
		return fail(avatar.ReasonFetchFailed, "the picture at %s could not be read to its end: %s", src.URL, fetchError(err, client))
	}
	if len(body) > pictures.MaxBytes {
		return fail(avatar.ReasonFetchFailed, "the picture at %s is over the limit of 10 MiB (%d bytes); make it smaller", src.URL, pictures.MaxBytes)
	}
	jpg, err := pictures.Thumbnail(body, avatar.Colour(p.Name))
	if err != nil {
		return failedRead(p.Spec.Avatar, err, avatar.ReasonDecodeFailed), nil
	}
	return kube.AvatarRead{
		Source:       p.Spec.Avatar,
		Reason:       avatar.ReasonFetched,
		Thumbnail:    avatar.DataURI(jpg),
		ETag:         resp.Header.Get("ETag"),
		LastModified: resp.Header.Get("Last-Modified"),
	}, nil
}

// fetchError says in a user's words why a request failed; Go's own message repeats the URL.
func fetchError(err error, c *http.Client) string {
	var te interface{ Timeout() bool }
	if errors.As(err, &te) && te.Timeout() {
		return fmt.Sprintf("the server did not answer within %s", c.Timeout)
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	if errors.Is(err, errTooManyRedirects) {
		return err.Error() + " (a redirect loop?)"
	}
	return err.Error()
}
