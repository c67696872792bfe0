// The inventory: the status of every observatory resource of a namespace, composed from what
// the namespace holds, so that each one says where it stands from the moment it exists and
// outside reservations too. One pass reads the namespace (Namespace), indexes it once
// (NewInventory), and composes each resource's status from its own current status with the
// inventory's fields put in: the rest of the status is kept exactly as it is, since the
// reservation's workflows write it. Every time is the caller's, in whole seconds, and a
// condition's transition time moves only when its status changes, so a pass that finds
// nothing new composes the status the object holds and writes nothing.
//
// Who writes which status field (the two never write the same field at the same time):
//
//	kind         the inventory (this file and inventory_*.go)         a reservation (steps, observer)
//	device       observedGeneration; ParentFound; and, while no        phase, Ready while it runs them;
//	             reservation runs it (no deactivate finalizer):        Error + Ready for a refusal a step
//	             phase, Ready                                          meets (the same RefusedDeviceStatus);
//	                                                                   pod, node, driver, image, indiDevice,
//	                                                                   properties, display, readings, state
//	                                                                   conditions, procedures
//	Telescope    observedGeneration, phase, Ready, ParentFound,        Active, procedures
//	             server, reservation, tubes, trains, devices, guider,
//	             display
//	Observatory  observedGeneration, phase, server, telescopes,        Active, LocksRelayed, weather,
//	             devices, reservations, sky, display, the sky's        procedures
//	             conditions; weather only while it has none
//	             ("Unknown")
//	Guider       observedGeneration; ParentFound; and, while no        phase, Ready, endpoint, pod, node
//	             pod runs it (status.pod empty): phase, Ready          while it runs; state, calibrated,
//	                                                                   pixelScale, rms, star,
//	                                                                   lastStepTime, alert
//	OpticalTube, observedGeneration, ParentFound                       -
//	OpticalTrain
//	Reservation  -                                                     all of it
//
// Which side writes a device's or a Guider's phase and Ready is decided by the object itself
// (its finalizer, its status.pod), and the inventory's write carries the resourceVersion it
// read, so it lands only while that object still says it is the inventory's.
package kube

