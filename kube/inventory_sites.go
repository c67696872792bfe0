// The inventory's part of the statuses of what holds the devices (see inventory.go for who
// writes what): a Telescope's phase and Ready from the reservation that holds it, where its
// server runs, its tubes, trains, devices and Guider; an Observatory's phase from its
// telescopes' reservations, its server, telescopes, devices and reservations, its place in
// words and its sky (sky.go); a Guider's phase while nothing runs it; and each one's ParentFound condition.
package kube

import (
	"fmt"
	"math"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// The keys of the Telescope's and the Observatory's status.display.
const (
	DisplayGuider    = "guider"
	DisplayLatitude  = "latitude"
	DisplayLongitude = "longitude"
)

// TelescopeStatus is t's status with the inventory's fields put in.
func (inv *Inventory) TelescopeStatus(t obsv1.Telescope, now time.Time) obsv1.TelescopeStatus {
	st := *t.Status.DeepCopy()
	st.ObservedGeneration = t.Generation
	parent, _ := inv.parentFound(link{obsv1.KindObservatory, t.Spec.Observatory})
	st.Conditions = WithCondition(st.Conditions, parent, t.Generation, now)
	h := inv.holders[t.Name]
	var ready obsv1.Condition
	st.Phase, ready = holdPhase(h, parent)
	st.Conditions = WithCondition(st.Conditions, ready, t.Generation, now)
	st.Server = inv.server(ServerName(obsv1.KindTelescope, t.Name))
	st.Reservation = nil
	if h != nil {
		st.Reservation = &obsv1.Holding{Name: h.Name, Holder: h.Spec.Holder}
	}
	st.Tubes = nil
	for _, tube := range inv.tubeList {
		if tube.Spec.Telescope == t.Name {
			st.Tubes = append(st.Tubes, tube.Name)
		}
	}
	st.Trains = nil
	for _, tr := range inv.trainList {
		if tr.Spec.Telescope == t.Name {
			st.Trains = append(st.Trains, obsv1.TrainSummary{Name: tr.Name,
				Devices: inv.summaries(func(d *Device) bool { return d.OpticalTrain == tr.Name })})
		}
	}
	st.Devices = inv.summaries(func(d *Device) bool { return d.Telescope == t.Name })
	st.Guider, st.Display = nil, nil
	for _, g := range inv.guiders {
		if g.Spec.Telescope == t.Name {
			st.Guider = inv.guiderSummary(g)
			st.Display = map[string]string{DisplayGuider: guiderWords(st.Guider)}
			break
		}
	}
	return st
}

// holdPhase is a Telescope's phase and Ready condition, from the reservation that holds it.
func holdPhase(h *obsv1.Reservation, parent obsv1.Condition) (obsv1.ActivationPhase, obsv1.Condition) {
	if h == nil {
		if parent.Status == metav1.ConditionFalse {
			return obsv1.PhaseError, ReadyCondition(ReasonError, parent.Message)
		}
		return obsv1.PhaseIdle, ReadyCondition(string(obsv1.PhaseIdle), MessageNotReserved)
	}
	who := fmt.Sprintf("Reservation %s (%s)", h.Name, h.Spec.Holder)
	switch h.Status.Phase {
	case obsv1.ReservationReady:
		msg := "Ready for " + who
		if ep := h.Status.Endpoint; ep != nil {
			msg = fmt.Sprintf("Ready at %s:%d for %s", ep.Host, ep.Port, who)
		}
		return obsv1.PhaseReady, ReadyCondition(ReasonReady, msg)
	case obsv1.ReservationDeactivating:
		return obsv1.PhaseDeactivating, ReadyCondition(string(obsv1.PhaseDeactivating), "Deactivating for "+who)
	case obsv1.ReservationFailed:
		msg := "Reservation " + h.Name + " failed"
		if c := ReservationCondition(&h.Status, obsv1.ConditionReady); c != nil && c.Message != "" {
			msg += " at " + h.Status.Step + ": " + c.Message
		}
		return obsv1.PhaseError, ReadyCondition(ReasonError, msg)
	}
	return obsv1.PhaseActivating, ReadyCondition(string(obsv1.PhaseActivating), "Activating for "+who)
}

// ObservatoryStatus is o's status with the inventory's fields put in. Its weather is the
// observer's while a reservation runs the site; the inventory only says Unknown before any.
func (inv *Inventory) ObservatoryStatus(o obsv1.Observatory, now time.Time) obsv1.ObservatoryStatus {
	st := *o.Status.DeepCopy()
	st.ObservedGeneration = o.Generation
	holders := inv.siteHolders(o.Name)
	st.Phase = sitePhase(holders)
	st.Server = inv.server(ServerName(obsv1.KindObservatory, o.Name))
	st.Telescopes = nil
	for _, t := range inv.telescopeList {
		if t.Spec.Observatory == o.Name {
			st.Telescopes = append(st.Telescopes, t.Name)
		}
	}
	st.Devices = inv.summaries(func(d *Device) bool { return d.Observatory == o.Name })
	st.Reservations = nil
	for _, h := range holders {
		st.Reservations = append(st.Reservations, h.Name)
	}
	if st.Weather == "" {
		st.Weather = SafetyUnknown
	}
	sky := SkyStatus(o.Spec.Location, now)
	st.Sky = &sky
	st.Conditions = SkyConditions(st.Conditions, sky, o.Generation, now)
	st.Display = SkyDisplay(sky)
	st.Display[DisplayLatitude] = hemisphere(o.Spec.Location.Latitude, "N", "S")
	st.Display[DisplayLongitude] = hemisphere(o.Spec.Location.Longitude, "E", "W")
	return st
}

// sitePhase is an Observatory's phase: Ready while one of its telescopes is, else Activating,
// Deactivating or Error as the reservations holding them are, else Idle.
func sitePhase(holders []*obsv1.Reservation) obsv1.ActivationPhase {
	best := obsv1.PhaseIdle
	rank := map[obsv1.ActivationPhase]int{obsv1.PhaseIdle: 0, obsv1.PhaseError: 1, obsv1.PhaseDeactivating: 2,
		obsv1.PhaseActivating: 3, obsv1.PhaseReady: 4}
	for _, h := range holders {
		if p, _ := holdPhase(h, obsv1.Condition{}); rank[p] > rank[best] {
			best = p
		}
	}
	return best
}

// hemisphere writes a latitude or longitude for people: 52.2043° N, 0.1149° E.
func hemisphere(v float64, positive, negative string) string {
	side := positive
	if v < 0 {
		side = negative
	}
	return decimal(math.Abs(v), 4) + "° " + side
}

// GuiderStatus is g's status with the inventory's fields put in: its phase and Ready only
// while no pod runs it (StartGuider sets status.pod, StopGuider clears it).
func (inv *Inventory) GuiderStatus(g obsv1.Guider, now time.Time) obsv1.GuiderStatus {
	st := *g.Status.DeepCopy()
	st.ObservedGeneration = g.Generation
	parent, _ := inv.guiderParent(&g)
	st.Conditions = WithCondition(st.Conditions, parent, g.Generation, now)
	if st.Pod != "" {
		return st
	}
	var ready obsv1.Condition
	st.Phase, ready = inv.idleGuider(&g)
	st.Conditions = WithCondition(st.Conditions, ready, g.Generation, now)
	return st
}

// GuiderConditionTypes are the conditions the inventory writes on g (see DeviceConditionTypes).
func GuiderConditionTypes(g obsv1.Guider) []string {
	if g.Status.Pod != "" {
		return []string{obsv1.ConditionParentFound}
	}
	return []string{obsv1.ConditionParentFound, obsv1.ConditionReady}
}

func (inv *Inventory) guiderParent(g *obsv1.Guider) (obsv1.Condition, bool) {
	return inv.parentFound(link{obsv1.KindTelescope, g.Spec.Telescope}, link{obsv1.KindOpticalTrain, g.Spec.OpticalTrain})
}

// idleGuider is the phase and Ready condition of a Guider that no pod runs.
func (inv *Inventory) idleGuider(g *obsv1.Guider) (string, obsv1.Condition) {
	parent, _ := inv.guiderParent(g)
	switch {
	case parent.Status == metav1.ConditionFalse:
		return string(obsv1.DeviceError), ReadyCondition(ReasonError, parent.Message)
	case g.Spec.Telescope == "":
		return string(obsv1.DeviceInventory), ReadyCondition(string(obsv1.DeviceInventory), MessageOnTheShelf)
	}
	camera, mount := false, false
	for _, d := range inv.devices {
		camera = camera || d.Kind == obsv1.KindCamera && d.OpticalTrain == g.Spec.OpticalTrain && !d.Deleting
		mount = mount || d.Kind == obsv1.KindMount && d.Telescope == g.Spec.Telescope && !d.Deleting
	}
	if msg := GuiderRefusal(g, camera, mount); msg != "" {
		return string(obsv1.DeviceError), ReadyCondition(ReasonError, msg)
	}
	var holders []*obsv1.Reservation
	if h := inv.holders[g.Spec.Telescope]; h != nil {
		holders = append(holders, h)
	}
	phase, msg := waitingFor(holders, "start PHD2")
	if phase == "" {
		return string(obsv1.DeviceIdle), ReadyCondition(string(obsv1.DeviceIdle), msg)
	}
	return string(phase), ReadyCondition(string(phase), msg)
}

// GuiderRefusal is why a Guider cannot guide, in StartGuider's words; "" when it can.
func GuiderRefusal(g *obsv1.Guider, hasCamera, hasMount bool) string {
	switch {
	case !hasCamera:
		return fmt.Sprintf("Guider %s: OpticalTrain %s has no Camera to guide with", g.Name, g.Spec.OpticalTrain)
	case !hasMount && g.Spec.Pulses != obsv1.PulsesCamera:
		return fmt.Sprintf("Guider %s sends pulses to the Mount, but Telescope %s has no Mount", g.Name, g.Spec.Telescope)
	}
	return ""
}

// guiderSummary is a Guider as its Telescope's status shows it.
func (inv *Inventory) guiderSummary(g *obsv1.Guider) *obsv1.GuiderSummary {
	s := &obsv1.GuiderSummary{Name: g.Name, Phase: g.Status.Phase, State: g.Status.State}
	ready := ConditionOf(g.Status.Conditions, obsv1.ConditionReady)
	if g.Status.Pod == "" {
		var c obsv1.Condition
		s.Phase, c = inv.idleGuider(g)
		ready = &c
	}
	if ready != nil {
		s.Ready, s.Reason = ready.Status == metav1.ConditionTrue, ready.Reason
	}
	return s
}

// guiderWords is the Guider as display.guider says it: "Ready, Guiding", or its Ready reason.
func guiderWords(s *obsv1.GuiderSummary) string {
	words := s.Reason
	if s.Ready {
		words = ReasonReady
	}
	if s.State != "" {
		words += ", " + string(s.State)
	}
	return words
}

// TubeStatus is an OpticalTube's status with the inventory's fields: all of it.
func (inv *Inventory) TubeStatus(t obsv1.OpticalTube, now time.Time) obsv1.StatusBase {
	parent, _ := inv.parentFound(link{obsv1.KindTelescope, t.Spec.Telescope})
	return inv.baseStatus(t.Status, parent, t.Generation, now)
}

// TrainStatus is an OpticalTrain's status with the inventory's fields: all of it.
func (inv *Inventory) TrainStatus(t obsv1.OpticalTrain, now time.Time) obsv1.StatusBase {
	parent, _ := inv.parentFound(link{obsv1.KindTelescope, t.Spec.Telescope}, link{obsv1.KindOpticalTube, t.Spec.OpticalTube})
	return inv.baseStatus(t.Status, parent, t.Generation, now)
}

func (inv *Inventory) baseStatus(st obsv1.StatusBase, parent obsv1.Condition, generation int64, now time.Time) obsv1.StatusBase {
	out := *st.DeepCopy()
	out.ObservedGeneration = generation
	out.Conditions = WithCondition(out.Conditions, parent, generation, now)
	return out
}
