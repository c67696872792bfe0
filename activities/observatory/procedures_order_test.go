// Integration tests of the order in which Activation and Deactivation run their resources: the
// tiers (observatory, telescope, devices, in reverse on the way down), `after` between runs of
// one tier, and what a missing Telescope still lets run. The order is read from the order in
// which the API server created the Jobs.
package observatory

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/temporal"
	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/watch"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// jobOrder watches the namespace's Jobs and returns the resources whose Jobs were created, in
// the order the API server created them.
func jobOrder(t *testing.T, ns string) (stop func() []string) {
	t.Helper()
	// From the list's resourceVersion, so the Jobs already there do not count.
	list, err := env.Kube.BatchV1().Jobs(ns).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	w, err := env.Kube.BatchV1().Jobs(ns).Watch(context.Background(), metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	require.NoError(t, err)
	var (
		mu    sync.Mutex
		order []string
		seen  = map[string]bool{}
	)
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		for ev := range w.ResultChan() {
			j, ok := ev.Object.(*batchv1.Job)
			if !ok || ev.Type != watch.Added || seen[j.Name] {
				continue
			}
			mu.Lock()
			seen[j.Name] = true
			order = append(order, j.Labels[kube.LabelKind]+"/"+j.Labels[kube.LabelResource])
			mu.Unlock()
		}
	}()
	return func() []string {
		w.Stop()
		<-finished
		mu.Lock()
		defer mu.Unlock()
		return order
	}
}

func TestTiersRunInOrderAndTheObservatorysOnlyWhenTheReservationRunsTheSite(t *testing.T) {
	ns := observatoryNamespace(t, "proc-tiers")
	img := "example.com/step:1"
	createObject(t, obsv1.KindObservatory, ns, &obsv1.Observatory{
		ObjectMeta: metav1.ObjectMeta{Name: "lab"},
		Spec: obsv1.ObservatorySpec{Location: obsv1.Location{Latitude: 52, Longitude: 4}, Safety: byDay, Procedures: obsv1.Procedures{
			Activation: []obsv1.Action{jobAction(img)}, Deactivation: []obsv1.Action{jobAction(img)},
		}},
	})
	createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.TelescopeSpec{Observatory: "lab", Procedures: obsv1.Procedures{
			Activation: []obsv1.Action{jobAction(img)}, Deactivation: []obsv1.Action{jobAction(img)},
		}},
	})
	createObject(t, obsv1.KindDome, ns, &obsv1.Dome{
		ObjectMeta: metav1.ObjectMeta{Name: "lab"},
		Spec: obsv1.DomeSpec{ObservatoryParent: obsv1.ObservatoryParent{Observatory: "lab"},
			DeviceSpec:     obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_dome"}},
			ParkProcedures: obsv1.ParkProcedures{Activation: []obsv1.ParkAction{parkJob(img)}, Deactivation: []obsv1.ParkAction{parkJob(img)}}},
	})
	createObject(t, obsv1.KindMount, ns, &obsv1.Mount{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.MountSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"},
			DeviceSpec:     obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_telescope"}},
			ParkProcedures: obsv1.ParkProcedures{Activation: []obsv1.ParkAction{parkJob(img)}, Deactivation: []obsv1.ParkAction{parkJob(img)}}},
	})
	createObject(t, obsv1.KindOpticalTrain, ns, &obsv1.OpticalTrain{
		ObjectMeta: metav1.ObjectMeta{Name: "east-main"},
		Spec:       obsv1.OpticalTrainSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"}},
	})
	camJob := obsv1.CameraAction{ActionBase: obsv1.ActionBase{Job: &obsv1.Job{Image: img}}}
	createObject(t, obsv1.KindCamera, ns, &obsv1.Camera{
		ObjectMeta: metav1.ObjectMeta{Name: "east-main"},
		Spec: obsv1.CameraSpec{OpticalTrainParent: obsv1.OpticalTrainParent{OpticalTrain: "east-main"},
			DeviceSpec:       obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_ccd"}},
			CameraProcedures: obsv1.CameraProcedures{Activation: []obsv1.CameraAction{camJob}, Deactivation: []obsv1.CameraAction{camJob}}},
	})
	a := procActivities()
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()

	// Another telescope activated the site already: only the telescope's tiers run.
	stop := jobOrder(t, ns)
	res, err := a.Activation(ctx, procInput(ns, kube.StepActivation, false))
	require.NoError(t, err)
	assert.Equal(t, []string{"Telescope/east", "Mount/east", "Camera/east-main"}, stop())
	assert.Equal(t, "Activated Telescope east, Mount east, Camera east-main", res.Summary)

	// The last telescope there deactivates the site too, in reverse.
	stop = jobOrder(t, ns)
	in := procInput(ns, kube.StepDeactivation, true)
	in.Started = procStarted.Add(time.Hour)
	res, err = a.Deactivation(ctx, in)
	require.NoError(t, err)
	assert.Equal(t, []string{"Camera/east-main", "Mount/east", "Telescope/east", "Dome/lab", "Observatory/lab"}, stop())
	require.Len(t, res.Actions, 5)
	for _, r := range res.Actions {
		assert.Equal(t, obsv1.RunDone, r.State, "%s %s", r.Kind, r.Name)
	}

	requireEachTierDeactivatedOnce(t, ctx, ns)
}