import (
	"slices"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// TelescopeDeviceKinds are the kinds a telescope's server runs, Switches first (PowerOn
// starts them), then in Connect's order.
var TelescopeDeviceKinds = []obsv1.Kind{
	obsv1.KindSwitch,
	obsv1.KindMount, obsv1.KindGPS, obsv1.KindPolarAligner,
	obsv1.KindFocuser, obsv1.KindFilterWheel, obsv1.KindRotator, obsv1.KindDustCap, obsv1.KindFlatPanel,
	obsv1.KindSkyQualityMeter, obsv1.KindReceiver, obsv1.KindCamera,
}

// ObservatoryDeviceKinds are the kinds an observatory's server runs, in connect order.
var ObservatoryDeviceKinds = []obsv1.Kind{
	obsv1.KindSwitch, obsv1.KindDome, obsv1.KindWeatherStation, obsv1.KindSkyQualityMeter, obsv1.KindReceiver,
}

// Namespace is what one pass reads of a namespace: its observatory resources and the pods the
// runner made there.
type Namespace struct {
	Name          string
	Observatories []obsv1.Observatory
	Telescopes    []obsv1.Telescope
	Tubes         []obsv1.OpticalTube
	Trains        []obsv1.OpticalTrain
	Guiders       []obsv1.Guider
	Devices       []Device
	Reservations  []obsv1.Reservation
	Pods          []corev1.Pod
}

// Device is a device of any of the 14 kinds as the inventory reads it.
type Device struct {
	DeviceRef
	Generation int64
	Finalizers []string
	Deleting   bool
	Status     obsv1.DeviceStatus
}

// Empty says whether the namespace holds no observatory resource.
func (n *Namespace) Empty() bool {
	return len(n.Observatories)+len(n.Telescopes)+len(n.Tubes)+len(n.Trains)+len(n.Guiders)+
		len(n.Devices)+len(n.Reservations) == 0
}

// Inventory is a namespace indexed for composing statuses.
type Inventory struct {
	ns            string
	observatories map[string]*obsv1.Observatory
	telescopes    map[string]*obsv1.Telescope
	trains        map[string]*obsv1.OpticalTrain
	tubes         map[string]*obsv1.OpticalTube
	pods          map[string]*corev1.Pod
	// holders are the reservations that hold each telescope.
	holders map[string]*obsv1.Reservation
	// devices are in connect order, per kind as TelescopeDeviceKinds and then by name.
	devices []*Device
	// guiders, tubeList, trainList and telescopeList are sorted by name.
	guiders       []*obsv1.Guider
	tubeList      []*obsv1.OpticalTube
	trainList     []*obsv1.OpticalTrain
	telescopeList []*obsv1.Telescope
	// refusals are why each device cannot run, by Kind/name.
	refusals map[string]string
}

// NewInventory indexes n. The objects are the inventory's to read, not to change.
func NewInventory(n *Namespace) *Inventory {
	inv := &Inventory{
		ns:            n.Name,
		observatories: map[string]*obsv1.Observatory{},
		telescopes:    map[string]*obsv1.Telescope{},
		trains:        map[string]*obsv1.OpticalTrain{},
		tubes:         map[string]*obsv1.OpticalTube{},
		pods:          map[string]*corev1.Pod{},
		holders:       map[string]*obsv1.Reservation{},
		refusals:      map[string]string{},
	}
	for i := range n.Observatories {
		inv.observatories[n.Observatories[i].Name] = &n.Observatories[i]
	}
	for i := range n.Telescopes {
		inv.telescopes[n.Telescopes[i].Name] = &n.Telescopes[i]
		inv.telescopeList = append(inv.telescopeList, &n.Telescopes[i])
	}
	for i := range n.Trains {
		inv.trains[n.Trains[i].Name] = &n.Trains[i]
		inv.trainList = append(inv.trainList, &n.Trains[i])
	}
	for i := range n.Tubes {
		inv.tubes[n.Tubes[i].Name] = &n.Tubes[i]
		inv.tubeList = append(inv.tubeList, &n.Tubes[i])
	}
	for i := range n.Guiders {
		inv.guiders = append(inv.guiders, &n.Guiders[i])
	}
	for i := range n.Pods {
		inv.pods[PodKey(&n.Pods[i])] = &n.Pods[i]
	}
	for i := range n.Reservations {
		r := &n.Reservations[i]
		if TookTelescope(&r.Status) && r.Status.Phase != obsv1.ReservationReleased {
			if h := inv.holders[r.Spec.Telescope]; h == nil || r.Name < h.Name {
				inv.holders[r.Spec.Telescope] = r
			}
		}
	}
	for i := range n.Devices {
		inv.devices = append(inv.devices, &n.Devices[i])
	}
	sortConnectOrder(inv.devices)
	sortByName(inv.guiders)
	sortByName(inv.tubeList)
	sortByName(inv.trainList)
	sortByName(inv.telescopeList)
	inv.findRefusals()
	return inv
}

// sortConnectOrder sorts devices as a telescope's server connects them (TelescopeDeviceKinds,
// the site's kinds after), then by name.
func sortConnectOrder(devices []*Device) {
	rank := map[obsv1.Kind]int{}
	for _, k := range append(slices.Clone(TelescopeDeviceKinds), ObservatoryDeviceKinds...) {
		if _, ok := rank[k]; !ok {
			rank[k] = len(rank)
		}
	}
	sort.SliceStable(devices, func(i, j int) bool {
		a, b := devices[i], devices[j]
		if rank[a.Kind] != rank[b.Kind] {
			return rank[a.Kind] < rank[b.Kind]
		}
		return a.Name < b.Name
	})
}

func sortByName[T interface{ GetName() string }](list []T) {
	slices.SortFunc(list, func(a, b T) int { return strings.Compare(a.GetName(), b.GetName()) })
}

// findRefusals finds why each device cannot run on the server that would run it, as the
// steps would: in the server's connect order, the devices a running server links holding
// their drivers first.
func (inv *Inventory) findRefusals() {
	servers := map[string][]DeviceRef{}
	var order []string
	for _, d := range inv.devices {
		server := inv.serverOf(d)
		if server == "" || d.Deleting {
			continue
		}
		if _, ok := servers[server]; !ok {
			order = append(order, server)
		}
		servers[server] = append(servers[server], d.DeviceRef)
	}
	for _, s := range inv.observatories {
		// inv.devices is in a telescope's order; an observatory's server has its own.
		devices := servers[ServerName(obsv1.KindObservatory, s.Name)]
		sort.SliceStable(devices, func(i, j int) bool {
			return slices.Index(ObservatoryDeviceKinds, devices[i].Kind) < slices.Index(ObservatoryDeviceKinds, devices[j].Kind)
		})
	}
	for _, server := range order {
		var linked []string
		if p := inv.pods[server]; p != nil {
			linked = LinkedServices(p.Annotations[AnnotationDrivers])
		}
		for _, r := range ServerRefusals(server, servers[server], linked) {
			inv.refusals[string(r.Device.Kind)+"/"+r.Device.Name] = r.Message
		}
	}
	// A device on the shelf, or whose parent is missing, runs on no server; what its name or
	// driver would refuse is still worth saying.
	for _, d := range inv.devices {
		id := d.DeviceRef.ResourceID.String()
		if _, ok := inv.refusals[id]; !ok && inv.serverOf(d) == "" {
			if msg := BuildRefusal(d.DeviceRef); msg != "" {
				inv.refusals[id] = msg
			}
		}
	}
}

// serverOf names the INDI server that would run the device: its telescope's (directly or
// through its optical train) or its observatory's; "" on the shelf or with a parent missing.
func (inv *Inventory) serverOf(d *Device) string {
	switch {
	case d.Telescope != "":
		if inv.telescopes[d.Telescope] != nil {
			return ServerName(obsv1.KindTelescope, d.Telescope)
		}
	case d.OpticalTrain != "":
		if tr := inv.trains[d.OpticalTrain]; tr != nil && inv.telescopes[tr.Spec.Telescope] != nil {
			return ServerName(obsv1.KindTelescope, tr.Spec.Telescope)
		}
	case d.Observatory != "":
		if inv.observatories[d.Observatory] != nil {
			return ServerName(obsv1.KindObservatory, d.Observatory)
		}
	}
	return ""
}

// telescopeOf names the telescope a device belongs to, directly or through its train.
func (inv *Inventory) telescopeOf(d *Device) string {
	if d.Telescope != "" {
		return d.Telescope
	}
	if tr := inv.trains[d.OpticalTrain]; d.OpticalTrain != "" && tr != nil {
		return tr.Spec.Telescope
	}
	return ""
}

// server is an INDI server as a status shows it, while its pod exists.
func (inv *Inventory) server(name string) *obsv1.Server {
	p := inv.pods[name]
	if p == nil || p.DeletionTimestamp != nil {
		return nil
	}
	return &obsv1.Server{
		Endpoint: obsv1.Endpoint{Service: name, Host: ServerHost(name, inv.ns), Port: ServerPort},
		Pod:      name, Node: p.Spec.NodeName,
	}
}

// siteHolders are the reservations holding a telescope of the observatory, by name.
func (inv *Inventory) siteHolders(observatory string) []*obsv1.Reservation {
	var out []*obsv1.Reservation
	for name, h := range inv.holders {
		if t := inv.telescopes[name]; t != nil && t.Spec.Observatory == observatory {
			out = append(out, h)
		}
	}
	slices.SortFunc(out, func(a, b *obsv1.Reservation) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// link is one step from a resource to its parent.
type link struct {
	kind obsv1.Kind
	name string
}

// ParentFound is the ParentFound condition of a resource whose parents are links (in the
// order listed here; empty names are not set): True/NoParent with none,
// False/NotFound naming the first resource missing on the way up to the Observatory, else
// True/Found naming the way up. shelf says whether the way ends on the shelf (an optical
// train with no telescope), where nothing runs.
func (inv *Inventory) parentFound(links ...link) (cond obsv1.Condition, shelf bool) {
	var found []string
	set := false
	for _, l := range links {
		if l.name == "" {
			continue
		}
		set = true
		way, missing, onShelf := inv.walk(l, nil)
		if missing != "" {
			return parentCondition(false, ReasonNotFound, missing), false
		}
		shelf = shelf || onShelf
		found = append(found, strings.Join(way, " of "))
	}
	if !set {
		return parentCondition(true, ReasonNoParent, MessageOnTheShelf), true
	}
	msg := strings.Join(found, "; ")
	if shelf {
		msg += " (on the shelf)"
	}
	return parentCondition(true, ReasonFound, msg), shelf
}

// walk follows l up to the Observatory: the resources on the way, or the first one missing
// ("Missing Telescope east, named by OpticalTrain east-main").
func (inv *Inventory) walk(l link, way []string) (_ []string, missing string, shelf bool) {
	label := string(l.kind) + " " + l.name
	missing = "Missing " + label
	if len(way) > 0 {
		missing += ", named by " + way[len(way)-1]
	}
	miss := func() ([]string, string, bool) { return way, missing, false }
	way = append(way, label)
	switch l.kind {
	case obsv1.KindObservatory:
		if inv.observatories[l.name] == nil {
			return miss()
		}
		return way, "", false
	case obsv1.KindTelescope:
		t := inv.telescopes[l.name]
		if t == nil {
			return miss()
		}
		return inv.walk(link{obsv1.KindObservatory, t.Spec.Observatory}, way)
	case obsv1.KindOpticalTrain:
		tr := inv.trains[l.name]
		if tr == nil {
			return miss()
		}
		if tr.Spec.Telescope == "" {
			return way, "", true
		}
		return inv.walk(link{obsv1.KindTelescope, tr.Spec.Telescope}, way)
	case obsv1.KindOpticalTube:
		if inv.tubes[l.name] == nil {
			return miss()
		}
		return way, "", false
	}
	return way, "", false
}

func parentCondition(found bool, reason, message string) obsv1.Condition {
	status := metav1.ConditionFalse
	if found {
		status = metav1.ConditionTrue
	}
	return obsv1.Condition{Type: obsv1.ConditionParentFound, Status: status, Reason: reason, Message: message}
}
