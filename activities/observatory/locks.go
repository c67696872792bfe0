// The dome and mount locks across INDI servers (spec 5). StartSite makes the dome heed the
// mounts, and every relay makes each mount heed the dome; the drivers then refuse a dome
// park or a mount unpark on their own. But each snoops on a device of another server, so the
// runner carries the park states across (kube/locks.go has the rules): the dome's to each
// mount under its INDI name, and one aggregate of every mount to the dome. Drivers start
// locked and trust only what was relayed last, so a relay goes before every move the locks
// judge (a mount's unpark, a dome's park), and the observer relays each change while the
// reservation is Ready, so a person's own moves are judged on fresh states too.
package observatory

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"liken.sh/runner/indi"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// relayDefineTimeout bounds the wait for a driver to define its device before a relay: a
// device that has not is silent, which the rules count on the safe side. A fresh connection
// gets every definition of the server first, which takes seconds on a busy machine.
const relayDefineTimeout = 15 * time.Second

// siteDome is the observatory's first Dome (its devices are sorted by name), or nil.
func siteDome(site stepServer) *stepDevice {
	for i := range site.Devices {
		if site.Devices[i].Kind == obsv1.KindDome {
			return &site.Devices[i]
		}
	}
	return nil
}

// domeINDIName is the name the dome's driver gave it (status.indiDevice, recorded when
// StartSite connected it), under which its state reaches the mounts.
func domeINDIName(d *stepDevice) string {
	if o, ok := d.Object.(*obsv1.Dome); ok && o != nil {
		return o.Status.IndiDevice
	}
	return ""
}

// relayLocksNow relays the park states between the observatory's dome and the mounts of its
// telescopes' running servers, and writes the Observatory's LocksRelayed. At an Observatory
// without a Dome the mounts ignore domes and there is no LocksRelayed; one whose server does
// not run has nothing to relay. It returns the relayed states for summaries ("Dome lab
// parked, mounts unparked"), "" when nothing was relayed.
func (a *Activities) relayLocksNow(ctx context.Context, ns, observatory string) (string, error) {
	if observatory == "" {
		return "", nil
	}
	site, err := a.readServer(ctx, ns, obsv1.KindObservatory, observatory)
	if err != nil {
		return "", err
	}
	tels, err := a.telescopesAt(ctx, ns, observatory)
	if err != nil {
		return "", err
	}
	dome := siteDome(site)
	if dome == nil {
		// No lock: the mounts ignore domes (a Dome that left must not keep them locked), and
		// the Observatory has no LocksRelayed.
		if _, err := a.relayToEveryMount(ctx, ns, tels, domeRelay{}); err != nil {
			return "", err
		}
		return "", a.dropLocksRelayed(ctx, site.Owner)
	}
	sc, domeReport, err := a.dialDome(ctx, site, *dome)
	if err != nil || sc == nil {
		return "", err
	}
	defer sc.Close()
	domeName := domeINDIName(dome)
	domeParked := kube.DomeParked(domeReport)

	held, err := a.telescopesHoldingMounts(ctx, ns)
	if err != nil {
		return "", err
	}
	byTel, err := a.relayToEveryMount(ctx, ns, tels, domeRelay{locks: true, name: domeName, parked: domeParked})
	if err != nil {
		return "", err
	}
	var mounts []kube.ParkReport
	for i, tel := range tels {
		for _, r := range byTel[i] {
			r.Released = !held[tel]
			mounts = append(mounts, r)
		}
	}
	mountsParked := kube.MountsParked(mounts)
	if err := tellDome(ctx, sc, site, domeName, mountsParked); err != nil {
		return "", err
	}
	cond := kube.LocksRelayedCondition(domeReport, mounts)
	if err := a.writeCondition(ctx, site.Owner, 0, cond); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %s, mounts %s", dome.Label(), parkWord(domeParked), parkWord(mountsParked)), nil
}

