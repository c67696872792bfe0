// What the guard keeps on disk, so a guard that restarts (a crash, an OOM kill, a container
// restart) with the runner and the API server gone still knows the site: what the runner armed,
// when it last heard the runner for each telescope, and its trips, which the runner reports when
// it comes back. The watch resumes from the saved times: a guard that restarts and hears no
// heartbeat within the timeout parks the site, as it would have without the restart. The file
// lives on the server pod's own volume on a cluster, in the local server's folder in dev mode.
package guard

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// StateEnv names the file the guard keeps its state in. The server pod and the dev mode's
// local servers set it; a guard without it keeps its state in memory only, and says so.
const StateEnv = "LIKEN_GUARD_STATE"

// ArmedEnv names the file that holds the config the runner last armed the site with, outside
// the pod: the site server's pod template (kube.AnnotationSiteGuard), through a downwardAPI
// volume. A guard in a new pod, whose state went with the pod before it, arms the site from it.
const ArmedEnv = "LIKEN_GUARD_ARMED"

// state is the guard's memory.
type state struct {
	Config Config `json:"config"`
	// LastWord is when the runner last beat or wrote a config.
	LastWord time.Time `json:"lastWord"`
	// Beats are when the runner last spoke for each watched telescope; Beating are those
	// that have beaten since they were armed (a config no longer counts for them).
	Beats   map[string]time.Time `json:"beats"`
	Beating map[string]bool      `json:"beating,omitempty"`
	Trips   []Trip               `json:"trips,omitempty"`
}

// loadState reads the state at path; ok is false when there is none (a guard never armed).
func loadState(path string) (s state, ok bool, _ error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return s, false, nil
	}
	if err != nil {
		return s, false, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return s, false, fmt.Errorf("%s is not the guard's state: %w", path, err)
	}
	return s, true, nil
}

// saveState writes a state's JSON at path whole or not at all: a new file renamed over the old, so
// a guard killed mid-write finds the last complete state.
func saveState(path string, b []byte) error {
	f, err := os.CreateTemp(filepath.Dir(path), ".site-guard-*")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name()) // a no-op once renamed
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}

// resume takes the state a guard before this one saved: the site as armed, the watch from the
// times it last heard the runner, and its trips.
func (g *Guard) resume(ctx context.Context) {
	if g.State == "" {
		g.stateErr = "no file to keep it in: " + StateEnv + " is not set"
		g.Log.Warn("the site guard keeps what it is armed with in memory only", "why", g.stateErr)
		return
	}
	s, ok, err := loadState(g.State)
	if err != nil {
		g.Log.Error("the site guard could not read what it was armed with", "file", g.State, "err", err)
	}
	if !ok || err != nil {
		g.armAsTheRunnerLastDid(ctx)
		return
	}
	g.arm(ctx, s.Config, s.LastWord)
	for tel, at := range s.Beats {
		if s.Config.Has(tel) {
			g.beats[tel], g.beating[tel] = at, s.Beating[tel]
		}
	}
	g.report.Trips = s.Trips
	g.Log.Warn("the site guard resumes the site it was armed with", "file", g.State, "telescopes", len(s.Config.Telescopes),
		"lastWordFromTheRunner", s.LastWord.UTC().Format(time.RFC3339), "heartbeatTimeout", s.Config.HeartbeatTimeout())
}

// armAsTheRunnerLastDid arms a guard with no state of its own (a new pod, after the one before
// it was evicted or deleted) with the config the runner last armed the site with (Armed), and
// watches each of its telescopes from now: with the runner still away, the site parks after the
// timeout. It has not heard the runner, so it counts it away until it does. Without such a
// config it starts with nothing armed, and says so.
func (g *Guard) armAsTheRunnerLastDid(ctx context.Context) {
	text := ""
	if g.Armed != "" {
		b, err := os.ReadFile(g.Armed)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			g.Log.Error("the site guard could not read the runner's last config", "file", g.Armed, "err", err)
		}
		text = strings.TrimSpace(string(b))
	}
	if text == "" {
		g.Log.Info("the site guard starts with nothing armed: it parks nothing until the runner tells it the site", "file", g.State)
		return
	}
	cfg, err := DecodeConfig(text)
	if err != nil {
		g.Log.Error("the site guard could not read the runner's last config: it knows no mount until the runner arms it again",
			"file", g.Armed, "err", err)
		return
	}
	g.configure(ctx, cfg)
	g.lastWord = time.Time{}
	g.Log.Warn("the site guard has no state of its own: it arms the site as the runner last did, and watches the runner from now",
		"file", g.Armed, "telescopes", len(cfg.Telescopes), "heartbeatTimeout", cfg.HeartbeatTimeout())
}

// save writes the state when it changed. A guard that cannot write it says so in its armed
// message, and tries again at the next step.
func (g *Guard) save() {
	if g.State == "" || !g.configured {
		return
	}
	g.mu.Lock()
	b, _ := json.Marshal(state{Config: g.cfg, LastWord: g.lastWord, Beats: g.beats, Beating: g.beating, Trips: g.report.Trips})
	g.mu.Unlock()
	if string(b) == g.saved {
		return
	}
	if err := saveState(g.State, b); err != nil {
		if g.stateErr != err.Error() {
			g.Log.Error("the site guard could not save what it is armed with", "file", g.State, "err", err)
		}
		g.stateErr = err.Error()
		return
	}
	g.saved, g.stateErr = string(b), ""
}
