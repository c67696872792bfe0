// Recordings of the reservation's sessions that drive devices while Ready: a device that
// joins and leaves (recordLive), and a stormy night with triggers (recordStorm).
package workflows

import (
	"context"
	"fmt"
	"time"

	"go.temporal.io/sdk/client"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/contract"
	"liken.sh/runner/indi"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// recordLive is a reservation called name of the example telescope, Ready, whose train a
// Rotator joins and then leaves (its parent edited away); then the Rotator is deleted and
// the reservation too.
func recordLive(name string) func(ctx context.Context, r recorder) (client.WorkflowRun, error) {
	return func(ctx context.Context, r recorder) (client.WorkflowRun, error) {
		const ns = "observatory"
		res := func(k obsv1.Kind) dynamic.ResourceInterface {
			return r.dyn.Resource(k.GroupVersionResource()).Namespace(ns)
		}
		run, id, err := startReady(ctx, r, ns, name, "hedy")
		if err != nil {
			return nil, err
		}
		pods := r.dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "pods"}).Namespace(ns)
		rotator := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": obsv1.SchemeGroupVersion.String(), "kind": "Rotator",
			"metadata": map[string]any{"name": "east-main", "namespace": ns},
			"spec":     map[string]any{"opticalTrain": "east-main", "driver": map[string]any{"name": "indi_simulator_rotator"}},
		}}
		if _, err := res(obsv1.KindRotator).Create(ctx, rotator, metav1.CreateOptions{}); err != nil {
			return nil, err
		}
		for _, step := range []struct {
			patch string
			runs  bool
		}{{"", true}, {`{"spec":{"opticalTrain":null}}`, false}} {
			if step.patch != "" {
				if _, err := res(obsv1.KindRotator).Patch(ctx, "east-main", types.MergePatchType, []byte(step.patch), metav1.PatchOptions{}); err != nil {
					return nil, err
				}
			}
			if err := r.c.SignalWorkflow(ctx, id, "", contract.ReservationChanged, contract.ReservationChange{Why: "device"}); err != nil {
				return nil, err
			}
			if _, err := poll(ctx, func() (string, bool) {
				_, err := pods.Get(ctx, "east-main-rotator", metav1.GetOptions{})
				return fmt.Sprint(err), (err == nil) == step.runs
			}); err != nil {
				return nil, fmt.Errorf("the Rotator's pod (runs: %v): %w", step.runs, err)
			}
		}
		if err := res(obsv1.KindRotator).Delete(ctx, "east-main", metav1.DeleteOptions{}); err != nil {
			return nil, err
		}
		return run, endReservation(ctx, r, ns, name)
	}
}

func recordStorm(ctx context.Context, r recorder) (client.WorkflowRun, error) {
	const ns, name = "observatory", "stormy"
	res := func(k obsv1.Kind) dynamic.ResourceInterface {
		return r.dyn.Resource(k.GroupVersionResource()).Namespace(ns)
	}
	unsafe := `{"kind":"WeatherStation","name":"lab","type":"Safe","status":"False"}`
	triggers := map[obsv1.Kind][2]string{
		obsv1.KindMount: {"east", `[{"when":` + unsafe + `,"run":[{"state":"Parked"}]}]`},
		obsv1.KindDome: {"lab", `[{"when":` + unsafe + `,"run":[{"state":"Parked","after":[{"kind":"Mount"}]}]},` +
			`{"when":{"kind":"WeatherStation","name":"lab","type":"Safe","for":"5s"},"run":[{"state":"Unparked"}]}]`},
	}
	for k, t := range triggers {
		if _, err := res(k).Patch(ctx, t[0], types.MergePatchType, []byte(`{"spec":{"triggers":`+t[1]+`}}`), metav1.PatchOptions{}); err != nil {
			return nil, err
		}
	}
	run, _, err := startReady(ctx, r, ns, name, "ada")
	if err != nil {
		return nil, err
	}
	addr, err := r.indi.Address(ctx, observatory.INDIServer{Namespace: ns, Name: "lab-observatory",
		Drivers: []string{"indi_simulator_dome", "indi_simulator_weather"}})
	if err != nil {
		return nil, err
	}
	site, err := indi.Dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	defer site.Close()
	for i, step := range stormSteps(ctx, site, res, triggers) {
		if err := step(); err != nil {
			return nil, fmt.Errorf("storm step %d: %w", i, err)
		}
	}
	if err := endReservation(ctx, r, ns, name); err != nil {
		return nil, err
	}
	if err := run.Get(ctx, nil); err != nil {
		return nil, err
	}
	for k, t := range triggers {
		if _, err := res(k).Patch(ctx, t[0], types.MergePatchType, []byte(`{"spec":{"triggers":null}}`), metav1.PatchOptions{}); err != nil {
			return nil, err
		}
	}
	return run, nil
}

// stormSteps are the weather of a stormy night, each step waiting for what it caused.
func stormSteps(ctx context.Context, site *indi.Client, res func(obsv1.Kind) dynamic.ResourceInterface,
	triggers map[obsv1.Kind][2]string) []func() error {
	wind := func(kph float64) error {
		if _, err := site.SetNumber(ctx, "Weather Simulator", "WEATHER_CONTROL", map[string]float64{"Wind": kph}, 0); err != nil {
			return err
		}
		return site.Press(ctx, "Weather Simulator", "WEATHER_REFRESH", "REFRESH")
	}
	// done waits until the kind's i-th trigger has run to its end.
	done := func(k obsv1.Kind, i int) error {
		_, err := poll(ctx, func() (string, bool) {
			got, err := res(k).Get(ctx, triggers[k][0], metav1.GetOptions{})
			if err != nil {
				return "", false
			}
			recs, _, _ := unstructured.NestedSlice(got.Object, "status", "procedures")
			for _, rec := range recs {
				m, _ := rec.(map[string]any)
				if m["trigger"] == kube.TriggerRecord(i) && m["state"] == string(obsv1.RunDone) {
					return "", true
				}
			}
			return "", false
		})
		return err
	}
	return []func() error{
		func() error { return wind(40) },
		func() error { return done(obsv1.KindMount, 0) },
		func() error { return done(obsv1.KindDome, 0) },
		func() error { return wind(0) },
		func() error { return done(obsv1.KindDome, 1) },
		// A flap within the 5 s: the unpark waiting for it is let go, the park runs again.
		func() error { return wind(40) },
		func() error { time.Sleep(time.Second); return wind(0) },
		func() error { time.Sleep(15 * time.Second); return nil },
	}
}
