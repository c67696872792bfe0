// Where a Person's picture comes from, read from spec.avatar. The scheme
// decides who reads it and which reason a success carries: nothing to read
// (initials), the operator over HTTP, the URI itself (data:), or a baker pod
// that mounts an NFS export or a claim. Parsing is strict where a mistake
// would mount the wrong thing, and a malformed URI fails with the reason a
// failed read of its scheme carries, so the message lands where the user looks.

package avatar

import (
	"encoding/base64"
	"net/url"
	"path"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Kind is who reads a picture.
type Kind string

// The kinds of source, one per reader (or none, for initials).
const (
	KindInitials Kind = "initials" // empty avatar: draw the initials
	KindHTTP     Kind = "http"     // http:// or https://: the operator fetches it
	KindData     Kind = "data"     // data: the picture is in the URI
	KindNFS      Kind = "nfs"      // nfs://: a baker pod mounts the file's directory
	KindClaim    Kind = "claim"    // claim://: a baker pod mounts the whole claim
)

// BakerMount is where a baker pod mounts its source volume, read-only.
const BakerMount = "/source"

// Source is a parsed spec.avatar. Only the fields of its Kind are set.
type Source struct {
	Kind Kind

	// URL is the http:// or https:// URL, exactly as written.
	URL string

	// Data is the decoded content of a data: URI.
	Data []byte

	// Server, Dir and File are an nfs:// URI's parts: the pod mounts
	// Server:Dir and reads File in it.
	Server, Dir, File string

	// Namespace, Claim and Path are a claim:// URI's parts: the pod runs in
	// Namespace, mounts the PersistentVolumeClaim Claim, and reads Path,
	// which is relative to the claim's root.
	Namespace, Claim, Path string
}

// Reason is the AvatarReady reason of a picture read from this source.
func (s Source) Reason() string {
	switch s.Kind {
	case KindHTTP:
		return ReasonFetched
	case KindData:
		return ReasonInline
	case KindNFS, KindClaim:
		return ReasonBaked
	}
	return ReasonInitials
}

// BakerFile is the file a baker pod reads, inside BakerMount; "" for a
// source no baker reads.
func (s Source) BakerFile() string {
	switch s.Kind {
	case KindNFS:
		return BakerMount + "/" + s.File
	case KindClaim:
		return BakerMount + "/" + s.Path
	}
	return ""
}

const schemes = "https://, http://, data:, nfs://, and claim://"

// ParseSource reads spec.avatar. Its errors are *Error: UnsupportedScheme for
// a scheme not in schemes or a string that is not a URI, DecodeFailed
// for any malformed data: URI, BakeFailed for a malformed nfs:// or claim://
// URI, and FetchFailed for an http(s) URL with no host.
func ParseSource(avatar string) (Source, error) {
	if avatar == "" {
		return Source{Kind: KindInitials}, nil
	}
	// A data: URI is not parsed as a URL: its payload may hold anything.
	if len(avatar) >= 5 && strings.EqualFold(avatar[:5], "data:") {
		data, err := parseData(avatar[5:])
		if err != nil {
			return Source{}, err
		}
		return Source{Kind: KindData, Data: data}, nil
	}
	u, err := url.Parse(avatar)
	if err != nil {
		return Source{}, Errorf(ReasonUnsupportedScheme, "the avatar %s is not a URI; the schemes read are %s", Quote(avatar), schemes)
	}
	switch u.Scheme {
	case "http", "https":
		if u.Host == "" {
			return Source{}, Errorf(ReasonFetchFailed, "the avatar %s names no host; write %s://<host>/<path>", Quote(avatar), u.Scheme)
		}
		return Source{Kind: KindHTTP, URL: avatar}, nil
	case "nfs":
		return parseNFS(avatar, u)
	case "claim":
		return parseClaim(avatar, u)
	case "":
		return Source{}, Errorf(ReasonUnsupportedScheme, "the avatar %s has no scheme; the schemes read are %s", Quote(avatar), schemes)
	}
	return Source{}, Errorf(ReasonUnsupportedScheme, "the avatar's scheme %s is not read; the schemes read are %s", Quote(u.Scheme+":"), schemes)
}

// parseData decodes the part of a data: URI after "data:". Per RFC 2397 it
// is [<media type>][;base64],<data>. The media type is ignored: the bytes
// say what they are. Base64 is read leniently (whitespace, missing padding,
// the URL alphabet, percent-escapes), as browsers do.
func parseData(rest string) ([]byte, error) {
	meta, payload, ok := strings.Cut(rest, ",")
	if !ok {
		return nil, Errorf(ReasonDecodeFailed, "the data: URI has no comma; write data:[<type>][;base64],<data>")
	}
	isBase64 := false
	for _, p := range strings.Split(meta, ";")[1:] {
		if strings.EqualFold(strings.TrimSpace(p), "base64") {
			isBase64 = true
		}
	}
	if strings.Contains(payload, "%") {
		unescaped, err := url.PathUnescape(payload)
		if err != nil {
			return nil, Errorf(ReasonDecodeFailed, "the data: URI's percent-encoding is not valid (%v)", err)
		}
		payload = unescaped
	}
	if !isBase64 {
		if payload == "" {
			return nil, Errorf(ReasonDecodeFailed, "the data: URI holds no picture")
		}
		return []byte(payload), nil
	}
	payload = strings.Map(func(r rune) rune {
		switch r {
		case ' ', '\t', '\r', '\n', '\f':
			return -1
		}
		return r
	}, payload)
	if payload == "" {
		return nil, Errorf(ReasonDecodeFailed, "the data: URI holds no picture")
	}
	data, err := base64.StdEncoding.DecodeString(payload)
	if err == nil {
		return data, nil
	}
	trimmed := strings.TrimRight(payload, "=")
	for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
		if data, err2 := enc.DecodeString(trimmed); err2 == nil {
			return data, nil
		}
	}
	return nil, Errorf(ReasonDecodeFailed, "the data: URI is marked base64 but is not valid base64 (%v)", err)
}

