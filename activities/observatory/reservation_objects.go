// The Kubernetes half of the reservation steps: which devices an INDI server runs (the pods,
// Services and claims that run them are brought up in reservation_bringup.go). A Telescope's server (<tel>-telescope)
// runs the devices parented to the telescope or to one of its optical trains; an
// Observatory's server (<obs>-observatory) runs the devices parented to the observatory.
// Every object comes from the pure builders in kube, so its name, labels, ports and owner
// are the existing operator's. Creating is create-or-adopt: an object that is there and
// ours (managed by us, controlled by the same resource, built from the same spec) is kept;
// one left by an older resource of the same name, or built from an older spec, is replaced;
// one we did not make fails the step, since deleting a user's object would be worse
// (the root's create_or_adopt.go, named here in shared.go); stopping is reservation_stop.go.
package observatory

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"go.temporal.io/sdk/temporal"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// stepScheme turns the dynamic client's objects into the observatory's Go types.
var stepScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(obsv1.AddToScheme(s))
	return s
}()

// stepPollEvery is how often a step looks again at what it waits for (pods Ready, pods gone).
const stepPollEvery = 250 * time.Millisecond

// stepDevice is one device a server runs: its builder input and its typed object.
type stepDevice struct {
	kube.DeviceRef
	Object runtime.Object
	// Pod is the device's pod and Service name (<name>-<kind>); empty when the name is
	// invalid (stepServer.refusals says why).
	Pod string
}

// Label names the device the way summaries do: "Mount east".
func (d stepDevice) Label() string { return string(d.Kind) + " " + d.Name }

// stepServer is one INDI server and what it runs.
type stepServer struct {
	Owner kube.ResourceID // the Telescope or Observatory, with its UID
	Name  string          // <tel>-telescope or <obs>-observatory
	// Devices in connect order (Switches first).
	Devices []stepDevice
	// Guider is the telescope's Guider, or nil.
	Guider *obsv1.Guider
	// Trains are the telescope's optical trains by name.
	Trains map[string]*obsv1.OpticalTrain
	// Invalid is why the server's own name gives no pod name: every step fails with it.
	Invalid error
}

// stepFailed is a failure a user must fix: non-retryable, "Failed: ...".
func stepFailed(format string, args ...any) error {
	msg := "Failed: " + fmt.Sprintf(format, args...)
	return temporal.NewNonRetryableApplicationError(msg, ErrStepFailed, nil)
}

// listTyped lists every object of a kind in a namespace, as its Go type.
func (a *Activities) listTyped(ctx context.Context, kind obsv1.Kind, ns string) ([]runtime.Object, error) {
	list, err := a.resource(kind, ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list the %s objects in %s: %w", kind, ns, err)
	}
	return typedObjects(kind, ns, list.Items)
}

// listWhere lists the objects of a kind in a namespace that match any of the field selectors
// (field, value), each once, sorted by name. Like every LIST without a resourceVersion each
// is a consistent read; the selectors keep one reservation's read from growing with the
// other telescopes of its namespace. A kind the namespace holds none of is not LISTed.
func (a *Activities) listWhere(ctx context.Context, kind obsv1.Kind, ns string, sels [][2]string) ([]unstructured.Unstructured, error) {
	var out []unstructured.Unstructured
	if a.Empty != nil && a.Empty.Empty(kind, ns) {
		return out, nil
	}
	seen := map[string]bool{}
	for _, sel := range sels {
		list, err := a.resource(kind, ns).List(ctx, metav1.ListOptions{
			FieldSelector: fields.OneTermEqualSelector(sel[0], sel[1]).String()})
		if err != nil {
			return nil, fmt.Errorf("list the %s resources in %s with %s=%s: %w", kind, ns, sel[0], sel[1], err)
		}
		for _, u := range list.Items {
			if !seen[u.GetName()] {
				seen[u.GetName()] = true
				out = append(out, u)
			}
		}
	}
	slices.SortFunc(out, func(x, y unstructured.Unstructured) int { return strings.Compare(x.GetName(), y.GetName()) })
	return out, nil
}

