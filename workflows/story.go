// The words the Temporal UI shows of each lifecycle. A workflow's start carries a summary a
// person reads at a glance in the list ("Reservation tonight: Telescope east for ada,
// 21:00–23:00 UTC") and details in markdown with the kubectl commands that show the resource;
// every activity and timer a workflow schedules carries a summary of what it does, which the UI
// shows beside the activity's name ("StartDevices • Mount east, Camera east-main", "end at
// 2026-12-01 23:00 UTC"); a reservation's current details follow its phase, its step and the
// last thing it did.
//
// All of them are pure functions of what the caller knows, tested without a server. They never
// touch replay: Temporal matches a recorded activity by its ID and type and a timer by its ID,
// never by its summary, so old histories replay whatever the words say now.
package workflows

import (
	"fmt"
	"strconv"
	"strings"

	"liken.sh/runner/activities/people"
	"liken.sh/runner/contract"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// PersonWords are a Person's workflow's words.
func PersonWords(name string) contract.Words {
	return contract.Words{
		Summary: "Person " + name + ": the picture in status.thumbnail, re-checked every " + kube.ShortDuration(RecheckEvery),
		Details: fmt.Sprintf("Draws the initials of the Person `%s`, or reads its picture (fetched, inline, or baked in a pod "+
			"for nfs:// and claim://), and writes status.thumbnail and the AvatarReady condition:\n\n%s", name, contract.Kubectl("", "person", name)),
	}
}

// TelescopeLockWords are a telescope's lock's words.
func TelescopeLockWords(namespace, name string) contract.Words {
	return contract.Words{
		Summary: fmt.Sprintf("Telescope %s (%s): one holder at a time; the others wait by start, creation and name", name, namespace),
		Details: fmt.Sprintf("Grants the Telescope `%s/%s` to one Reservation at a time and tells the waiting ones who holds it. "+
			"Its reservations: `Telescope = \"%s\"` in the workflow list.\n\n%s", namespace, name, name, contract.Kubectl(namespace, "telescope", name)),
	}
}

// SiteTurnsWords are an observatory's site lock's words.
func SiteTurnsWords(namespace, name string) contract.Words {
	return contract.Words{
		Summary: fmt.Sprintf("Observatory %s (%s): its site starts once for all its telescopes and stops with the last", name, namespace),
		Details: fmt.Sprintf("Gives the Reservations of the Observatory `%s/%s` their turns at StartSite, Activation, Deactivation "+
			"and StopSite, one at a time, and says which of them runs the site's part.\n\n%s", namespace, name, contract.Kubectl(namespace, "observatory", name)),
	}
}

// ProbeWords are the Probe's words.
func ProbeWords() contract.Words {
	return contract.Words{
		Summary: "Probe: one activity on a worker asks Kubernetes for its version",
		Details: "`make run` runs this once, to show that the path from Temporal through a worker to the cluster works.",
	}
}

// stepWhat says what each working step does, of a telescope t and its observatory o; the
// steps that act on the telescope's devices name them instead when they are known.
var stepWhat = map[string]func(t, o string) string{
	kube.StepStartSite:    func(_, o string) string { return "Observatory " + o + "'s INDI server and devices" },
	kube.StepPowerOn:      func(t, _ string) string { return "Telescope " + t + "'s INDI server, Switches and power" },
	kube.StepStartDevices: func(t, _ string) string { return "the devices of Telescope " + t },
	kube.StepConnect:      func(t, _ string) string { return "the devices of Telescope " + t },
	kube.StepConfigure:    func(t, _ string) string { return "the devices of Telescope " + t },
	kube.StepActivation:   func(t, _ string) string { return "the activation procedures of Telescope " + t + " and its devices" },
	kube.StepStartGuider:  func(t, _ string) string { return "the Guider of Telescope " + t },
	kube.StepAbort:        func(t, _ string) string { return "stop exposures and slews on Telescope " + t },
	kube.StepDeactivation: func(t, _ string) string { return "the deactivation procedures of Telescope " + t + " and its devices" },
	kube.StepStopGuider:   func(t, _ string) string { return "the Guider of Telescope " + t },
	kube.StepDisconnect:   func(t, _ string) string { return "the devices of Telescope " + t },
	kube.StepStopDevices:  func(t, _ string) string { return "the devices of Telescope " + t },
	kube.StepPowerOff:     func(t, _ string) string { return "power off, then Telescope " + t + "'s Switches and INDI server" },
	kube.StepStopSite:     func(_, o string) string { return "Observatory " + o + "'s devices and INDI server" },
}

// stepsOnDevices are the steps whose summary names the telescope's devices (in the order the
// step goes through them) once PowerOn has said which they are.
var stepsOnDevices = map[string]bool{
	kube.StepStartDevices: true, kube.StepConnect: true, kube.StepConfigure: true,
	kube.StepDisconnect: true, kube.StepStopDevices: true,
}

// StepSummary is a step activity's summary, which the Temporal UI shows beside the step's
// name ("StartDevices • Mount east, Camera east-main"). devices are the telescope's
// (Switches aside) in connect order, or nil when not known.
func StepSummary(step, telescope, observatory string, devices []string) string {
	what, ok := stepWhat[step]
	switch {
	case !ok:
		return step
	case stepsOnDevices[step] && len(devices) > 0 && (step == kube.StepDisconnect || step == kube.StepStopDevices):
		return strings.Join(reversed(devices), ", ")
	case stepsOnDevices[step] && len(devices) > 0:
		return strings.Join(devices, ", ")
	}
	return what(telescope, observatory)
}

func reversed(s []string) []string {
	out := make([]string, len(s))
	for i, v := range s {
		out[len(s)-1-i] = v
	}
	return out
}

// localSummary is a reservation's bookkeeping local activity's summary: "hold Telescope east".
func localSummary(verb string, kind obsv1.Kind, name string) string {
	return verb + " " + string(kind) + " " + name
}

// coordinatorSummary says what a reservation asks of its telescope's or observatory's lock.
func coordinatorSummary(kind obsv1.Kind, name, op string) string {
	return "ask " + string(kind) + " " + name + "'s lock to " + op
}

// statusSummary is the summary of a status write: what the status says now.
func statusSummary(st obsv1.ReservationStatus) string {
	s := "write the status: " + string(st.Phase)
	if st.Step != "" {
		s += ", " + st.Step
	}
	return s
}

// fewNames lists up to a few names, then how many more: "ada, grace, hedy and 9 more".
func fewNames(all []string) string {
	const shown = 3
	if len(all) <= shown {
		return strings.Join(all, ", ")
	}
	return strings.Join(all[:shown], ", ") + " and " + strconv.Itoa(len(all)-shown) + " more"
}

// ReservationDetails are a reservation's current details (markdown), kept up to date as its
// status changes: its phase and step, where to connect while Ready, what the booking rules
// said of it, and the last step done.
func ReservationDetails(st obsv1.ReservationStatus) string {
	out := "**" + orDash(string(st.Phase)) + "**"
	if st.Step != "" {
		out += ", step **" + st.Step + "**"
		if rec := kube.FindStep(&st, st.Step); rec != nil && rec.Summary != "" {
			out += ": " + rec.Summary
		}
	}
	if st.Endpoint != nil {
		out += fmt.Sprintf("\n\nINDI server: `%s:%d`", st.Endpoint.Host, st.Endpoint.Port)
	}
	if c := kube.ReservationCondition(&st, obsv1.ConditionConfirmed); c != nil {
		out += "\n\nBooking: " + c.Message
	}
	if last := lastFinished(st); last != nil {
		out += "\n\nLast: " + last.Name + " " + string(last.State)
		if last.Summary != "" {
			out += ": " + last.Summary
		}
	}
	return out
}

// lastFinished is the step that stopped last (the later one in the list on a tie).
func lastFinished(st obsv1.ReservationStatus) *obsv1.StepRecord {
	var last *obsv1.StepRecord
	for i := range st.Steps {
		s := &st.Steps[i]
		if s.StopTime == nil {
			continue
		}
		if last == nil || !s.StopTime.Before(last.StopTime) {
			last = s
		}
	}
	return last
}

// personDetails are a Person's current details after a pass: its picture's source and
// the AvatarReady reason, or why the pass failed.
func personDetails(out people.PersonOutcome, err error) string {
	switch {
	case err != nil:
		return "The last pass failed; it is tried again in " + kube.ShortDuration(retryAfterFailure) + ": " + err.Error()
	case out.Gone:
		return "The Person is gone"
	}
	src := out.Source
	if src == "" {
		src = "none (initials)"
	} else if len(src) > 80 {
		src = src[:80] + "…"
	}
	return "AvatarReady: **" + orDash(out.Reason) + "**; picture: `" + src + "`"
}

func orDash(s string) string {
	if s == "" {
		return "—"
	}
	return s
}
