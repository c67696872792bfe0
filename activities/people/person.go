// The people side's activities: one quick pass over a Person (read it, keep who may act as it
// (person_access.go), decide whether its picture must be read, read initials, data: and
// http(s) pictures, write the status, post the Events), the bake through a baker pod for nfs:// and claim:// pictures, and the clean-up of a
// Person that is gone. Picture bytes go from here straight into the Person's status; only the
// small PersonOutcome returns to the workflow's history.
//
// A failure a user can fix (a bad URL, a file that is not a picture) is not an error here: it
// becomes the AvatarReady condition, a Warning Event and a log line, and the activity succeeds.
// Only the infrastructure (an API server that does not answer, a write that conflicts) returns
// an error, so that Temporal tries again.
package people

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"

	"liken.sh/runner/activities"
	"liken.sh/runner/kube"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
	"liken.sh/runner/pictures"
	"liken.sh/runner/pictures/avatar"
)

// PersonPass asks for one look at a Person.
type PersonPass struct {
	Name string
	// Recheck reads a fetched or baked picture again even when nothing changed: the
	// six-hourly check (a conditional GET for http(s), an mtime and size check for files).
	Recheck bool `json:",omitempty"`
}

// PersonOutcome is what a pass found and did. It never carries picture bytes.
type PersonOutcome struct {
	// Gone: no Person of that name exists any more; the workflow cleans up and ends.
	Gone       bool   `json:",omitempty"`
	UID        string `json:",omitempty"`
	Generation int64  `json:",omitempty"`
	// Source is spec.avatar as read; Reason the AvatarReady reason after the pass.
	Source string `json:",omitempty"`
	Reason string `json:",omitempty"`
	// NeedsBake: the source is nfs:// or claim:// and a read is due; BakePerson does it.
	NeedsBake bool `json:",omitempty"`
	// Recheck: the source is read again every six hours (http(s), nfs:// and claim://).
	Recheck bool `json:",omitempty"`
	// Wrote: the status changed.
	Wrote bool `json:",omitempty"`
}

// Config is how the people side runs. The zero value of each field means its default.
type Config struct {
	// BakerImage is the image baker pods run: the worker's own, which has the bake subcommand.
	BakerImage string
	// OperatorNamespace is where the baker pods of nfs:// pictures run.
	OperatorNamespace string
	// EventNamespace is where Events about people go; a core/v1 Event about a cluster-scoped
	// object must be in "default".
	EventNamespace string
	// BakeDeadline is how long a baker pod may take, from its creation, before its bake fails.
	BakeDeadline time.Duration
}

// The people side's defaults.
const (
	DefaultOperatorNamespace = "liken-system"
	DefaultEventNamespace    = "default"
	// DefaultBakeDeadline covers pulling the image, mounting a share and decoding 10 MiB, with
	// a wide margin; a pod hung on a dead NFS server fails at this point.
	DefaultBakeDeadline = 2 * time.Minute
	// FetchTimeout bounds an http(s) read, body included.
	FetchTimeout = 15 * time.Second
)

func (c Config) withDefaults() Config {
	if c.OperatorNamespace == "" {
		c.OperatorNamespace = DefaultOperatorNamespace
	}
	if c.EventNamespace == "" {
		c.EventNamespace = DefaultEventNamespace
	}
	if c.BakeDeadline <= 0 {
		c.BakeDeadline = DefaultBakeDeadline
	}
	return c
}

func (a *Activities) people() Config { return a.People.withDefaults() }

// fieldManager names the people side's writes in managedFields.
const fieldManager = kube.PeopleComponent