// listTypedWhere is listWhere, as the kind's Go type.
func (a *Activities) listTypedWhere(ctx context.Context, kind obsv1.Kind, ns string, sels [][2]string) ([]runtime.Object, error) {
	items, err := a.listWhere(ctx, kind, ns, sels)
	if err != nil {
		return nil, err
	}
	return typedObjects(kind, ns, items)
}

// listQuery is one kind's LIST in a server's read: the kind and its field selectors.
type listQuery struct {
	kind obsv1.Kind
	sels [][2]string
}

// listAll runs the queries at once and returns their objects in the queries' order.
func (a *Activities) listAll(ctx context.Context, ns string, qs []listQuery) ([][]runtime.Object, error) {
	out := make([][]runtime.Object, len(qs))
	err := atOnce(len(qs), 0, func(i int) (err error) {
		out[i], err = a.listTypedWhere(ctx, qs[i].kind, ns, qs[i].sels)
		return err
	})
	return out, err
}

// typedObjects turns the dynamic client's objects into the kind's Go type, sorted by name.
func typedObjects(kind obsv1.Kind, ns string, items []unstructured.Unstructured) ([]runtime.Object, error) {
	out := make([]runtime.Object, 0, len(items))
	for _, u := range items {
		obj, err := stepScheme.New(kind.GroupVersionKind())
		if err != nil {
			return nil, err
		}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, obj); err != nil {
			return nil, fmt.Errorf("the %s %s/%s does not fit its Go type: %w", kind, ns, u.GetName(), err)
		}
		out = append(out, obj)
	}
	sortByName(out)
	return out, nil
}

func sortByName(objs []runtime.Object) {
	slices.SortFunc(objs, func(x, y runtime.Object) int {
		return strings.Compare(x.(metav1.Object).GetName(), y.(metav1.Object).GetName())
	})
}

// Field selectors naming a device's parent: every device kind's CRD has those its parents
// are named by (kube/observatory/v1alpha1's selectablefield markers).
const (
	fieldTelescope    = "spec.telescope"
	fieldOpticalTrain = "spec.opticalTrain"
	fieldObservatory  = "spec.observatory"
)

// parentFields are the fields that name a device kind's parents, as kube.DeviceRefOf reads
// them.
func parentFields(k obsv1.Kind) []string {
	switch k {
	case obsv1.KindCamera, obsv1.KindFilterWheel, obsv1.KindFocuser, obsv1.KindRotator,
		obsv1.KindDustCap, obsv1.KindFlatPanel:
		return []string{fieldOpticalTrain}
	case obsv1.KindMount, obsv1.KindGPS, obsv1.KindPolarAligner:
		return []string{fieldTelescope}
	case obsv1.KindDome, obsv1.KindWeatherStation:
		return []string{fieldObservatory}
	case obsv1.KindSkyQualityMeter, obsv1.KindSwitch, obsv1.KindReceiver:
		return []string{fieldTelescope, fieldObservatory}
	}
	return nil
}

// parentSelectors are the field selectors (field, value) whose LISTs of a device kind hold
// every device a server runs: an observatory's by spec.observatory; a telescope's by
// spec.telescope, or, for the kinds that sit on an optical train, by spec.opticalTrain, once
// for each of the telescope's trains (none when it has none).
func parentSelectors(server, device obsv1.Kind, name string, trains []string) [][2]string {
	if server == obsv1.KindObservatory {
		return [][2]string{{fieldObservatory, name}}
	}
	return deviceSelectors(device, "", name, trains)
}

// deviceSelectors are the field selectors whose LISTs of a device kind hold every device of
// the observatory (when not ""), of the telescope (when not "") and of each of the trains.
func deviceSelectors(device obsv1.Kind, observatory, telescope string, trains []string) [][2]string {
	out := [][2]string{}
	for _, f := range parentFields(device) {
		switch {
		case f == fieldObservatory && observatory != "":
			out = append(out, [2]string{f, observatory})
		case f == fieldTelescope && telescope != "":
			out = append(out, [2]string{f, telescope})
		case f == fieldOpticalTrain:
			for _, t := range slices.Sorted(slices.Values(trains)) {
				out = append(out, [2]string{f, t})
			}
		}
	}
	return out
}

