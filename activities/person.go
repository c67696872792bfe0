// The people side's activities: one quick pass over a Person (read it, decide whether its
// picture must be read, read initials, data: and http(s) pictures, write the status, post the
// Events), the bake through a baker pod for nfs:// and claim:// pictures, and the clean-up of a
// Person that is gone. Picture bytes go from here straight into the Person's status; only the
// small PersonOutcome returns to the workflow's history.
package activities

import (
	"context"
	"errors"
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

// SyncPerson is the quick pass over a Person (a local activity: no pods).
func (a *Activities) SyncPerson(ctx context.Context, in PersonPass) (PersonOutcome, error) {
	return PersonOutcome{}, errors.New("not implemented yet")
}

// BakePerson reads an nfs:// or claim:// picture through a baker pod.
func (a *Activities) BakePerson(ctx context.Context, in PersonPass) (PersonOutcome, error) {
	return PersonOutcome{}, errors.New("not implemented yet")
}

// ForgetPerson deletes every baker pod of a Person that is gone.
func (a *Activities) ForgetPerson(ctx context.Context, name string) error {
	return errors.New("not implemented yet")
}
