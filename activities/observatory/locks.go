// The dome and mount locks, held across INDI servers by the site guard (indi/guard). StartSite
// makes each dome heed the guard's one park state of every mount (MOUNT_LOCKS, with the guard
// as its ACTIVE_TELESCOPE), and Configure makes each mount heed the site's dome (DOME_LOCKS,
// ACTIVE_DOME); the drivers then refuse a dome park or a mount unpark on their own. The guard,
// on the site's server, carries the park states between the servers in real time, with or
// without the runner. The runner tells it which telescopes' mounts count and how long its
// heartbeat may stop (armGuard), before every move the locks judge and whenever the site
// changes, and shows what it reports: the Observatory's LocksRelayed and SafetyArmed.
package observatory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/guard"
	"liken.sh/runner/indi/prop"
	"liken.sh/runner/internal/version"
	"liken.sh/runner/kube"
	obsv1 "liken.sh/runner/kube/observatory/v1alpha1"
)

// guardTimeout bounds the wait for the site guard to take a config and reach the telescopes'
// servers: a fresh connection gets every definition of a server first, which takes seconds
// on a busy machine. A mount it has not reached by then counts as silent (unparked).
const guardTimeout = 15 * time.Second

// guardBeatEvery is how often the observer beats the site guard's heartbeat while Ready.
const guardBeatEvery = 10 * time.Second

// siteDome is the observatory's first Dome (its devices are sorted by name), or nil.
func siteDome(site stepServer) *stepDevice {
	for i := range site.Devices {
		if site.Devices[i].Kind == obsv1.KindDome {
			return &site.Devices[i]
		}
	}
	return nil
}

// indiNameOf is the name a dome's or mount's driver gave it (status.indiDevice, recorded when
// its server first saw it define its device); "" before that.
func indiNameOf(d *stepDevice) string {
	switch o := d.Object.(type) {
	case *obsv1.Dome:
		return o.Status.IndiDevice
	case *obsv1.Mount:
		return o.Status.IndiDevice
	}
	return ""
}

// armGuard tells the site guard the site as it stands (guardConfig), waits until the guard
// reaches the mounts of every running telescope, and writes the Observatory's LocksRelayed
// and SafetyArmed from the guard's report. A site whose server does not run has no guard to
// arm. It returns the states the guard holds, for summaries ("Dome lab parked, mounts
// unparked"), "" when there is nothing to arm.
func (a *Activities) armGuard(ctx context.Context, ns, observatory string) (string, error) {
	if observatory == "" {
		return "", nil
	}
	site, err := a.readServer(ctx, ns, obsv1.KindObservatory, observatory)
	if err != nil {
		return "", err
	}
	dome := siteDome(site)
	if dome == nil {
		// No lock: the Observatory has no LocksRelayed (a Dome that left takes it along).
		if err := a.dropLocksRelayed(ctx, site.Owner); err != nil {
			return "", err
		}
	}
	on, runs, err := a.runningDevices(ctx, site)
	if err != nil || !runs {
		return "", err
	}
	cfg, labels, err := a.guardConfig(ctx, ns, observatory)
	if err != nil {
		return "", err
	}
	sc, err := a.dialServer(ctx, on)
	if err != nil {
		return "", err
	}
	defer sc.Close()
	report, err := tellGuard(ctx, sc, site.Name, cfg)
	if refused := (guardRefused{}); errors.As(err, &refused) {
		cond := kube.GuardRefusedCondition(refused.Error(), site.Name)
		if err := a.writeCondition(ctx, site.Owner, 0, cond); err != nil {
			return "", err
		}
		return "", stepFailed("Observatory %s: %s", observatory, cond.Message)
	}
	if err != nil {
		return "", err
	}
	if err := a.recordArmed(ctx, ns, site.Name, cfg); err != nil {
		return "", err
	}
	if err := a.writeCondition(ctx, site.Owner, 0, kube.SafetyArmedCondition(report.Armed, report.ArmedMessage, report.Version)); err != nil {
		return "", err
	}
	if dome == nil {
		return "", nil
	}
	domeReport, mounts := locksOf(report, dome, labels)
	if err := a.writeCondition(ctx, site.Owner, 0, kube.LocksRelayedCondition(domeReport, mounts)); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s %s, mounts %s", dome.Label(), parkWord(kube.DomeParked(domeReport)), parkWord(report.MountsParked)), nil
}

// mountKey is a mount as the guard names it: its telescope and its INDI name.
type mountKey struct{ telescope, device string }

