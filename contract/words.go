// The words the Temporal UI shows of a workflow's start: a summary a person reads at a glance
// in the list ("Reservation tonight: Telescope east for ada, 21:00–23:00 UTC") and details in
// markdown with the kubectl commands that show the resource. Pure functions of what the
// caller knows; they never touch replay, since Temporal never matches a history by them.
package contract

import (
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Words is what the Temporal UI shows of a workflow started by the watcher or the worker:
// StaticSummary and StaticDetails of its start.
type Words struct {
	// Summary is one line, shown in the workflow list.
	Summary string
	// Details is markdown, shown on the workflow's page.
	Details string
}

// Kubectl is markdown naming the commands that show a resource; an empty namespace is a
// cluster-scoped one.
func Kubectl(namespace, kind, name string) string {
	ns := ""
	if namespace != "" {
		ns = "-n " + namespace + " "
	}
	return "```\nkubectl " + ns + "get " + kind + " " + name + " -o wide\nkubectl " + ns + "describe " + kind + " " + name + "\n```"
}

// Window says when a reservation runs, in UTC: "2026-12-01 21:00–23:00 UTC", "from ... until
// it is deleted", and so on.
func Window(start, end *metav1.Time) string {
	switch {
	case start == nil && end == nil:
		return "until it is deleted"
	case start == nil:
		return "until " + day(end.Time) + " " + clock(end.Time) + " UTC"
	case end == nil:
		return "from " + day(start.Time) + " " + clock(start.Time) + " UTC until it is deleted"
	case day(start.Time) == day(end.Time):
		return day(start.Time) + " " + clock(start.Time) + "–" + clock(end.Time) + " UTC"
	}
	return day(start.Time) + " " + clock(start.Time) + " – " + day(end.Time) + " " + clock(end.Time) + " UTC"
}

// At is a moment as a timer's summary names it: "2026-12-01 23:00 UTC".
func At(t time.Time) string { return day(t) + " " + clock(t) + " UTC" }

func day(t time.Time) string { return t.UTC().Format("2006-01-02") }

// clock is a time of day in UTC, with seconds only when it has some.
func clock(t time.Time) string {
	if t.Second() != 0 {
		return t.UTC().Format("15:04:05")
	}
	return t.UTC().Format("15:04")
}
