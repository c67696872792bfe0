// What the guard keeps on disk, so a guard that restarts (a crash, an OOM kill, a container
// restart) with the runner and the API server gone still knows the site: what the runner armed,
// when it last heard the runner for each telescope, and its trips, which the runner reports when
// it comes back. The watch resumes from the saved times: a guard that restarts and hears no
// heartbeat within the timeout parks the site, as it would have without the restart. The file
// lives on the server pod's own volume on a cluster, in the local server's folder in dev mode.
package guard

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// StateEnv names the file the guard keeps its state in. The server pod and the dev mode's
// local servers set it; a guard without it keeps its state in memory only, and says so.
const StateEnv = "LIKEN_GUARD_STATE"

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