// guardConfig is what the site guard is told: every telescope of the site whose reservation
// holds its mounts (from its first step until its Deactivation has ended), with its server's
// address while it runs and its mounts' INDI names, the Observatory's heartbeat timeout, and
// its place and the Sun's limit.
// labels name the mounts for the Observatory's conditions ("Mount east").
func (a *Activities) guardConfig(ctx context.Context, ns, observatory string) (cfg guard.Config, labels map[mountKey]string, _ error) {
	obj, err := a.getTyped(ctx, obsv1.KindObservatory, ns, observatory)
	if err != nil {
		return cfg, nil, err
	}
	obs, ok := obj.(*obsv1.Observatory)
	if !ok || obs == nil {
		return cfg, nil, stepFailed("Observatory %s is missing", observatory)
	}
	cfg.HeartbeatTimeoutSeconds = obs.Spec.Safety.HeartbeatTimeoutOrDefault().Seconds()
	cfg.BeatEverySeconds = guardBeatEvery.Seconds()
	cfg.Latitude, cfg.Longitude = obs.Spec.Location.Latitude, obs.Spec.Location.Longitude
	limit := obs.Spec.Safety.SunAltitudeOrDefault()
	cfg.SunAltitudeLimit = &limit
	tels, err := a.telescopesAt(ctx, ns, observatory)
	if err != nil {
		return cfg, nil, err
	}
	held, err := a.telescopesHoldingMounts(ctx, ns)
	if err != nil {
		return cfg, nil, err
	}
	labels = map[mountKey]string{}
	for _, tel := range tels {
		if !held[tel] {
			continue
		}
		t, err := a.guardTelescope(ctx, ns, tel, labels)
		if err != nil {
			return cfg, nil, err
		}
		if len(t.Mounts) > 0 {
			cfg.Telescopes = append(cfg.Telescopes, t)
		}
	}
	return cfg, labels, nil
}

// guardTelescope is one telescope as the guard is told it. A mount whose driver does not run
// (a joiner refused while Ready) is listed without a name: silent, so unparked.
func (a *Activities) guardTelescope(ctx context.Context, ns, telescope string, labels map[mountKey]string) (guard.Telescope, error) {
	t := guard.Telescope{Name: telescope}
	s, err := a.readServer(ctx, ns, obsv1.KindTelescope, telescope)
	if err != nil {
		return t, err
	}
	on, runs, err := a.runningDevices(ctx, s)
	if err != nil {
		return t, err
	}
	if runs {
		if t.Address, err = a.indiResolver().Address(ctx, INDIServer{Namespace: ns, Name: s.Name, Drivers: driverNames(on.Devices)}); err != nil {
			return t, err
		}
	}
	for _, m := range only(s.Devices, func(d stepDevice) bool { return d.Kind == obsv1.KindMount }) {
		name := ""
		if runs && slices.ContainsFunc(on.Devices, func(d stepDevice) bool { return d.Label() == m.Label() }) {
			name = indiNameOf(&m)
		}
		t.Mounts = append(t.Mounts, name)
		labels[mountKey{telescope, name}] = m.Label()
	}
	return t, nil
}

// tellGuard writes the config to the site guard and returns its report once it reaches every
// running telescope's mounts, or, after guardTimeout, as it stands.
func tellGuard(ctx context.Context, sc *indi.Client, server string, cfg guard.Config) (guard.Report, error) {
	gctx, cancel := context.WithTimeout(ctx, guardTimeout)
	defer cancel()
	if err := sc.Sync(gctx, guard.Device); err != nil {
		return guard.Report{}, fmt.Errorf("the site's server %s runs no site guard (one started before the guard existed "+
			"has none: delete its pod to start it again): %w", server, err)
	}
	before, _ := sc.Property(guard.Device, guard.PropStatus)
	was := guard.ReportOf(before)
	if err := was.Speaks(version.Get().Version); err != nil {
		return was, guardRefused{err}
	}
	taken := was.ConfigVersion
	cfg.WrittenAt = time.Now().UTC()
	if _, err := sc.SetText(gctx, guard.Device, guard.PropConfig, map[string]string{guard.ElemConfig: cfg.Encode()}); err != nil {
		return guard.Report{}, fmt.Errorf("tell the site guard on %s the site's telescopes: %w", server, err)
	}
	// The report after the guard took this config; once it reaches the mounts, the dome's state
	// has reached their locks, and theirs the dome's.
	p, err := sc.Wait(gctx, guard.Device, guard.PropStatus, func(p prop.Property) bool {
		r := guard.ReportOf(p)
		return r.ConfigVersion > taken && r.Sees(cfg)
	})
	if err != nil && ctx.Err() != nil {
		return guard.Report{}, err
	}
	if err != nil {
		p, _ = sc.Property(guard.Device, guard.PropStatus)
	}
	return guard.ReportOf(p), nil
}

// guardRefused is a site guard the runner does not arm: it speaks another protocol.
type guardRefused struct{ error }

