// Package guard is the site guard: the INDI driver that keeps a site safe while the runner is
// away. It runs on the observatory's own indiserver, beside the dome and the weather station,
// and lives and dies with that server (its pod, or its dev-mode stand-in): nothing of the
// worker, Temporal or the API server is needed once the runner has told it the site's
// telescopes (GUARD_CONFIG).
//
// Stock INDI guards one mount: the dome's mount lock snoops one device and the Watchdog driver
// parks one mount and one dome, and a chained device takes its whole indiserver down when the
// remote server restarts. So the guard holds a client connection to every telescope's server
// and does what INDI cannot across them:
//
//   - it defines TELESCOPE_PARK on its own device, the state of every mount of the site, which
//     each Dome's lock snoops (MOUNT_LOCKS): no dome parks while a mount is unparked;
//   - it tells every telescope's server the dome's park state, which each Mount's lock snoops
//     (DOME_LOCKS): no mount unparks under a parked dome;
//   - while a weather station reports Alert, or the runner has been silent (no heartbeat,
//     GUARD_HEARTBEAT, and no config) for longer than the config's timeout, it drives every
//     mount toward parked, then, once the domes' locks have heard them parked, every dome,
//     trying again until each is (trip.go); and records what it did (GUARD_STATUS) for the
//     runner to report when it comes back.
//
// What the runner armed survives the guard's own restart (state.go).
package guard

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"liken.sh/runner/indi"
	"liken.sh/runner/indi/prop"
)

// Guard is one site's guard.
type Guard struct {
	Server string    // the site's indiserver, which runs the guard: host:port
	In     io.Reader // indiserver's messages to the driver (stdin)
	Out    io.Writer // the driver's messages to indiserver (stdout)
	Log    *slog.Logger
	Now    func() time.Time
	// State is the file the guard keeps its state in (state.go); "" keeps it in memory only.
	State string
	// Armed is the file that holds the runner's last config, which a guard with no state of
	// its own arms the site with (ArmedEnv); "" when there is none.
	Armed string
	// Version is the guard's build, which its report and DRIVER_INFO name.
	Version string

	outMu sync.Mutex
	wake  chan struct{}

	// Owned by Run's goroutine.
	cfg        Config
	configured bool
	lastWord   time.Time            // the runner's last beat or config
	beats      map[string]time.Time // the runner's last word for each watched telescope
	beating    map[string]bool      // telescopes that beat since they were armed
	saved      string               // the state last written
	stateErr   string               // why the state could not be kept, "" when it was
	site       *link
	tels       map[string]*link // by address
	lastPark   published
	lastRelay  map[*indi.Client]published
	lastStatus string

	mu     sync.Mutex // guards what follows, shared with the movers' goroutines
	report Report
	movers map[string]*mover
	// connectors connect the site's devices while the runner is away (connect.go).
	connectors map[string]*mover
}

// published is what was last sent somewhere, and when.
type published struct {
	what string
	at   time.Time
}

// republish: states are sent again this often, so a driver that restarted hears them.
const republish = 10 * time.Second

// tick is how often the guard looks, besides every change it hears.
const tick = time.Second

// Run serves indiserver until In ends (the server stopped) or ctx ends.
func (g *Guard) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	g.wake = make(chan struct{}, 1)
	g.beats, g.beating = map[string]time.Time{}, map[string]bool{}
	g.tels = map[string]*link{}
	g.lastRelay = map[*indi.Client]published{}
	g.movers, g.connectors = map[string]*mover{}, map[string]*mover{}
	g.report.Version, g.report.Protocol = g.Version, Protocol
	g.site = g.keep(ctx, g.Server)
	g.resume(ctx)
	msgs := make(chan *indi.Message)
	readErr := make(chan error, 1)
	go func() { readErr <- g.read(ctx, msgs) }()
	g.Log.Info("the site guard runs", "server", g.Server)

	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-readErr:
			return err
		case m := <-msgs:
			g.handle(ctx, m)
		case <-g.wake:
		case <-t.C:
		}
		g.step(ctx)
	}
}