// requireEachTierDeactivatedOnce checks what a site's deactivation wrote: the Telescope and
// the Observatory say they are Inactive, the Dome ran only its deactivation, and the Mount
// keeps its activation beside its deactivation.
func requireEachTierDeactivatedOnce(t *testing.T, ctx context.Context, ns string) {
	t.Helper()
	for _, kind := range []obsv1.Kind{obsv1.KindTelescope, obsv1.KindObservatory} {
		name := "east"
		if kind == obsv1.KindObservatory {
			name = "lab"
		}
		u, err := env.Dynamic.Resource(kind.GroupVersionResource()).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
		require.NoError(t, err)
		conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
		require.Len(t, conds, 1, "%s %s", kind, name)
		c := conds[0].(map[string]any)
		assert.Equal(t, "False", c["status"], "%s %s", kind, name)
		assert.Equal(t, kube.ReasonInactive, c["reason"])
		assert.Equal(t, "Deactivated by Reservation ada-east", c["message"])
	}
	var dome obsv1.Dome
	readObject(t, obsv1.KindDome, ns, "lab", &dome)
	require.Len(t, dome.Status.Procedures, 1, "the Dome ran only its deactivation")
	assert.Equal(t, kube.TriggerDeactivation, dome.Status.Procedures[0].Trigger)
	var mount obsv1.Mount
	readObject(t, obsv1.KindMount, ns, "east", &mount)
	require.Len(t, mount.Status.Procedures, 2, "the Mount keeps its activation and its deactivation")
}

func TestAnActionWaitsForTheRunsItComesAfterAndADanglingReferenceFailsIt(t *testing.T) {
	ns := observatoryNamespace(t, "proc-after")
	img := "example.com/step:1"
	createLab(t, ns)
	late := jobAction(img)
	late.After = []obsv1.After{{Kind: obsv1.KindMount, Name: "north"}}
	createObject(t, obsv1.KindTelescope, ns, &obsv1.Telescope{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.TelescopeSpec{Observatory: "lab", Procedures: obsv1.Procedures{
			Deactivation: []obsv1.Action{late},
		}},
	})
	// The Mount and the GPS run in one tier, at once: only `after` puts the Mount's Job after
	// both of the GPS's.
	afterGPS := parkJob(img)
	afterGPS.After = []obsv1.After{{Kind: obsv1.KindGPS}}
	createObject(t, obsv1.KindMount, ns, &obsv1.Mount{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.MountSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"},
			DeviceSpec:     obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_telescope"}},
			ParkProcedures: obsv1.ParkProcedures{Activation: []obsv1.ParkAction{afterGPS}}},
	})
	createObject(t, obsv1.KindGPS, ns, &obsv1.GPS{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.GPSSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"},
			DeviceSpec: obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_gps"}},
			Procedures: obsv1.Procedures{Activation: []obsv1.Action{jobAction(img), jobAction(img)}}},
	})
	a := procActivities()
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()

	stop := jobOrder(t, ns)
	_, err := a.Activation(ctx, procInput(ns, kube.StepActivation, false))
	require.NoError(t, err)
	assert.Equal(t, []string{"GPS/east", "GPS/east", "Mount/east"}, stop())

	in := procInput(ns, kube.StepDeactivation, false)
	in.Started = procStarted.Add(time.Hour)
	_, err = a.Deactivation(ctx, in)
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "%v", err)
	assert.Equal(t, ErrStepFailed, app.Type())
	assert.Equal(t, "Failed: after[0]: no Mount north", app.Message())
	assert.Empty(t, jobsOf(t, ns, obsv1.KindTelescope, "east"), "the action did not start")
}

func TestWithoutItsTelescopeActivationFailsAndDeactivationStillRunsTheDevices(t *testing.T) {
	ns := observatoryNamespace(t, "proc-no-telescope")
	createObject(t, obsv1.KindMount, ns, &obsv1.Mount{
		ObjectMeta: metav1.ObjectMeta{Name: "east"},
		Spec: obsv1.MountSpec{TelescopeParent: obsv1.TelescopeParent{Telescope: "east"},
			DeviceSpec:     obsv1.DeviceSpec{Driver: obsv1.Driver{Name: "indi_simulator_telescope"}},
			ParkProcedures: obsv1.ParkProcedures{Deactivation: []obsv1.ParkAction{parkJob("example.com/park:1")}}},
	})
	a := procActivities()
	ctx, cancel := context.WithTimeout(context.Background(), procWait)
	defer cancel()

	_, err := a.Activation(ctx, procInput(ns, kube.StepActivation, false))
	var app *temporal.ApplicationError
	require.True(t, errors.As(err, &app), "%v", err)
	assert.Equal(t, ErrStepFailed, app.Type())
	assert.Equal(t, "Failed: Telescope east is missing", app.Message())

	res, err := a.Deactivation(ctx, procInput(ns, kube.StepDeactivation, false))
	require.NoError(t, err)
	assert.Equal(t, "Deactivated Mount east", res.Summary)
	assert.Len(t, jobsOf(t, ns, obsv1.KindMount, "east"), 1)
}