// relayLocksOf relays the site's dome state to one telescope's mounts, and makes them heed
// it: all that Configure and a mount's unpark need, without dialling the site's other
// telescopes (whose cost would grow with the neighbours). The dome hears of these mounts
// only when one is unparked, moving or silent: the aggregate it is told is then unparked
// whatever the others report. That they are all parked cannot make it parked (the others
// may not be); a dome's park relays the whole site first (relayLocks). It returns what was
// relayed, for summaries; the Observatory's LocksRelayed is the whole site's relay's.
func (a *Activities) relayLocksOf(ctx context.Context, ns, observatory, telescope string) (string, error) {
	return a.relayLocksTo(ctx, ns, observatory, telescope, func(dome domeRelay) ([]kube.ParkReport, error) {
		return a.relayToMounts(ctx, ns, telescope, dome)
	})
}

// relayLocksTo is relayLocksOf with the relay to the telescope's mounts given: relayToMounts,
// or relayOver a client the caller holds.
func (a *Activities) relayLocksTo(ctx context.Context, ns, observatory, telescope string,
	toMounts func(domeRelay) ([]kube.ParkReport, error)) (string, error) {
	if observatory == "" {
		return "", nil
	}
	site, err := a.readServer(ctx, ns, obsv1.KindObservatory, observatory)
	if err != nil {
		return "", err
	}
	dome := siteDome(site)
	if dome == nil {
		if _, err := toMounts(domeRelay{}); err != nil {
			return "", err
		}
		return "", a.dropLocksRelayed(ctx, site.Owner)
	}
	sc, domeReport, err := a.dialDome(ctx, site, *dome)
	if err != nil || sc == nil {
		return "", err
	}
	defer sc.Close()
	domeName := domeINDIName(dome)
	domeParked := kube.DomeParked(domeReport)
	mounts, err := toMounts(domeRelay{locks: true, name: domeName, parked: domeParked})
	if err != nil {
		return "", err
	}
	sum := fmt.Sprintf("%s %s to Telescope %s's mounts", dome.Label(), parkWord(domeParked), telescope)
	if kube.MountsParked(mounts) { // its reservation holds them: a silent one counts as unparked
		return sum, nil
	}
	if err := tellDome(ctx, sc, site, domeName, false); err != nil {
		return "", err
	}
	return sum + ", mounts unparked to " + dome.Label(), nil
}

// dialDome dials the site's server for a relay and reads its dome's park state; the client is
// nil when the server does not run. Only what runs is dialled: a device refused while Ready
// runs no driver.
func (a *Activities) dialDome(ctx context.Context, site stepServer, dome stepDevice) (*indi.Client, kube.ParkReport, error) {
	on, runs, err := a.runningDevices(ctx, site)
	if err != nil || !runs {
		return nil, kube.ParkReport{}, err
	}
	sc, err := a.dialServer(ctx, on)
	if err != nil {
		return nil, kube.ParkReport{}, err
	}
	return sc, a.parkReport(ctx, sc, site, dome, kube.DomeParkVector), nil
}

// tellDome relays the one aggregate park state of the site's mounts to its dome, and returns
// once the dome's driver has taken it in.
func tellDome(ctx context.Context, sc *indi.Client, site stepServer, domeName string, parked bool) error {
	if err := sc.RelayPark(kube.MountsRelayDevice(site.Owner.Name), kube.MountParkVector, parked); err != nil {
		return fmt.Errorf("relay the mounts' park state to %s: %w", site.Name, err)
	}
	return relayHeard(ctx, sc, site.Name, domeName)
}

func parkWord(parked bool) string {
	if parked {
		return "parked"
	}
	return "unparked"
}

// domeRelay is what the mounts of a site are told of its dome: whether they heed one (locks),
// its INDI name, and whether it counts as parked.
type domeRelay struct {
	locks  bool
	name   string
	parked bool
}

// relayToMounts makes each mount of a telescope whose server runs heed the site's dome or not
// (DOME_POLICY, ACTIVE_DOME, saved; so a Dome that joins or leaves is heeded at the next
// relay), relays the dome's state to them, and returns what they report. A telescope whose
// server does not run has silent mounts.
func (a *Activities) relayToMounts(ctx context.Context, ns, telescope string, dome domeRelay) ([]kube.ParkReport, error) {
	s, err := a.readServer(ctx, ns, obsv1.KindTelescope, telescope)
	if err != nil {
		return nil, err
	}
	mounts := only(s.Devices, func(d stepDevice) bool { return d.Kind == obsv1.KindMount })
	if len(mounts) == 0 {
		return nil, nil
	}
	var out []kube.ParkReport
	on, runs, err := a.runningDevices(ctx, s)
	if err != nil {
		return nil, err
	}
	if !runs {
		for _, m := range mounts {
			out = append(out, kube.ParkReport{Label: m.Label()})
		}
		return out, nil
	}
	// Only what runs is dialled (a joiner refused while Ready runs no driver); a mount that
	// does not run is silent.
	c, err := a.dialServer(ctx, on)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return relayOver(ctx, c, s, on, dome)
}

