package guard

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTheStateReadsBackAsItWasSavedAndNothingIsNotAnError(t *testing.T) {
	path := filepath.Join(t.TempDir(), "site-guard.json")
	_, ok, err := loadState(path)
	require.NoError(t, err)
	assert.False(t, ok, "a guard never armed has no state")

	at := time.Date(2026, 12, 5, 23, 14, 5, 0, time.UTC)
	want := state{Config: Config{Telescopes: []Telescope{{Name: "east", Address: "east:7624", Mounts: []string{"EQMod Mount"}}},
		HeartbeatTimeoutSeconds: 300}, LastWord: at, Beats: map[string]time.Time{"east": at}, Beating: map[string]bool{"east": true}}
	b, err := json.Marshal(want)
	require.NoError(t, err)
	require.NoError(t, saveState(path, b))
	got, ok, err := loadState(path)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, want, got)
	left, err := filepath.Glob(filepath.Join(filepath.Dir(path), ".site-guard-*"))
	require.NoError(t, err)
	assert.Empty(t, left, "no temporary file is left behind")
}

func TestAStateThatIsNotOneIsAnErrorThatNamesTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "site-guard.json")
	require.NoError(t, os.WriteFile(path, []byte("{half"), 0o600))
	_, ok, err := loadState(path)
	assert.False(t, ok)
	assert.ErrorContains(t, err, path+" is not the guard's state")
}
