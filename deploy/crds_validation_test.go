// What the CRDs' schemas refuse and accept, checked against a real kube-apiserver: each invalid
// object is refused as invalid with a message that tells its author what to fix (the tables go
// by topic), and objects at the edge of a rule are accepted with the defaults the docs promise.
package deploy_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// An invalid case: an object (YAML; namespaced kinds land in testNamespace) that the API
// server must refuse with a message containing want. With update set, the object is created
// and must be accepted; the update it makes must be refused.
type invalid struct {
	name   string
	yaml   string
	update func(u *unstructured.Unstructured)
	want   string
}

func TestTheAPIServerRefusesInvalidObjects(t *testing.T) {
	for _, c := range invalidCases() {
		t.Run(c.name, func(t *testing.T) {
			ctx := timeout(t)
			obj := decode(t, c.yaml)
			r := resource(t, obj)
			var err error
			if c.update == nil {
				_, err = r.Create(ctx, obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			} else {
				created, cerr := r.Create(ctx, obj, metav1.CreateOptions{})
				if cerr != nil {
					t.Fatalf("creating the object to update: %v", cerr)
				}
				t.Cleanup(func() { _ = r.Delete(context.Background(), created.GetName(), metav1.DeleteOptions{}) })
				c.update(created)
				_, err = r.Update(ctx, created, metav1.UpdateOptions{DryRun: []string{metav1.DryRunAll}})
			}
			if err == nil {
				t.Fatalf("the API server accepted it; want a refusal saying %q", c.want)
			}
			if !apierrors.IsInvalid(err) {
				t.Fatalf("the API server refused it, but not as invalid: %v", err)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Fatalf("the refusal does not say %q:\n%v", c.want, err)
			}
		})
	}
}

// invalidCases are every table below, each one topic of the schema's rules.
func invalidCases() []invalid {
	return slices.Concat(
		invalidNamesAndParents(),
		invalidReservations(),
		invalidDrivers(),
		invalidActions(),
		invalidTriggers(),
		invalidSites(),
		invalidPersons(),
	)
}

// Names the INDI side cannot carry, and parents that are missing or not DNS names.
func invalidNamesAndParents() []invalid {
	long := strings.Repeat("x", 33)
	return []invalid{
		{
			name: "a Telescope name of 33 characters is refused",
			yaml: "kind: Telescope\nmetadata: {name: " + long + "}\nspec: {observatory: lab}",
			want: "a Telescope name must be at most 32 characters",
		},
		{
			name: "an Observatory name of 33 characters is refused",
			yaml: "kind: Observatory\nmetadata: {name: " + long + "}\nspec: {location: {latitude: 0, longitude: 0}}",
			want: "an Observatory name must be at most 32 characters",
		},
		{
			name: "a device name of 33 characters is refused too",
			yaml: "kind: Camera\nmetadata: {name: " + long + "}\nspec: {driver: {name: indi_simulator_ccd}}",
			want: "a Camera name must be at most 32 characters",
		},
		{
			name: "a Telescope without an observatory is refused",
			yaml: "kind: Telescope\nspec: {}",
			want: "spec.observatory: Required value",
		},
		{
			name: "a parent reference that is not a DNS name is refused",
			yaml: "kind: Mount\nspec: {telescope: East, driver: {name: indi_simulator_telescope}}",
			want: "spec.telescope in body should match",
		},
	}
}

// Reservations whose times, holder or telescope cannot stand.
func invalidReservations() []invalid {
	return []invalid{
		{
			name: "a Reservation that ends before it starts is refused",
			yaml: "kind: Reservation\nspec: {telescope: east, holder: ada, start: '2031-01-02T20:00:00Z', end: '2031-01-02T18:00:00Z'}",
			want: "spec.end must be after spec.start",
		},
		{
			name: "a Reservation's telescope cannot change",
			yaml: "kind: Reservation\nspec: {telescope: east, holder: ada}",
			update: func(u *unstructured.Unstructured) {
				_ = unstructured.SetNestedField(u.Object, "west", "spec", "telescope")
			},
			want: "spec.telescope cannot change; create another Reservation",
		},
		{
			name: "a Reservation without a holder is refused",
			yaml: "kind: Reservation\nspec: {telescope: east}",
			want: "spec.holder: Required value",
		},
		{
			name: "a Reservation holder of 254 characters is refused",
			yaml: "kind: Reservation\nspec: {telescope: east, holder: " + strings.Repeat("h", 254) + "}",
			want: "spec.holder: Too long",
		},
	}
}

// Drivers that no INDI server could start, and power outputs that do not exist.
func invalidDrivers() []invalid {
	return []invalid{
		{
			name: "a driver name without an image must be an INDI driver",
			yaml: "kind: Dome\nspec: {driver: {name: foo}}",
			want: "driver.name must match ^indi_[a-z0-9_]+$ when driver.image is not set",
		},
		{
			name: "a driver name with a space is refused even with an image",
			yaml: "kind: Dome\nspec: {driver: {name: indi dome, image: example.com/dome:1}}",
			want: "spec.driver.name in body should match '^[A-Za-z0-9_][A-Za-z0-9_.+-]*$'",
		},
		{
			name: "a power output of 0 is refused",
			yaml: "kind: Focuser\nspec: {driver: {name: indi_simulator_focus}, power: {switch: lab, output: 0}}",
			want: "spec.power.output in body should be greater than or equal to 1",
		},
	}
}

// Activation and deactivation actions: one verb each, a positive timeout, a state the kind has.
func invalidActions() []invalid {
	mount := func(activation string) string {
		return "kind: Mount\nspec:\n  driver: {name: indi_simulator_telescope}\n  activation:\n" + activation
	}
	return []invalid{
		{
			name: "an action with two verbs is refused",
			yaml: mount("    - {state: Parked, job: {image: busybox}}"),
			want: "an action names exactly one verb: state or job",
		},
		{
			name: "an action with no verb is refused",
			yaml: mount("    - {timeout: 5m}"),
			want: "an action names exactly one verb: state or job",
		},
		{
			name: "a Camera action with cool and warm is refused",
			yaml: "kind: Camera\nspec:\n  driver: {name: indi_simulator_ccd}\n  deactivation:\n    - {cool: {celsius: -10}, warm: {celsius: 5}}",
			want: "an action names exactly one verb: cool, warm, or job",
		},
		{
			name: "a Telescope action with a state verb is refused",
			yaml: "kind: Telescope\nspec:\n  observatory: lab\n  activation:\n    - {state: Parked}",
			want: "an action names exactly one verb: job",
		},
		{
			name: "a zero timeout is refused",
			yaml: mount("    - {state: Unparked, timeout: 0s}"),
			want: "timeout must be a positive Go duration",
		},
		{
			name: "a negative timeout is refused",
			yaml: mount("    - {state: Unparked, timeout: -5m}"),
			want: "timeout must be a positive Go duration",
		},
		{
			name: "a timeout that is not a duration is refused",
			yaml: mount("    - {state: Unparked, timeout: soon}"),
			want: "timeout must be a positive Go duration",
		},
		{
			name: "a Dome cannot be Open, only Parked or Unparked",
			yaml: "kind: Dome\nspec:\n  driver: {name: indi_simulator_dome}\n  activation:\n    - {state: Open}",
			want: `spec.activation[0].state: Unsupported value: "Open"`,
		},
		{
			name: "a FlatPanel cannot be On, only Lit or Dark",
			yaml: "kind: FlatPanel\nspec:\n  driver: {name: indi_simulator_lightpanel}\n  activation:\n    - {state: \"On\"}",
			want: `spec.activation[0].state: Unsupported value: "On"`,
		},
		{
			name: "a DustCap cannot be Parked, only Open or Closed",
			yaml: "kind: DustCap\nspec:\n  driver: {name: indi_simulator_dustcap}\n  deactivation:\n    - {state: Parked}",
			want: `spec.deactivation[0].state: Unsupported value: "Parked"`,
		},
	}
}

// Triggers: between 1 and 16 actions, and a kind with every name.
func invalidTriggers() []invalid {
	return []invalid{
		{
			name: "a trigger with 17 actions is refused",
			yaml: "kind: WeatherStation\nspec:\n  driver: {name: indi_simulator_weather}\n  triggers:\n    - when: {type: Safe, status: \"False\"}\n      run:\n" +
				strings.Repeat("        - job: {image: busybox}\n", 17),
			want: "spec.triggers[0].run: Too many: 17: must have at most 16 items",
		},
		{
			name: "a trigger with no actions is refused",
			yaml: "kind: WeatherStation\nspec:\n  driver: {name: indi_simulator_weather}\n  triggers:\n    - when: {type: Safe}\n      run: []",
			want: "spec.triggers[0].run: Invalid value: 0: spec.triggers[0].run in body should have at least 1 items",
		},
		{
			name: "a trigger on a named resource needs its kind",
			yaml: "kind: Dome\nspec:\n  driver: {name: indi_simulator_dome}\n  triggers:\n    - when: {name: lab, type: Safe, status: \"False\"}\n      run: [{state: Parked}]",
			want: "name needs a kind",
		},
	}
}

// Where a site is on Earth, and what its devices may belong to.
func invalidSites() []invalid {
	return []invalid{
		{
			name: "a latitude of 91 is refused",
			yaml: "kind: Observatory\nspec: {location: {latitude: 91, longitude: 0}}",
			want: "spec.location.latitude in body should be less than or equal to 90",
		},
		{
			name: "a longitude of -181 is refused",
			yaml: "kind: Observatory\nspec: {location: {latitude: 0, longitude: -181}}",
			want: "spec.location.longitude in body should be greater than or equal to -180",
		},
		{
			name: "an elevation of 10000 metres is refused",
			yaml: "kind: Observatory\nspec: {location: {latitude: 0, longitude: 0, elevation: 10000}}",
			want: "spec.location.elevation in body should be less than or equal to 9000",
		},
		{
			name: "an Observatory without a location is refused",
			yaml: "kind: Observatory\nspec: {}",
			want: "spec.location: Required value",
		},
		{
			name: "a sky quality meter on a telescope and an observatory at once is refused",
			yaml: "kind: SkyQualityMeter\nspec: {telescope: east, observatory: lab, driver: {name: indi_simulator_sqm}}",
			want: "set at most one of spec.telescope and spec.observatory",
		},
		{
			name: "a Guider pulses only through a Mount or a Camera",
			yaml: "kind: Guider\nspec: {telescope: east, opticalTrain: east-guide, pulses: Dome}",
			want: `spec.pulses: Unsupported value: "Dome"`,
		},
	}
}

// Persons: a display name, a uid outside the system range, an identity with a subject.
func invalidPersons() []invalid {
	return []invalid{
		{
			name: "a Person without a display name is refused",
			yaml: "kind: Person\napiVersion: people.liken.sh/v1alpha1\nspec: {nickname: Ada}",
			want: "spec.displayName: Required value",
		},
		{
			name: "a Person with an empty display name is refused",
			yaml: "kind: Person\napiVersion: people.liken.sh/v1alpha1\nspec: {displayName: \"\"}",
			want: "spec.displayName in body should be at least 1 chars long",
		},
		{
			name: "a Person with uid 999 is refused",
			yaml: "kind: Person\napiVersion: people.liken.sh/v1alpha1\nspec: {displayName: Ada Lovelace, uid: 999}",
			want: "spec.uid in body should be greater than or equal to 1000",
		},
		{
			name: "a Person identity without a subject is refused",
			yaml: "kind: Person\napiVersion: people.liken.sh/v1alpha1\nspec: {displayName: Ada Lovelace, identity: {issuer: 'https://id.example.com'}}",
			want: "spec.identity.subject: Required value",
		},
	}
}

// An accepted case is valid at an edge of a rule; check reads what the server stored.
func TestTheAPIServerAcceptsValidObjectsAtTheEdges(t *testing.T) {
	for _, c := range []struct {
		name  string
		yaml  string
		check func(t *testing.T, u *unstructured.Unstructured)
	}{
		{
			name: "a name of 32 characters is accepted",
			yaml: "kind: Telescope\nmetadata: {name: " + strings.Repeat("x", 32) + "}\nspec: {observatory: lab}",
		},
		{
			name: "a driver with an image may have any name",
			yaml: "kind: Receiver\nspec: {observatory: lab, driver: {name: rtl_sdr+indi.2, image: example.com/sdr:1}}",
		},
		{
			name: "a claim is kept as given",
			yaml: "kind: Camera\nspec:\n  driver: {name: indi_asi_ccd}\n  claim:\n    devices:\n      requests:\n        - name: camera\n          exactly: {deviceClassName: usb.example.com, allocationMode: ExactCount, count: 1}",
			check: func(t *testing.T, u *unstructured.Unstructured) {
				requests, _, _ := unstructured.NestedSlice(u.Object, "spec", "claim", "devices", "requests")
				if len(requests) != 1 {
					t.Fatalf("the claim lost its request: %v", u.Object["spec"])
				}
				class, _, _ := unstructured.NestedString(requests[0].(map[string]any), "exactly", "deviceClassName")
				if class != "usb.example.com" {
					t.Errorf("the claim's request lost its device class: %v", requests[0])
				}
			},
		},
		{
			name: "a cool action defaults within to half a degree and a trigger's status to True",
			yaml: "kind: Camera\nspec:\n  driver: {name: indi_simulator_ccd}\n  activation:\n    - cool: {celsius: -10}\n      timeout: 1h30m\n  triggers:\n    - when: {kind: WeatherStation, type: Safe, for: 2m}\n      run: [{warm: {celsius: 5}}]",
			check: func(t *testing.T, u *unstructured.Unstructured) {
				activation, _, _ := unstructured.NestedSlice(u.Object, "spec", "activation")
				if within, _, _ := unstructured.NestedFloat64(activation[0].(map[string]any), "cool", "within"); within != 0.5 {
					t.Errorf("cool.within = %v, want the default 0.5", within)
				}
				triggers, _, _ := unstructured.NestedSlice(u.Object, "spec", "triggers")
				if status, _, _ := unstructured.NestedString(triggers[0].(map[string]any), "when", "status"); status != "True" {
					t.Errorf("when.status = %q, want the default True", status)
				}
			},
		},
		{
			name: "a Guider pulses through the mount by default",
			yaml: "kind: Guider\nspec: {telescope: east, opticalTrain: east-guide}",
			check: func(t *testing.T, u *unstructured.Unstructured) {
				if pulses, _, _ := unstructured.NestedString(u.Object, "spec", "pulses"); pulses != "Mount" {
					t.Errorf("spec.pulses = %q, want the default Mount", pulses)
				}
			},
		},
		{
			name: "a device on the shelf needs no parent",
			yaml: "kind: Switch\nspec: {driver: {name: indi_simulator_switch}}",
		},
		{
			name: "a Reservation may give only a start",
			yaml: "kind: Reservation\nspec: {telescope: east, holder: ada, start: '2031-01-02T20:00:00Z'}",
		},
		{
			name: "a trigger may run 16 actions",
			yaml: "kind: Telescope\nspec:\n  observatory: lab\n  triggers:\n    - when: {kind: WeatherStation, name: lab, type: Safe, status: \"False\"}\n      run:\n" +
				strings.Repeat("        - job: {image: busybox, env: [{name: A, value: b}]}\n", 16),
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx := timeout(t)
			obj := decode(t, c.yaml)
			got, err := resource(t, obj).Create(ctx, obj, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			if err != nil {
				t.Fatalf("the API server refused it: %v", err)
			}
			if c.check != nil {
				c.check(t, got)
			}
		})
	}
}