// read hands indiserver's messages to Run.
func (g *Guard) read(ctx context.Context, msgs chan<- *indi.Message) error {
	r := indi.NewReader(g.In, indi.Limits{})
	for {
		m, err := r.Next()
		if err != nil {
			if err == io.EOF {
				return nil
			}
			return fmt.Errorf("reading indiserver: %w", err)
		}
		select {
		case msgs <- m:
		case <-ctx.Done():
			return nil
		}
	}
}

// poke wakes Run to look again.
func (g *Guard) poke() {
	select {
	case g.wake <- struct{}{}:
	default:
	}
}

// step looks at the site and does what the rules say.
func (g *Guard) step(ctx context.Context) {
	v := g.view()
	now := v.Now
	// A guard never armed knows no mount: they count as unparked.
	parked := v.Armed && MountsParked(v.Mounts)
	if w := parkWord(parked); w != g.lastPark.what || now.Sub(g.lastPark.at) >= republish {
		g.send(indi.AppendVector(nil, indi.Set, parkVector(parked)))
		g.lastPark = published{w, now}
	}
	g.relayDomes(v)
	g.trip(ctx, v, Causes(v), DriveToParked(v, g.lastPark.what == "parked"))
	g.connect(ctx, ToConnect(v))

	armed, msg := Armed(v)
	g.mu.Lock()
	g.report.Armed, g.report.ArmedMessage = armed, msg
	g.report.Mounts, g.report.Domes, g.report.MountsParked = v.Mounts, v.Domes, parked
	g.report.RunnerAway = v.RunnerAway()
	g.report.Heartbeats = sortedKeys(v.Beats)
	status := statusVector(g.report)
	g.mu.Unlock()
	if s := string(indi.AppendVector(nil, indi.Set, status)); s != g.lastStatus {
		g.send([]byte(s))
		g.lastStatus = s
	}
	g.save()
}

// relayDomes tells each telescope's server the domes' park states, under the domes' own names,
// as a chained indiserver would: each mount's lock snoops its ACTIVE_DOME there.
func (g *Guard) relayDomes(v View) {
	var what string
	for _, d := range v.Domes {
		what += fmt.Sprintf("%s=%t;", d.Device, DomeParked(d))
	}
	seen := map[*indi.Client]bool{}
	for _, l := range g.tels {
		c := l.client()
		if c == nil {
			continue
		}
		seen[c] = true
		last := g.lastRelay[c]
		if what == last.what && v.Now.Sub(last.at) < republish {
			continue
		}
		for _, d := range v.Domes {
			if err := c.RelayPark(d.Device, DomeParkProp, DomeParked(d)); err != nil {
				g.Log.Warn("could not tell a telescope's server the dome's state", "server", l.addr, "err", err)
			}
		}
		g.lastRelay[c] = published{what, v.Now}
	}
	for c := range g.lastRelay {
		if !seen[c] {
			delete(g.lastRelay, c)
		}
	}
}

// view reads the site: the mounts on the telescopes' servers, the domes and weather stations
// on its own.
func (g *Guard) view() View {
	v := View{Now: g.Now(), Config: g.cfg, Weather: map[string]bool{}, Beats: map[string]time.Time{},
		LastWord: g.lastWord, Armed: g.configured, StateError: g.stateErr}
	for tel, at := range g.beats {
		v.Beats[tel] = at
	}
	for _, t := range g.cfg.Telescopes {
		c := g.tels[t.Address].client()
		for _, name := range t.Mounts {
			m := Mount{Telescope: t.Name, Park: Park{Device: name}}
			if c != nil && name != "" {
				m.Park = parkOf(c, name, MountParkProp)
			}
			v.Mounts = append(v.Mounts, m)
		}
	}
	if c := g.site.client(); c != nil {
		for _, dev := range c.Devices() {
			if _, ok := c.Property(dev, DomeParkProp); ok {
				v.Domes = append(v.Domes, parkOf(c, dev, DomeParkProp))
			}
			if p, ok := c.Property(dev, WeatherProp); ok {
				v.Weather[dev] = p.State == prop.Alert
			}
		}
		v.Disconnected = disconnected(c)
	}
	return v
}

