// A site's booking rules (Observatory spec.booking): what its observers may book, checked
// when a Reservation is made, and the priorities that order those that wait for one
// telescope. They live in the Observatory, which only the site's administrators edit, so a
// club changes its rules without a new build.

package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Booking is the site's booking rules. A Reservation over a rule is refused at once: its
// Confirmed condition and a Warning Event say which rule, in the rule's words, and it never
// takes the telescope until its spec fits. Each rule applies only when set.
type Booking struct {
	// What a booking whose window overlaps another's on the same telescope gets: Refuse (it
	// is refused, and the earlier booking keeps its window) or Queue (it is marked, and waits
	// for the other in the telescope's queue, served by priority, then by start). A
	// reservation without an end overlaps every later window. Defaults to Queue.
	// +optional
	// +kubebuilder:validation:Enum=Refuse;Queue
	Overlaps BookingOverlaps `json:"overlaps,omitempty"`

	// The longest a reservation may hold a telescope, as a Go duration ("4h"). A
	// reservation without an end is refused when this is set.
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	MaxDuration *metav1.Duration `json:"maxDuration,omitempty"`

	// The most time one holder may book on the site's telescopes in one night (the site's
	// solar day, noon to noon), all telescopes together ("6h").
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	MaxPerNight *metav1.Duration `json:"maxPerNight,omitempty"`

	// The most time one holder may book on the site's telescopes in one week (the nights of
	// Monday to Sunday), all telescopes together ("12h").
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	MaxPerWeek *metav1.Duration `json:"maxPerWeek,omitempty"`

	// How far ahead of its start a reservation may be made ("720h": 30 days).
	// +optional
	// +kubebuilder:validation:Type=string
	// +kubebuilder:validation:Format=duration
	MaxAhead *metav1.Duration `json:"maxAhead,omitempty"`

	// The holders who go first when several reservations wait for one telescope: the
	// highest priority first, then the earliest start. A holder not listed has priority 0.
	// A night that runs is never cut short for a higher priority: it goes next.
	// +optional
	// +listType=map
	// +listMapKey=holder
	// +kubebuilder:validation:MaxItems=256
	Priorities []HolderPriority `json:"priorities,omitempty"`
}

// BookingOverlaps is Booking.Overlaps.
type BookingOverlaps string

// The answers to an overlapping booking.
const (
	OverlapsRefuse BookingOverlaps = "Refuse"
	OverlapsQueue  BookingOverlaps = "Queue"
)

// HolderPriority is one holder's priority at the site.
type HolderPriority struct {
	// The holder, as Reservations name it in spec.holder (a Person's name).
	// +required
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	Holder string `json:"holder"`

	// Higher goes first; negative goes after everyone not listed.
	// +required
	// +kubebuilder:validation:Minimum=-1000
	// +kubebuilder:validation:Maximum=1000
	Priority int32 `json:"priority"`
}

// PriorityOf is holder's priority under b (0 when not listed).
func (b *Booking) PriorityOf(holder string) int32 {
	if b == nil {
		return 0
	}
	for _, p := range b.Priorities {
		if p.Holder == holder {
			return p.Priority
		}
	}
	return 0
}

// ConditionConfirmed is the Reservation condition that says whether its booking passed the
// site's rules: True, or False with the rule (or the overlap) that it did not pass.
const ConditionConfirmed = "Confirmed"