// relayOver is relayToMounts over c, a client of s's server, on which the devices of on run:
// Configure, which has read the server and dialled it already, relays over its own client.
func relayOver(ctx context.Context, c *indi.Client, s, on stepServer, dome domeRelay) ([]kube.ParkReport, error) {
	mounts := only(s.Devices, func(d stepDevice) bool { return d.Kind == obsv1.KindMount })
	if len(mounts) == 0 {
		return nil, nil
	}
	names := map[string]string{}
	for _, m := range mounts {
		if !slices.ContainsFunc(on.Devices, func(d stepDevice) bool { return d.Label() == m.Label() }) {
			continue // silent
		}
		dctx, cancel := context.WithTimeout(ctx, relayDefineTimeout)
		name, err := indiDevice(dctx, c, s, m)
		cancel()
		if err != nil {
			continue // silent
		}
		names[m.Label()] = name
		if err := heedDome(ctx, c, name, dome); err != nil {
			return nil, indiStepError(m, err)
		}
	}
	if dome.locks && dome.name != "" {
		if err := c.RelayPark(dome.name, kube.DomeParkVector, dome.parked); err != nil {
			return nil, fmt.Errorf("relay the dome's park state to %s: %w", s.Name, err)
		}
		if err := relayHeard(ctx, c, s.Name, slices.Collect(maps.Values(names))...); err != nil {
			return nil, err
		}
	}
	var out []kube.ParkReport
	for _, m := range mounts {
		name, ok := names[m.Label()]
		if !ok {
			out = append(out, kube.ParkReport{Label: m.Label()})
			continue
		}
		p, ok := c.Property(name, kube.MountParkVector)
		out = append(out, kube.ParkReportOf(m.Label(), p, ok))
	}
	return out, nil
}

// heedDome makes a mount heed its site's dome (DOME_LOCKS, and the dome's name to snoop on)
// or ignore domes, and saves the driver's config when that changed anything, so a restarted
// driver heeds it too. A driver without DOME_POLICY has no lock to set.
func heedDome(ctx context.Context, c *indi.Client, mount string, dome domeRelay) error {
	if _, ok := c.Property(mount, "DOME_POLICY"); !ok {
		return nil
	}
	sent, err := c.SetDomePolicy(ctx, mount, dome.locks)
	if err != nil {
		return err
	}
	if dome.locks && dome.name != "" {
		s, err := c.SetActiveDevices(ctx, mount, map[string]string{indi.ActiveDome: dome.name})
		if err != nil {
			return err
		}
		sent = sent || s
	}
	if sent {
		return c.SaveConfig(ctx, mount)
	}
	return nil
}

// telescopesAt are the names of the observatory's Telescopes.
func (a *Activities) telescopesAt(ctx context.Context, ns, observatory string) ([]string, error) {
	list, err := a.listTypedWhere(ctx, obsv1.KindTelescope, ns, [][2]string{{fieldObservatory, observatory}})
	if err != nil {
		return nil, err
	}
	var out []string
	for _, o := range list {
		if tel := o.(*obsv1.Telescope); tel.Spec.Observatory == observatory {
			out = append(out, tel.Name)
		}
	}
	return out, nil
}

// parkReport reads a device's park vector; a driver that does not define its device in
// relayDefineTimeout is silent.
func (a *Activities) parkReport(ctx context.Context, c *indi.Client, s stepServer, d stepDevice, vector string) kube.ParkReport {
	dctx, cancel := context.WithTimeout(ctx, relayDefineTimeout)
	defer cancel()
	name, err := indiDevice(dctx, c, s, d)
	if err != nil {
		return kube.ParkReport{Label: d.Label()}
	}
	p, ok := c.Property(name, vector)
	return kube.ParkReportOf(d.Label(), p, ok)
}