// SyncPerson is the quick pass over a Person, run as a local activity: it reads the Person,
// deletes baker pods left from an older avatar, keeps the RBAC that lets the users and groups
// it names act as it, and when a read is due reads an empty,
// data: or http(s) avatar itself and writes the status. An nfs:// or claim:// avatar comes
// back as NeedsBake, for BakePerson.
func (a *Activities) SyncPerson(ctx context.Context, in PersonPass) (PersonOutcome, error) {
	p, u, err := a.getPerson(ctx, in.Name)
	if apierrors.IsNotFound(err) {
		return PersonOutcome{Gone: true}, nil
	}
	if err != nil {
		return PersonOutcome{}, err
	}
	out := outcomeOf(p)
	if err := a.deleteBakers(ctx, p.Name, func(pod *metav1.ObjectMeta) bool { return staleBaker(pod, p) }); err != nil {
		return out, err
	}
	if err := a.syncAccess(ctx, p); err != nil {
		return out, err
	}
	src, perr := avatar.ParseSource(p.Spec.Avatar)
	if !kube.AvatarReadDue(p, in.Recheck, perr == nil && src.Kind == avatar.KindData) {
		return out, nil
	}

	read, quick := quickRead(p, src, perr)
	switch {
	case quick:
	case src.Kind == avatar.KindNFS || src.Kind == avatar.KindClaim:
		out.NeedsBake = true
		return out, nil
	case src.Kind == avatar.KindHTTP:
		var since *peoplev1.AvatarStatus
		if conditionalRecheck(p, in.Recheck) {
			since = p.Status.Avatar
		}
		read, err = a.fetch(ctx, p, src, since)
		if err != nil {
			return out, err
		}
	}
	return a.finish(ctx, u, p, read, p.Annotations[kube.AnnotationCheckAvatar], out)
}

// ForgetPerson deletes every baker pod of a Person that is gone. A pod already gone is fine.
func (a *Activities) ForgetPerson(ctx context.Context, name string) error {
	return a.deleteBakers(ctx, name, func(*metav1.ObjectMeta) bool { return true })
}

// getPerson reads a Person through the dynamic client; the unstructured object is kept for
// the status write, so fields this runner does not know survive it.
func (a *Activities) getPerson(ctx context.Context, name string) (*peoplev1.Person, *unstructured.Unstructured, error) {
	return a.readPerson(ctx, name, metav1.GetOptions{})
}

// readPerson is getPerson with the read's options.
func (a *Activities) readPerson(ctx context.Context, name string, opts metav1.GetOptions) (*peoplev1.Person, *unstructured.Unstructured, error) {
	u, err := a.Dynamic.Resource(peoplev1.PersonResource).Get(ctx, name, opts)
	if err != nil {
		if apierrors.IsNotFound(err) {
			return nil, nil, err
		}
		return nil, nil, fmt.Errorf("read the Person %s: %w", name, err)
	}
	var p peoplev1.Person
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &p); err != nil {
		return nil, nil, fmt.Errorf("the Person %s does not fit its Go type: %w", name, err)
	}
	return &p, u, nil
}

func outcomeOf(p *peoplev1.Person) PersonOutcome {
	out := PersonOutcome{UID: string(p.UID), Generation: p.Generation, Source: p.Spec.Avatar}
	if c := kube.AvatarCondition(&p.Status); c != nil {
		out.Reason = c.Reason
	}
	if src, err := avatar.ParseSource(p.Spec.Avatar); err == nil {
		switch src.Kind {
		case avatar.KindHTTP, avatar.KindNFS, avatar.KindClaim:
			out.Recheck = true
		}
	}
	return out
}

// conditionalRecheck tells whether this read is only the six-hourly re-check of a picture
// fetched and recorded with a version: then the GET is conditional and a 304 changes nothing.
// Any other read (a new avatar, a new check-avatar value) fetches the whole picture.
func conditionalRecheck(p *peoplev1.Person, recheck bool) bool {
	if !recheck || kube.AvatarReadDue(p, false, false) {
		return false
	}
	c := kube.AvatarCondition(&p.Status)
	av := p.Status.Avatar
	return c != nil && c.Status == metav1.ConditionTrue && c.Reason == avatar.ReasonFetched &&
		av != nil && (av.ETag != "" || av.LastModified != "") && kube.IsPhoto(p.Status.Thumbnail)
}

