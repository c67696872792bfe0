// examples/observatory.yaml run as make run does: every column but emptyAtReady's is filled while
// tonight is Ready, refusals stand on the joiners at fault, and all is Idle once tonight is deleted.
package observatory

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	enumspb "go.temporal.io/api/enums/v1"
	historypb "go.temporal.io/api/history/v1"
	"go.temporal.io/sdk/client"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/yaml"

	"liken.sh/runner/contract"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
)

// emptyAtReady are the columns that have no value while the example's tonight is Ready,
// by CRD plural and column, with why. Every other column of every row must show something.
var emptyAtReady = map[string]map[string]string{
	"reservations": {"Step": "step is emptied once Ready", "Start": "tonight has no start", "End": "tonight has no end",
		"Night": "tonight is booked by the clock"},
	"telescopes": {"Guider": "the example has no Guider"},
	"people": {"UID": "the example Person sets no spec.uid",
		"Message": "AvatarReady's message is empty on success"},
}

// noObjects are the kinds the example has none of, so their columns show no row at all.
var noObjects = map[string]string{
	"gpses": "no GPS", "polaraligners": "no PolarAligner", "rotators": "no Rotator", "dustcaps": "no DustCap",
	"skyqualitymeters": "no SkyQualityMeter", "switches": "no Switch", "receivers": "no Receiver", "guiders": "no Guider",
}

// crdDoc is what the test reads of a CRD.
type crdDoc struct {
	Kind string `json:"kind"`
	Spec struct {
		Group string `json:"group"`
		Names struct {
			Plural string `json:"plural"`
		} `json:"names"`
		Scope    string `json:"scope"`
		Versions []struct {
			Name string `json:"name"`
		} `json:"versions"`
	} `json:"spec"`
}

// table is the API server's Table of a resource, as kubectl get -o wide prints it.
type table struct {
	ColumnDefinitions []struct {
		Name     string `json:"name"`
		Priority int    `json:"priority"`
	} `json:"columnDefinitions"`
	Rows []struct {
		Cells  []any `json:"cells"`
		Object struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		} `json:"object"`
	} `json:"rows"`
}

func getTable(t *testing.T, path string) table {
	t.Helper()
	hc, err := rest.HTTPClientFor(env.Config)
	require.NoError(t, err)
	req, err := http.NewRequest(http.MethodGet, env.Config.Host+path+"?includeObject=Metadata", nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io")
	resp, err := hc.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	require.Equal(t, http.StatusOK, resp.StatusCode, "%s", b)
	var tb table
	require.NoError(t, json.Unmarshal(b, &tb))
	return tb
}

// emptyColumns lists each empty cell of every CRD's Table in ns (people: cluster-wide, only
// person) that emptyAtReady does not allow, as "plural/name Column".
func emptyColumns(t *testing.T, ns, person string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(env.Root, "deploy", "crds", "*", "*.yaml"))
	require.NoError(t, err)
	var crds []crdDoc
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		var c crdDoc
		require.NoError(t, yaml.Unmarshal(b, &c))
		if c.Kind == "CustomResourceDefinition" {
			crds = append(crds, c)
		}
	}
	require.Len(t, crds, 21, "the 20 observatory CRDs and Person")
	var empty []string
	for _, c := range crds {
		plural := c.Spec.Names.Plural
		path := "/apis/" + c.Spec.Group + "/" + c.Spec.Versions[0].Name + "/namespaces/" + ns + "/" + plural
		if c.Spec.Scope == "Cluster" {
			path = "/apis/" + c.Spec.Group + "/" + c.Spec.Versions[0].Name + "/" + plural
		}
		tb := getTable(t, path)
		rows := 0
		for _, row := range tb.Rows {
			if c.Spec.Scope == "Cluster" && row.Object.Metadata.Name != person {
				continue
			}
			rows++
			for i, col := range tb.ColumnDefinitions {
				v := fmt.Sprint(row.Cells[i])
				if (row.Cells[i] == nil || v == "" || v == "<none>") && emptyAtReady[plural][col.Name] == "" {
					empty = append(empty, plural+"/"+row.Object.Metadata.Name+" "+col.Name)
				}
			}
		}
		if why := noObjects[plural]; why != "" {
			assert.Zero(t, rows, "%s: the example has %s", plural, why)
		} else {
			assert.NotZero(t, rows, "%s: the example has some", plural)
		}
	}
	return empty
}