// telescopesHoldingMounts are the telescopes of the namespace whose reservation has not
// ended its Deactivation: their silent mounts still count as unparked.
func (a *Activities) telescopesHoldingMounts(ctx context.Context, ns string) (map[string]bool, error) {
	list, err := a.listTyped(ctx, obsv1.KindReservation, ns)
	if err != nil {
		return nil, err
	}
	out := map[string]bool{}
	for _, o := range list {
		r := o.(*obsv1.Reservation)
		if kube.HoldsMounts(r.Status) {
			out[r.Spec.Telescope] = true
		}
	}
	return out, nil
}

// writeDomePolicies makes each Dome of the site heed the mounts (MOUNT_LOCKS, the aggregate
// the runner relays as its ACTIVE_TELESCOPE) and close when it parks and open when it
// unparks, saves the driver's config when that changed anything, and relays the locks (at a
// site without a Dome, too: its mounts then ignore domes). StartSite runs it, and
// LiveDevices when the site's devices changed, so a Dome that joins or leaves is heeded at
// once. It returns the summary's part, "" when there was nothing to write or relay.
func (a *Activities) writeDomePolicies(ctx context.Context, site stepServer) (string, error) {
	var parts []string
	if domes := only(site.Devices, func(d stepDevice) bool { return d.Kind == obsv1.KindDome }); len(domes) > 0 {
		written, err := a.heedMounts(ctx, site, domes)
		if err != nil {
			return "", err
		}
		if len(written) > 0 {
			parts = append(parts, "wrote the lock policies of "+strings.Join(written, ", "))
		}
	}
	relayed, err := a.relayLocks(ctx, site.Owner.Namespace, site.Owner.Name)
	if err != nil {
		return "", err
	}
	if relayed != "" {
		parts = append(parts, "relayed "+relayed)
	}
	return strings.Join(parts, "; "), nil
}

// heedMounts writes the domes' lock policies and returns the domes whose config changed.
func (a *Activities) heedMounts(ctx context.Context, site stepServer, domes []stepDevice) ([]string, error) {
	c, err := a.dialServer(ctx, site)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var written []string
	for _, d := range domes {
		name, err := indiDevice(ctx, c, site, d)
		if err != nil {
			return nil, indiStepError(d, err)
		}
		stepHeartbeat(ctx, "writing the lock policies of "+d.Label())
		var sent bool
		for _, set := range []func() (bool, error){
			func() (bool, error) { return c.SetMountPolicy(ctx, name, true) },
			func() (bool, error) { return c.SetShutterParkPolicy(ctx, name, true, true) },
			func() (bool, error) {
				return c.SetActiveDevices(ctx, name, map[string]string{indi.ActiveTelescope: kube.MountsRelayDevice(site.Owner.Name)})
			},
		} {
			s, err := set()
			if err != nil {
				return nil, indiStepError(d, err)
			}
			sent = sent || s
		}
		if sent {
			if err := c.SaveConfig(ctx, name); err != nil {
				return nil, indiStepError(d, err)
			}
			written = append(written, d.Label())
		}
	}
	return written, nil
}

// dropLocksRelayed removes the Observatory's LocksRelayed, which a site without a Dome does
// not have; nothing is written when it has none.
func (a *Activities) dropLocksRelayed(ctx context.Context, obs kube.ResourceID) error {
	obj, err := a.getTyped(ctx, obsv1.KindObservatory, obs.Namespace, obs.Name)
	o, ok := obj.(*obsv1.Observatory)
	if err != nil || !ok || o == nil || len(kube.WithoutConditions(o.Status.Conditions, obsv1.ConditionLocksRelayed)) == len(o.Status.Conditions) {
		return err
	}
	return a.updateStatusField(ctx, obs, "conditions", func(raw []byte) (any, error) {
		var conds []obsv1.Condition
		if err := json.Unmarshal(raw, &conds); err != nil {
			return nil, err
		}
		return kube.WithoutConditions(conds, obsv1.ConditionLocksRelayed), nil
	})
}