func parseNFS(avatar string, u *url.URL) (Source, error) {
	bad := func(why string) (Source, error) {
		return Source{}, Errorf(ReasonBakeFailed, "the avatar %s is not a valid nfs:// URI: %s; write nfs://<server>/<path of the file>", Quote(avatar), why)
	}
	if err := checkAuthority(avatar, u); err != "" {
		return bad(err)
	}
	if u.Hostname() == "" {
		return bad("it names no server")
	}
	if u.Port() != "" {
		return bad("an NFS volume takes no port")
	}
	p := u.Path
	if p == "" || p == "/" {
		return bad("it names no file")
	}
	if namesDirectory(p) {
		return bad("it names a directory, not a file")
	}
	if hasDotDot(p) {
		return bad(`its path holds ".."`)
	}
	p = path.Clean(p)
	if p == "/" {
		return bad("it names no file")
	}
	return Source{Kind: KindNFS, Server: u.Hostname(), Dir: path.Dir(p), File: path.Base(p)}, nil
}

var (
	dnsLabel     = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)
	dnsSubdomain = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$`)
)

func parseClaim(avatar string, u *url.URL) (Source, error) {
	bad := func(why string) (Source, error) {
		return Source{}, Errorf(ReasonBakeFailed, "the avatar %s is not a valid claim:// URI: %s; write claim://<namespace>/<claim>/<path of the file>", Quote(avatar), why)
	}
	if err := checkAuthority(avatar, u); err != "" {
		return bad(err)
	}
	ns := u.Host
	if ns == "" {
		return bad("it names no namespace")
	}
	if len(ns) > 63 || !dnsLabel.MatchString(ns) {
		return bad("the namespace " + Quote(ns) + " is not a valid namespace name")
	}
	// Split before unescaping, so that "%2F" in the claim's name is part of
	// the name (and refused), not a separator.
	rawClaim, rawFile, _ := strings.Cut(strings.TrimPrefix(u.EscapedPath(), "/"), "/")
	claim, err1 := url.PathUnescape(rawClaim)
	file, err2 := url.PathUnescape(rawFile)
	if err1 != nil || err2 != nil {
		return bad("its path is not validly percent-encoded")
	}
	if claim == "" {
		return bad("it names no claim")
	}
	if len(claim) > 253 || !dnsSubdomain.MatchString(claim) {
		return bad("the claim " + Quote(claim) + " is not a valid claim name")
	}
	if strings.Trim(file, "/") == "" {
		return bad("it names no file in the claim")
	}
	if namesDirectory(file) {
		return bad("it names a directory, not a file")
	}
	if hasDotDot(file) {
		return bad(`its path holds ".."`)
	}
	file = strings.TrimLeft(path.Clean("/"+file), "/")
	if file == "" {
		return bad("it names no file in the claim")
	}
	return Source{Kind: KindClaim, Namespace: ns, Claim: claim, Path: file}, nil
}

// checkAuthority refuses what a file URI has no use for, so that a "?" or
// "#" in a file name is not silently cut off.
func checkAuthority(avatar string, u *url.URL) string {
	switch {
	case u.Opaque != "":
		return "it must begin with two slashes after the scheme"
	case u.User != nil:
		return "it must not name a user"
	case u.RawQuery != "" || u.ForceQuery:
		return `it has a query; write a "?" in a file name as %3F`
	case strings.Contains(avatar, "#"):
		return `it has a fragment; write a "#" in a file name as %23`
	}
	return ""
}

// namesDirectory tells whether a path ends as only a directory's can: in a
// slash or in ".".
func namesDirectory(p string) bool {
	return strings.HasSuffix(p, "/") || p == "." || strings.HasSuffix(p, "/.")
}

func hasDotDot(p string) bool {
	for _, seg := range strings.Split(p, "/") {
		if seg == ".." {
			return true
		}
	}
	return false
}

// Quote quotes a user's string for a message, cut short when it is long.
func Quote(s string) string {
	const max = 100
	if utf8.RuneCountInString(s) > max {
		r := []rune(s)
		s = string(r[:max]) + "…"
	}
	return strconv.Quote(s)
}