// createPerson makes a Person from examples/people.yaml, under another name.
func createPerson(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(env.Root, "examples", "people.yaml"))
	require.NoError(t, err)
	var u unstructured.Unstructured
	require.NoError(t, yaml.Unmarshal(b, &u.Object))
	name := "ada-" + utilrand.String(5)
	u.SetName(name)
	_, err = env.Dynamic.Resource(peoplev1.PersonResource).Create(context.Background(), &u, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = env.Dynamic.Resource(peoplev1.PersonResource).Delete(context.Background(), name, metav1.DeleteOptions{})
	})
	return name
}

func reservation(t *testing.T, ns, name string) (obsv1.Reservation, bool) {
	t.Helper()
	var r obsv1.Reservation
	u, err := env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return r, false
	}
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &r))
	return r, true
}

// TestTheExampleSaysWhereItStandsWhileTonightIsReadyAndAfter runs examples/observatory.yaml
// as make run does: every column but emptyAtReady's is filled while tonight is Ready; the
// Telescope, the Observatory and the devices say where they stand; joiners that cannot run
// are refused on themselves; the inventory and the reservation write at once without undoing
// each other; and once tonight is deleted, everything is Idle again with nothing running.
func TestTheExampleSaysWhereItStandsWhileTonightIsReadyAndAfter(t *testing.T) {
	startSystem(t)
	ns := namespace(t, "night")
	c := temporal(t)
	endNightAtEnd(t, c, ns, "tonight")
	person := createPerson(t)
	env.ApplyObservatory(t, "examples/observatory.yaml", ns)
	eventually(t, 3*time.Minute, "tonight became Ready", func() (bool, string) {
		r, _ := reservation(t, ns, "tonight")
		return r.Status.Phase == obsv1.ReservationReady, fmt.Sprintf("%s %s", r.Status.Phase, r.Status.Step)
	})
	ready := time.Now()
	top := t // what a subtest creates lives until the end

	t.Run("every column but emptyAtReady's is filled", func(t *testing.T) {
		var last []string
		eventually(t, 30*time.Second, "no empty column", func() (bool, string) {
			last = emptyColumns(t, ns, person)
			return len(last) == 0, strings.Join(last, ", ")
		})
	})

	t.Run("the Telescope, the Observatory and the devices while Ready", func(t *testing.T) { telescopeAndObservatoryWhileReady(t, ns) })

	t.Run("joiners that cannot run are refused on themselves", func(t *testing.T) { joinersThatCannotRunAreRefused(t, top, ns) })

	t.Run("the inventory and the reservation write at once and neither undoes the other", func(t *testing.T) { inventoryAndReservationWriteAtOnce(t, c, ns, ready) })

	require.NoError(t, env.Dynamic.Resource(obsv1.KindReservation.GroupVersionResource()).Namespace(ns).
		Delete(context.Background(), "tonight", metav1.DeleteOptions{}))
	eventually(t, 3*time.Minute, "tonight was released and went", func() (bool, string) {
		r, ok := reservation(t, ns, "tonight")
		return !ok, fmt.Sprintf("%s %s", r.Status.Phase, r.Status.Step)
	})

	t.Run("after, everything is Idle and nothing runs", func(t *testing.T) { everythingIsIdleAfter(t, ns) })
}

