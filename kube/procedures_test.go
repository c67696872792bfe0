// Procedure records and their words: a record replaces its trigger's last run, the Active
// condition's transition time, Event names and how a timeout is written.
package kube

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

func TestAProcedureRecordReplacesTheLastRunOfItsTriggerAndKeepsTheOthers(t *testing.T) {
	act := obsv1.ProcedureRecord{Trigger: TriggerActivation, RunRecord: obsv1.RunRecord{State: obsv1.RunDone}}
	trig := obsv1.ProcedureRecord{Trigger: "triggers[0]", RunRecord: obsv1.RunRecord{State: obsv1.RunDone}}
	deact := obsv1.ProcedureRecord{Trigger: TriggerDeactivation, RunRecord: obsv1.RunRecord{State: obsv1.RunRunning}}
	rerun := obsv1.ProcedureRecord{Trigger: TriggerActivation, RunRecord: obsv1.RunRecord{State: obsv1.RunFailed}}
	for _, tc := range []struct {
		name    string
		records []obsv1.ProcedureRecord
		rec     obsv1.ProcedureRecord
		want    []obsv1.ProcedureRecord
	}{
		{"the first record", nil, act, []obsv1.ProcedureRecord{act}},
		{"a new trigger is appended", []obsv1.ProcedureRecord{act, trig}, deact, []obsv1.ProcedureRecord{act, trig, deact}},
		{"a rerun takes its trigger's place", []obsv1.ProcedureRecord{act, trig}, rerun, []obsv1.ProcedureRecord{rerun, trig}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := append([]obsv1.ProcedureRecord(nil), tc.records...)
			assert.Equal(t, tc.want, WithProcedureRecord(tc.records, tc.rec))
			assert.Equal(t, before, tc.records, "the input is not changed")
			got := FindProcedureRecord(tc.want, tc.rec.Trigger)
			if assert.NotNil(t, got) {
				assert.Equal(t, tc.rec, *got)
			}
		})
	}
	assert.Nil(t, FindProcedureRecord([]obsv1.ProcedureRecord{act}, TriggerDeactivation))
}

func TestTheActiveConditionMovesItsTransitionTimeOnlyWhenItsStatusChanges(t *testing.T) {
	t0 := time.Date(2030, 1, 1, 20, 0, 0, 0, time.UTC)
	t1 := t0.Add(time.Hour)
	on := WithCondition(nil, ActiveCondition(true, "ada-east"), 3, t0)
	assert.Equal(t, []obsv1.Condition{{Type: obsv1.ConditionActive, Status: metav1.ConditionTrue, ObservedGeneration: 3,
		LastTransitionTime: metav1.NewTime(t0), Reason: ReasonActive, Message: "Activated by Reservation ada-east"}}, on)

	// Another reservation activates it again: the message changes, the time stays.
	again := WithCondition(on, ActiveCondition(true, "bob-east"), 3, t1)
	assert.Equal(t, metav1.NewTime(t0), again[0].LastTransitionTime)
	assert.Equal(t, "Activated by Reservation bob-east", again[0].Message)

	ready := obsv1.Condition{Type: obsv1.ConditionReady, Status: metav1.ConditionTrue, Reason: "Ready"}
	off := WithCondition([]obsv1.Condition{ready, on[0]}, ActiveCondition(false, "ada-east"), 4, t1)
	assert.Equal(t, []obsv1.Condition{ready, {Type: obsv1.ConditionActive, Status: metav1.ConditionFalse, ObservedGeneration: 4,
		LastTransitionTime: metav1.NewTime(t1), Reason: ReasonInactive, Message: "Deactivated by Reservation ada-east"}}, off)
	assert.Equal(t, metav1.ConditionTrue, on[0].Status, "the input is not changed")
}

func TestAnEventAboutAnObservatoryObjectIsNamedByWhatMakesItTheSame(t *testing.T) {
	now := time.Date(2030, 1, 1, 20, 0, 0, 500, time.UTC)
	dome := ResourceID{Kind: obsv1.KindDome, Namespace: "obs", Name: "lab", UID: "u1"}
	started := Event{Type: corev1.EventTypeNormal, Reason: ReasonProcedureStarted, Message: "activation of Dome lab started"}
	ev := ObjectEvent(dome, started, "worker-0", now)
	assert.Equal(t, "obs", ev.Namespace)
	assert.True(t, strings.HasPrefix(ev.Name, "lab."), ev.Name)
	assert.Len(t, ev.Name, len("lab.")+16)
	assert.Equal(t, corev1.ObjectReference{APIVersion: "observatory.liken.sh/v1alpha1", Kind: "Dome", Namespace: "obs",
		Name: "lab", UID: "u1"}, ev.InvolvedObject)
	assert.Equal(t, ObservatoryComponent, ev.ReportingController)
	assert.Equal(t, int32(1), ev.Count)
	assert.Equal(t, metav1.NewTime(now.Truncate(time.Second)), ev.FirstTimestamp)

	assert.Equal(t, ev.Name, ObjectEvent(dome, started, "worker-1", now.Add(time.Minute)).Name, "a repeat finds the same Event")
	mount := dome
	mount.Kind = obsv1.KindMount
	assert.NotEqual(t, ev.Name, ObjectEvent(mount, started, "worker-0", now).Name, "another kind of the same name")
	done := started
	done.Reason = ReasonProcedureDone
	assert.NotEqual(t, ev.Name, ObjectEvent(dome, done, "worker-0", now).Name)
	long := dome
	long.Name = strings.Repeat("a", 253)
	assert.LessOrEqual(t, len(ObjectEvent(long, started, "worker-0", now).Name), 253)
}

func TestATimeoutIsWrittenAsAPersonWouldWriteIt(t *testing.T) {
	for d, want := range map[time.Duration]string{
		10 * time.Minute:        "10m",
		2 * time.Hour:           "2h",
		90 * time.Second:        "1m30s",
		2 * time.Second:         "2s",
		1500 * time.Millisecond: "1.5s",
		0:                       "0s",
	} {
		assert.Equal(t, want, ShortDuration(d), "%v", d)
	}
}
