// These tests hold the store to its promises: updates merge into snapshots that readers on
// other goroutines never see change under them, deletions remove what they name, and a
// subscriber that falls behind costs bounded memory and learns it must re-read.

package indi

import (
	"context"
	"fmt"
	"liken.sh/runner/indi/prop"
	"strings"
	"sync"
	"testing"
	"time"
)

func mustRead(t testing.TB, xml string) *Message {
	t.Helper()
	m, err := NewReader(strings.NewReader(xml), Limits{}).Next()
	if err != nil {
		t.Fatal(err)
	}
	return m
}

const shutterDef = `<defSwitchVector device="Dome" name="DOME_SHUTTER" state="Ok" perm="rw" rule="AtMostOne" timeout="60">
<defSwitch name="SHUTTER_OPEN">Off</defSwitch><defSwitch name="SHUTTER_CLOSE">On</defSwitch></defSwitchVector>`

func TestAnUpdateMergesIntoTheDefinitionAndKeepsOldSnapshots(t *testing.T) {
	s := newStore()
	if err := s.apply(mustRead(t, shutterDef)); err != nil {
		t.Fatal(err)
	}
	before, _ := s.property("Dome", "DOME_SHUTTER")
	err := s.apply(mustRead(t, `<setSwitchVector device="Dome" name="DOME_SHUTTER" state="Busy" message="opening">
<oneSwitch name="SHUTTER_OPEN">On</oneSwitch><oneSwitch name="NO_SUCH">On</oneSwitch></setSwitchVector>`))
	if err != nil {
		t.Fatal(err)
	}
	after, _ := s.property("Dome", "DOME_SHUTTER")
	if after.Summary() != "Busy SHUTTER_OPEN=On SHUTTER_CLOSE=On" || after.Message != "opening" ||
		after.Rule != prop.AtMostOne || after.Timeout != 60 {
		t.Fatalf("after: %+v", after)
	}
	if before.Summary() != "Ok SHUTTER_OPEN=Off SHUTTER_CLOSE=On" {
		t.Fatalf("the earlier snapshot changed: %s", before.Summary())
	}
	// An update without a state keeps the state; one for an unknown property changes nothing.
	s.apply(mustRead(t, `<setSwitchVector device="Dome" name="DOME_SHUTTER"><oneSwitch name="SHUTTER_CLOSE">Off</oneSwitch></setSwitchVector>`))
	s.apply(mustRead(t, `<setSwitchVector device="Dome" name="OTHER" state="Ok"><oneSwitch name="X">On</oneSwitch></setSwitchVector>`))
	last, _ := s.property("Dome", "DOME_SHUTTER")
	if last.Summary() != "Busy SHUTTER_OPEN=On SHUTTER_CLOSE=Off" || last.Message != "" {
		t.Fatalf("last: %+v", last)
	}
	if _, ok := s.property("Dome", "OTHER"); ok {
		t.Fatal("an update defined a property")
	}
}

func TestDeletingAPropertyOrADeviceRemovesIt(t *testing.T) {
	s := newStore()
	s.apply(mustRead(t, shutterDef))
	s.apply(mustRead(t, strings.ReplaceAll(shutterDef, "DOME_SHUTTER", "OTHER")))
	s.apply(mustRead(t, `<delProperty device="Dome" name="OTHER"/>`))
	if names := propertyNames(s.properties("Dome")); names != "DOME_SHUTTER" {
		t.Fatalf("left %s", names)
	}
	s.apply(mustRead(t, `<delProperty device="Dome"/>`))
	if len(s.deviceNames()) != 0 {
		t.Fatalf("left %v", s.deviceNames())
	}
}

func propertyNames(ps []prop.Property) string {
	var n []string
	for _, p := range ps {
		n = append(n, p.Name)
	}
	return strings.Join(n, ",")
}