// telescopeAndObservatoryWhileReady: the Mount is connected, the Telescope is Ready at its server
// for tonight and Active, and the Observatory is Ready with its server and its weather.
func telescopeAndObservatoryWhileReady(t *testing.T, ns string) {
	host := "east-telescope." + ns + ".svc"
	awaitWhere(t, ns, obsv1.KindMount, "east", "Connected", map[string]string{
		"Ready": "True/Connected: Connected as Telescope Simulator", "ParentFound": "True/Found: Telescope east of Observatory lab"})
	var tel obsv1.TelescopeStatus
	eventually(t, 30*time.Second, "Telescope east is Ready", func() (bool, string) {
		tel = obsv1.TelescopeStatus{}
		statusOf(t, ns, obsv1.KindTelescope, "east", &tel)
		// The inventory's pass after the mount connected may still be under way.
		return tel.Phase == obsv1.PhaseReady && tel.Server != nil && tel.Server.Node != "" &&
			slices.Contains(tel.Devices, obsv1.DeviceSummary{Kind: obsv1.KindMount, Name: "east", Phase: obsv1.DeviceConnected}), fmt.Sprintf("%+v", tel)
	})
	assert.Equal(t, &obsv1.Holding{Name: "tonight", Holder: "ada"}, tel.Reservation)
	assert.Equal(t, obsv1.Endpoint{Service: "east-telescope", Host: host, Port: 7624}, tel.Server.Endpoint)
	assert.Equal(t, "east-telescope", tel.Server.Pod)
	_, conds := where(t, ns, obsv1.KindTelescope, "east")
	assert.Equal(t, "True/Ready: Ready at "+host+":7624 for Reservation tonight (ada)", conds["Ready"])
	assert.Equal(t, "True/Active: Activated by Reservation tonight", conds["Active"], "the reservation's condition stands")
	var obs obsv1.ObservatoryStatus
	eventually(t, 30*time.Second, "Observatory lab is Ready", func() (bool, string) {
		obs = obsv1.ObservatoryStatus{}
		statusOf(t, ns, obsv1.KindObservatory, "lab", &obs)
		return obs.Phase == obsv1.PhaseReady && obs.Server != nil, fmt.Sprintf("%+v", obs)
	})
	assert.Equal(t, []string{"tonight"}, obs.Reservations)
	assert.Equal(t, "lab-observatory."+ns+".svc", obs.Server.Host)
	assert.NotEqual(t, "", obs.Weather)
	_, conds = where(t, ns, obsv1.KindObservatory, "lab")
	assert.Equal(t, "True/Active: Activated by Reservation tonight", conds["Active"])
}

// joinersThatCannotRunAreRefused adds a Focuser whose driver no image holds and one whose driver
// is taken: each is in Error with a Warning saying why, nothing runs for either, and the
// reservation goes on. What it creates lives until top ends.
func joinersThatCannotRunAreRefused(t *testing.T, top *testing.T, ns string) {
	create(top, ns, "kind: Focuser\nmetadata: {name: bad}\nspec: {opticalTrain: east-main, driver: {name: indi_nosuchdriver}}\n---\n"+
		"kind: Focuser\nmetadata: {name: second}\nspec: {opticalTrain: east-main, driver: {name: indi_simulator_focus}}")
	noImage := "Focuser/bad: no image of the runner holds the driver indi_nosuchdriver; set spec.driver.image to an image that has it on its PATH"
	held := "Focuser east-main and Focuser second both use the driver indi_simulator_focus, which the INDI server east-telescope can run only once"
	awaitWhere(t, ns, obsv1.KindFocuser, "bad", "Error", map[string]string{"Ready": "False/Error: " + noImage})
	awaitWhere(t, ns, obsv1.KindFocuser, "second", "Error", map[string]string{"Ready": "False/Error: " + held})
	awaitWarning(t, ns, obsv1.KindFocuser, "bad", "Error", noImage)
	awaitWarning(t, ns, obsv1.KindFocuser, "second", "Error", held)
	for _, p := range managed(t, ns) {
		assert.NotContains(t, []string{"bad-focuser", "second-focuser"}, p.Name, "nothing runs for a refused joiner")
	}
	r, _ := reservation(t, ns, "tonight")
	assert.Equal(t, obsv1.ReservationReady, r.Status.Phase, "the reservation goes on")
	awaitWhere(t, ns, obsv1.KindFocuser, "east-main", "Connected", nil)
}