// readServer reads what the server of a Telescope or Observatory runs. Devices being deleted
// are left out: their delete waits for no reservation that has not started them.
func (a *Activities) readServer(ctx context.Context, ns string, kind obsv1.Kind, name string) (stepServer, error) {
	u, err := a.resource(kind, ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return stepServer{}, stepFailed("%s %s is missing", kind, name)
	}
	if err != nil {
		return stepServer{}, fmt.Errorf("read the %s %s/%s: %w", kind, ns, name, err)
	}
	s := stepServer{
		Owner:  kube.ResourceID{Kind: kind, Namespace: ns, Name: name, UID: u.GetUID()},
		Trains: map[string]*obsv1.OpticalTrain{},
	}
	if s.Name, err = kube.ValidObjectName(kind, name); err != nil {
		s.Invalid = err
	}
	kinds := kube.ObservatoryDeviceKinds
	if kind == obsv1.KindTelescope {
		kinds = kube.TelescopeDeviceKinds
		sel := [][2]string{{fieldTelescope, name}}
		found, err := a.listAll(ctx, ns, []listQuery{{obsv1.KindOpticalTrain, sel}, {obsv1.KindGuider, sel}})
		if err != nil {
			return s, err
		}
		for _, o := range found[0] {
			if t := o.(*obsv1.OpticalTrain); t.Spec.Telescope == name {
				s.Trains[t.Name] = t
			}
		}
		for _, o := range found[1] {
			if g := o.(*obsv1.Guider); g.Spec.Telescope == name && g.DeletionTimestamp == nil {
				s.Guider = g
				break
			}
		}
	}
	trains := slices.Collect(maps.Keys(s.Trains))
	queries := make([]listQuery, len(kinds))
	for i, k := range kinds {
		queries[i] = listQuery{k, parentSelectors(kind, k, name, trains)}
	}
	found, err := a.listAll(ctx, ns, queries)
	if err != nil {
		return s, err
	}
	for _, objs := range found {
		for _, o := range objs {
			d, err := kube.DeviceRefOf(o)
			if err != nil {
				return s, err
			}
			mine := false
			switch kind {
			case obsv1.KindTelescope:
				mine = d.Telescope == name || (d.OpticalTrain != "" && s.Trains[d.OpticalTrain] != nil)
			case obsv1.KindObservatory:
				mine = d.Observatory == name
			}
			if !mine || o.(metav1.Object).GetDeletionTimestamp() != nil {
				continue
			}
			sd := stepDevice{DeviceRef: d, Object: o}
			if sd.Pod, err = kube.ValidObjectName(d.Kind, d.Name); err != nil {
				sd.Pod = "" // refused: see stepServer.refusals
			}
			s.Devices = append(s.Devices, sd)
		}
	}
	return s, nil
}

// services are the Service names of every device of the server: its drivers annotation.
func (s stepServer) services() []string {
	var out []string
	for _, d := range s.Devices {
		out = append(out, d.Pod)
	}
	return out
}

// drivers are the driver names of the given devices, for the INDI resolver.
func driverNames(devices []stepDevice) []string {
	var out []string
	for _, d := range devices {
		out = append(out, d.Spec.Driver.Name)
	}
	return out
}

// labels names devices for a summary: "Mount east, Camera east-main".
func deviceLabels(devices []stepDevice) string {
	names := make([]string, len(devices))
	for i, d := range devices {
		names[i] = d.Label()
	}
	return strings.Join(names, ", ")
}

// telescopeLabels names a telescope's devices, Switches aside, in connect order, as the
// Temporal UI's summaries of the steps on them do.
func telescopeLabels(s stepServer) []string {
	var out []string
	for _, d := range s.Devices {
		if !isSwitch(d) {
			out = append(out, d.Label())
		}
	}
	return out
}

// only keeps the devices for which keep holds.
func only(devices []stepDevice, keep func(stepDevice) bool) []stepDevice {
	var out []stepDevice
	for _, d := range devices {
		if keep(d) {
			out = append(out, d)
		}
	}
	return out
}

func isSwitch(d stepDevice) bool { return d.Kind == obsv1.KindSwitch }