func parkOf(c *indi.Client, device, vector string) Park {
	p, ok := c.Property(device, vector)
	if !ok {
		return Park{Device: device}
	}
	return Park{Device: device, Reported: true, Parked: p.SwitchOn(parkElement), Moving: p.State == prop.Busy}
}

// handle answers indiserver: definitions when asked, and the runner's config and beats.
func (g *Guard) handle(ctx context.Context, m *indi.Message) {
	if m.Tag == "getProperties" {
		if dev := m.Attr("device"); dev == "" || dev == Device {
			g.define(m.Attr("name"))
		}
		return
	}
	if !indi.IsVector(m) {
		return
	}
	verb, p, err := indi.DecodeVector(m)
	if err != nil || verb != indi.New || p.Device != Device {
		return
	}
	switch p.Name {
	case "CONNECTION":
		g.answer(connectionVector(prop.Ok, "The site guard stays connected: it guards the site while its server runs"))
	case PropConfig:
		text, _ := p.Text(ElemConfig)
		cfg, err := DecodeConfig(text)
		if err != nil {
			g.answer(configVector(g.cfg.Encode(), prop.Alert, "GUARD_CONFIG is not a config: "+err.Error()))
			return
		}
		g.configure(ctx, cfg)
		g.answer(configVector(cfg.Encode(), prop.Ok, ""))
	case PropHeartbeat:
		tel, _ := p.Text(ElemTelescope)
		state, _ := p.Text(ElemBeatState)
		g.lastWord = g.Now()
		switch {
		case state == LeaveState:
			// It leaves on purpose: watched again from the next config that lists it.
			delete(g.beats, tel)
			delete(g.beating, tel)
		case g.cfg.Has(tel):
			g.beats[tel], g.beating[tel] = g.lastWord, true
		}
		g.answer(heartbeatVector(tel, state))
	}
}

// configure takes a new config: it dials the servers of telescopes that joined and hangs up on
// those that left. Every telescope listed is watched from this config on, until its first
// beat: a runner lost while the devices start parks the site like one lost while Ready.
func (g *Guard) configure(ctx context.Context, cfg Config) {
	g.arm(ctx, cfg, g.Now())
	for _, t := range cfg.Telescopes {
		if !g.beating[t.Name] {
			g.beats[t.Name] = g.lastWord
		}
	}
	g.mu.Lock()
	g.report.ConfigVersion++
	g.mu.Unlock()
	g.Log.Info("took the site's config", "telescopes", len(cfg.Telescopes), "heartbeatTimeout", cfg.HeartbeatTimeout())
}

// arm holds cfg: the links to the telescopes' servers, and the watch of its telescopes only.
func (g *Guard) arm(ctx context.Context, cfg Config, word time.Time) {
	want := map[string]bool{}
	for _, t := range cfg.Telescopes {
		if t.Address != "" {
			want[t.Address] = true
		}
	}
	for addr, l := range g.tels {
		if !want[addr] {
			l.stop()
			delete(g.tels, addr)
		}
	}
	for addr := range want {
		if g.tels[addr] == nil {
			g.tels[addr] = g.keep(ctx, addr)
		}
	}
	for tel := range g.beats {
		if !cfg.Has(tel) {
			delete(g.beats, tel)
			delete(g.beating, tel)
		}
	}
	g.cfg, g.configured, g.lastWord = cfg, true, word
}

func (g *Guard) answer(p prop.Property) { g.send(indi.AppendVector(nil, indi.Set, p)) }

func (g *Guard) send(b []byte) {
	g.outMu.Lock()
	defer g.outMu.Unlock()
	if _, err := g.Out.Write(b); err != nil {
		g.Log.Warn("could not write to indiserver", "err", err)
	}
}

func parkWord(parked bool) string {
	if parked {
		return "parked"
	}
	return "unparked"
}