// locksOf reads the park states of the dome and the mounts from the guard's report, as the
// Observatory's LocksRelayed shows them.
func locksOf(r guard.Report, dome *stepDevice, labels map[mountKey]string) (kube.ParkReport, []kube.ParkReport) {
	d := kube.ParkReport{Label: dome.Label()}
	for _, p := range r.Domes {
		if p.Device == indiNameOf(dome) {
			d = kube.ParkReport{Label: dome.Label(), Reported: p.Reported, Parked: p.Parked, Moving: p.Moving}
		}
	}
	var mounts []kube.ParkReport
	for _, m := range r.Mounts {
		label := labels[mountKey{m.Telescope, m.Device}]
		if label == "" {
			label = "Mount of Telescope " + m.Telescope
		}
		mounts = append(mounts, kube.ParkReport{Label: label, Reported: m.Reported, Parked: m.Parked, Moving: m.Moving})
	}
	return d, mounts
}

func parkWord(parked bool) string {
	if parked {
		return "parked"
	}
	return "unparked"
}

// heedSiteDome makes each mount of s that runs (its devices on) heed the site's dome or
// ignore domes: Configure runs it over its own client, and ConnectLiveDevices for a joining mount.
func heedSiteDome(ctx context.Context, c *indi.Client, s, on stepServer, site stepServer) error {
	dome, domeName := siteDome(site), ""
	if dome != nil {
		domeName = indiNameOf(dome)
	}
	for _, m := range only(s.Devices, func(d stepDevice) bool { return d.Kind == obsv1.KindMount }) {
		if !slices.ContainsFunc(on.Devices, func(d stepDevice) bool { return d.Label() == m.Label() }) {
			continue
		}
		dctx, cancel := context.WithTimeout(ctx, guardTimeout)
		name, err := indiDevice(dctx, c, s, m)
		cancel()
		if err != nil {
			continue // silent: the guard counts it unparked
		}
		if err := heedDome(ctx, c, name, dome != nil, domeName); err != nil {
			return indiStepError(m, err)
		}
	}
	return nil
}

// heedDome makes a mount heed its site's dome (DOME_LOCKS, and the dome's name to snoop on)
// or ignore domes, and saves the driver's config when that changed anything, so a restarted
// driver heeds it too. A driver without DOME_POLICY has no lock to set.
func heedDome(ctx context.Context, c *indi.Client, mount string, locks bool, dome string) error {
	if _, ok := c.Property(mount, "DOME_POLICY"); !ok {
		return nil
	}
	sent, err := c.SetDomePolicy(ctx, mount, locks)
	if err != nil {
		return err
	}
	if locks && dome != "" {
		s, err := c.SetActiveDevices(ctx, mount, map[string]string{indi.ActiveDome: dome})
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

// writeDomePolicies makes each Dome of the site heed the mounts (MOUNT_LOCKS, the guard's one
// state of them as its ACTIVE_TELESCOPE) and close when it parks and open when it unparks,
// saves the driver's config when that changed anything, and arms the guard. StartSite runs
// it, and ConnectLiveDevices when the site's devices changed, so a Dome that joins or leaves is
// heeded at once. It returns the summary's part, "" when there was nothing to write or arm.
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
	if err := a.heedSiteDomeEverywhere(ctx, site); err != nil {
		return "", err
	}
	armed, err := a.armSite(ctx, site.Owner.Namespace, site.Owner.Name)
	if err != nil {
		return "", err
	}
	if armed != "" {
		parts = append(parts, "the site guard holds "+armed)
	}
	return strings.Join(parts, "; "), nil
}

// heedSiteDomeEverywhere makes the mounts of every running telescope of the site heed its
// dome, or ignore domes when it has none, so a Dome that joins or leaves is heeded at once.
func (a *Activities) heedSiteDomeEverywhere(ctx context.Context, site stepServer) error {
	tels, err := a.telescopesAt(ctx, site.Owner.Namespace, site.Owner.Name)
	if err != nil {
		return err
	}
	for _, tel := range tels {
		s, err := a.readServer(ctx, site.Owner.Namespace, obsv1.KindTelescope, tel)
		if err != nil {
			return err
		}
		on, runs, err := a.runningDevices(ctx, s)
		if err != nil || !runs || !slices.ContainsFunc(on.Devices, func(d stepDevice) bool { return d.Kind == obsv1.KindMount }) {
			if err != nil {
				return err
			}
			continue
		}
		c, err := a.dialServer(ctx, on)
		if err != nil {
			return err
		}
		err = heedSiteDome(ctx, c, s, on, site)
		c.Close()
		if err != nil {
			return err
		}
	}
	return nil
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
				return c.SetActiveDevices(ctx, name, map[string]string{indi.ActiveTelescope: guard.Device})
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