// inventoryAndReservationWriteAtOnce has the inventory take passes while tonight is Ready: the
// Mount's observed status and the Telescope's conditions stand, none undone by a pass.
func inventoryAndReservationWriteAtOnce(t *testing.T, c client.Client, ns string, ready time.Time) {
	passesBefore := passes(t, c, contract.InventoryID(ns))
	for i := range 20 {
		require.NoError(t, c.SignalWorkflow(context.Background(), contract.InventoryID(ns), "", contract.InventoryChanged,
			[]contract.InventoryChange{{Object: "test/" + fmt.Sprint(i), Why: "resync"}}))
		time.Sleep(200 * time.Millisecond)
	}
	eventually(t, 30*time.Second, "the inventory took passes meanwhile", func() (bool, string) {
		n := passes(t, c, contract.InventoryID(ns)) - passesBefore
		return n >= 3, fmt.Sprintf("%d passes", n)
	})
	var mount obsv1.DeviceStatus
	statusOf(t, ns, obsv1.KindMount, "east", &mount)
	assert.Equal(t, obsv1.DeviceConnected, mount.Phase)
	assert.NotEmpty(t, mount.Readings, "the observer's readings stand")
	assert.NotEmpty(t, mount.Properties)
	assert.Equal(t, "east-mount", mount.Pod)
	for _, e := range events(t, ns, obsv1.KindMount, "east") {
		assert.NotContains(t, e, " Idle: ", "the Mount was never Idle again while Ready: %s", e)
	}
	_, conds := where(t, ns, obsv1.KindTelescope, "east")
	assert.True(t, strings.HasPrefix(conds["Active"], "True/"), "Active stands: %s", conds["Active"])
	assert.True(t, strings.HasPrefix(conds["Ready"], "True/"), "Ready stands: %s", conds["Ready"])
	assert.WithinDuration(t, ready, time.Now(), 10*time.Minute)
}

// everythingIsIdleAfter: once tonight is gone, the Telescope, the Observatory and the devices
// are Idle with no server, no station reports, the refused Focuser stays in Error, and no pod is left.
func everythingIsIdleAfter(t *testing.T, ns string) {
	awaitWhere(t, ns, obsv1.KindTelescope, "east", "Idle", map[string]string{"Ready": "False/Idle: Not reserved",
		"Active": "False/Inactive: Deactivated by Reservation tonight"})
	var tel obsv1.TelescopeStatus
	statusOf(t, ns, obsv1.KindTelescope, "east", &tel)
	assert.Nil(t, tel.Server)
	assert.Nil(t, tel.Reservation)
	awaitWhere(t, ns, obsv1.KindObservatory, "lab", "Idle", nil)
	var obs obsv1.ObservatoryStatus
	statusOf(t, ns, obsv1.KindObservatory, "lab", &obs)
	assert.Nil(t, obs.Server)
	assert.Nil(t, obs.Reservations)
	assert.Equal(t, "Unknown", obs.Weather, "no station reports once the site stopped")
	for _, d := range []struct {
		kind obsv1.Kind
		name string
	}{{obsv1.KindMount, "east"}, {obsv1.KindCamera, "east-main"}, {obsv1.KindDome, "lab"}, {obsv1.KindWeatherStation, "lab"}} {
		awaitWhere(t, ns, d.kind, d.name, "Idle", map[string]string{"Ready": "False/Idle: Not reserved"})
	}
	awaitWhere(t, ns, obsv1.KindFocuser, "bad", "Error", nil)
	assert.Empty(t, managed(t, ns), "no pod is left")
}

// passes counts the inventory passes a workflow's current run completed.
func passes(t *testing.T, c client.Client, id string) int {
	return countEvents(t, c, id, func(ev *historypb.HistoryEvent) bool { return ev.GetActivityTaskCompletedEventAttributes() != nil })
}

// countEvents counts the events of a workflow's history that count says count.
func countEvents(t *testing.T, c client.Client, id string, count func(*historypb.HistoryEvent) bool) int {
	t.Helper()
	n := 0
	iter := c.GetWorkflowHistory(context.Background(), id, "", false, enumspb.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	for iter.HasNext() {
		ev, err := iter.Next()
		require.NoError(t, err)
		if count(ev) {
			n++
		}
	}
	return n
}
