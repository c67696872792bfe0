// The activity names the recorded histories schedule must stay registered: the worker
// registers the methods of *Activities under their own names (workflows.Register), so a
// method renamed or removed would leave a running workflow scheduling an activity no worker
// has. The histories are the names that reached users.
package activities

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stretchr/testify/require"
)

func TestEveryActivityARecordedHistorySchedulesIsStillAMethod(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "workflows", "testdata", "histories", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	methods := reflect.TypeFor[*Activities]()
	names := map[string]bool{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		var h struct {
			Events []struct {
				Scheduled *struct {
					ActivityType struct{ Name string } `json:"activityType"`
				} `json:"activityTaskScheduledEventAttributes"`
			} `json:"events"`
		}
		require.NoError(t, json.Unmarshal(raw, &h), f)
		for _, e := range h.Events {
			if e.Scheduled != nil {
				names[e.Scheduled.ActivityType.Name] = true
			}
		}
	}
	require.Greater(t, len(names), 10, "the histories schedule the reservation's steps at least")
	for name := range names {
		_, ok := methods.MethodByName(name)
		require.True(t, ok, "a recorded history schedules the activity %s, which *Activities no longer has", name)
	}
}