// quickRead reads a picture that needs neither the network nor a pod: initials, a data:
// picture, or a source no reader takes (src and perr are what avatar.ParseSource said).
// quick is false for http(s), nfs:// and claim://.
func quickRead(p *peoplev1.Person, src avatar.Source, perr error) (read kube.AvatarRead, quick bool) {
	switch {
	case perr != nil:
		return failedRead(p.Spec.Avatar, perr, avatar.ReasonUnsupportedScheme), true
	case src.Kind == avatar.KindInitials:
		return kube.AvatarRead{Reason: avatar.ReasonInitials, Thumbnail: drawInitials(p)}, true
	case src.Kind == avatar.KindData:
		return thumbnailRead(p, src), true
	}
	return kube.AvatarRead{}, false
}

func drawInitials(p *peoplev1.Person) string {
	return avatar.DataURI(pictures.DrawInitials(pictures.Initials(p.Spec.DisplayName, p.Spec.Nickname), avatar.Colour(p.Name)))
}

// thumbnailRead makes the thumbnail of a data: picture.
func thumbnailRead(p *peoplev1.Person, src avatar.Source) kube.AvatarRead {
	jpg, err := pictures.Thumbnail(src.Data, avatar.Colour(p.Name))
	if err != nil {
		return failedRead(p.Spec.Avatar, err, avatar.ReasonDecodeFailed)
	}
	return kube.AvatarRead{Source: p.Spec.Avatar, Reason: avatar.ReasonInline, Thumbnail: avatar.DataURI(jpg)}
}

// failedRead is a read that failed with err, whose reason is the error's own or fallback.
func failedRead(source string, err error, fallback string) kube.AvatarRead {
	return kube.AvatarRead{Source: source, Reason: avatar.ReasonOf(err, fallback), Message: err.Error()}
}

// finish writes the status a read leads to, when it differs from the Person's, then posts the
// Event the change deserves. checked is the check-avatar value the read answered. A conflict
// reads the Person again and writes onto it, as long as its spec is still the one the read
// answered; a Person whose spec changed meanwhile is an error, and the retry reads it afresh.
func (a *Activities) finish(ctx context.Context, u *unstructured.Unstructured, p *peoplev1.Person, read kube.AvatarRead, checked string, out PersonOutcome) (PersonOutcome, error) {
	log := logFor(ctx)
	if !read.Succeeded() {
		read.Initials = drawInitials(p)
		log.Warn("the picture of a Person could not be read", "person", p.Name, "avatar", p.Spec.Avatar, "reason", read.Reason, "message", read.Message)
	}
	w, err := activities.WriteStatus(ctx, a.statusOf(p), u, func(st peoplev1.PersonStatus, m metav1.Object) (peoplev1.PersonStatus, error) {
		if m.GetGeneration() != p.Generation {
			return st, fmt.Errorf("the Person %s changed while its status was written", p.Name)
		}
		return kube.PersonStatusAfter(st, read, p.Generation, checked, a.now()), nil
	})
	switch {
	case err != nil:
		return out, err
	case w.Obj == nil:
		return PersonOutcome{Gone: true}, nil
	}
	out.Reason = kube.AvatarCondition(&w.After).Reason
	if !w.Wrote {
		return out, nil
	}
	out.Wrote = true
	log.Info("wrote the picture of a Person", "person", p.Name, "reason", out.Reason)

	if e, ok := kube.AvatarEvent(&w.Before, &w.After); ok {
		// The status is written: the Event is news about it, and a retry would not post it
		// again (the status would not change), so a failure to post is logged, not retried.
		if err := a.postEvent(ctx, p, e); err != nil {
			log.Warn("an Event about a Person could not be posted", "person", p.Name, "reason", e.Reason, "err", err)
		}
	}
	return out, nil
}

// statusOf is the status write of the Person p.
func (a *Activities) statusOf(p *peoplev1.Person) activities.StatusOf {
	return activities.StatusOf{Resource: a.Dynamic.Resource(peoplev1.PersonResource), Kind: peoplev1.PersonKind.Kind,
		Name: p.Name, UID: p.UID, Manager: fieldManager}
}

// errNoImage is the BakeFailed message of a worker that does not know its own image.
var errNoImage = errors.New("the worker does not know which image bakes pictures; start it with --baker-image, or in a pod with POD_NAME and POD_NAMESPACE set")