func TestASubscriberThatFallsBehindIsToldToResync(t *testing.T) {
	s := newStore()
	s.apply(mustRead(t, shutterDef))
	sub := s.subscribe(Filter{Device: "Dome"})
	defer sub.Close()
	other := s.subscribe(Filter{Device: "Elsewhere"})
	defer other.Close()
	set := mustRead(t, `<setSwitchVector device="Dome" name="DOME_SHUTTER" state="Busy"><oneSwitch name="SHUTTER_OPEN">On</oneSwitch></setSwitchVector>`)
	for range maxQueued + 10 {
		s.apply(set)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	ev, err := sub.Next(ctx)
	if err != nil || ev.Kind != Resync {
		t.Fatalf("got %v %v, want Resync", ev.Kind, err)
	}
	n := 0
	for {
		short, cancel := context.WithTimeout(ctx, 10*time.Millisecond)
		ev, err := sub.Next(short)
		cancel()
		if err != nil {
			break
		}
		if ev.Kind != Updated {
			t.Fatalf("got %v", ev.Kind)
		}
		n++
	}
	if n > maxQueued {
		t.Fatalf("%d events queued, more than %d", n, maxQueued)
	}
	if len(other.queue) != 0 {
		t.Fatalf("a filtered subscriber got %d events", len(other.queue))
	}
}

func TestAClosedStoreEndsSubscriptionsAfterTheirEvents(t *testing.T) {
	s := newStore()
	sub := s.subscribe(Filter{})
	s.apply(mustRead(t, shutterDef))
	s.close(fmt.Errorf("gone"))
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	if ev, err := sub.Next(ctx); err != nil || ev.Kind != Defined {
		t.Fatalf("got %v %v, want the definition first", ev.Kind, err)
	}
	if _, err := sub.Next(ctx); err == nil || err.Error() != "gone" {
		t.Fatalf("got %v, want the store's error", err)
	}
}

func TestReadersOnOtherGoroutinesSeeWholeUpdates(t *testing.T) {
	s := newStore()
	s.apply(mustRead(t, `<defNumberVector device="Mount" name="EQUATORIAL_EOD_COORD" state="Idle" perm="rw">
<defNumber name="RA">0</defNumber><defNumber name="DEC">0</defNumber></defNumberVector>`))
	updates := make([]*Message, 200)
	for i := range updates {
		// RA and DEC always move together: a reader must never see one without the other.
		updates[i] = mustRead(t, fmt.Sprintf(`<setNumberVector device="Mount" name="EQUATORIAL_EOD_COORD" state="Busy">
<oneNumber name="RA">%d</oneNumber><oneNumber name="DEC">%d</oneNumber></setNumberVector>`, i, i))
	}
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for range 4 {
		wg.Go(func() {
			for {
				select {
				case <-stop:
					return
				default:
				}
				p, _ := s.property("Mount", "EQUATORIAL_EOD_COORD")
				ra, _ := p.Number("RA")
				dec, _ := p.Number("DEC")
				if ra != dec {
					t.Errorf("torn read: RA %v DEC %v", ra, dec)
					return
				}
				s.properties("Mount")
				s.deviceNames()
			}
		})
	}
	for _, m := range updates {
		s.apply(m)
	}
	close(stop)
	wg.Wait()
}

// Sync counts the CONNECTION definitions it awaits; a definition both stored and queued would
// end it before the rest of the device's properties arrived.
func TestASubscriberSeesADefinitionStoredOrQueuedNeverBoth(t *testing.T) {
	def := mustRead(t, `<defSwitchVector device="Guard" name="CONNECTION" state="Ok" perm="rw" rule="OneOfMany">
<defSwitch name="CONNECT">On</defSwitch><defSwitch name="DISCONNECT">Off</defSwitch></defSwitchVector>`)
	for range 2000 {
		s := newStore()
		applied := make(chan struct{})
		go func() { s.apply(def); close(applied) }()
		sub, _, seen := s.subscribeReading(Filter{Device: "Guard"}, "Guard", "CONNECTION")
		<-applied
		queued := len(sub.queue) - sub.head
		sub.Close()
		if seen == (queued == 1) {
			t.Fatalf("stored %v and %d events queued", seen, queued)
		}
	}
}
