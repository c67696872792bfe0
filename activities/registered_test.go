// The activity names the recorded histories schedule, or run as local activities, must stay
// registered: the worker registers the methods of each domain's struct (and of Probe) under
// their own names (workflows.Register), so a method renamed or removed would leave a running
// workflow scheduling an activity no worker has. The histories are the names that reached
// users; workflows/register_test.go lists every registered name. Each name is on one struct
// only: Temporal refuses a name registered twice.
package activities_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"liken.sh/runner/activities"
	"liken.sh/runner/activities/observatory"
	"liken.sh/runner/activities/people"
)

// registered are the structs whose methods the worker registers as activities.
var registered = []reflect.Type{
	reflect.TypeFor[*activities.Probe](),
	reflect.TypeFor[*people.Activities](),
	reflect.TypeFor[*observatory.Activities](),
}

// registeredNames is every activity name of the registered structs, with the struct it is on.
func registeredNames(t *testing.T) map[string]reflect.Type {
	names := map[string]reflect.Type{}
	for _, typ := range registered {
		for i := range typ.NumMethod() {
			name := typ.Method(i).Name
			if other, ok := names[name]; ok {
				t.Errorf("the activity %s is a method of both %s and %s: Temporal refuses to register it twice", name, other, typ)
			}
			names[name] = typ
		}
	}
	return names
}

func TestEveryActivityARecordedHistorySchedulesIsStillRegistered(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "workflows", "testdata", "histories", "*", "*.json"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	methods := registeredNames(t)
	names := map[string]bool{}
	for _, f := range files {
		raw, err := os.ReadFile(f)
		require.NoError(t, err)
		var h struct {
			Events []struct {
				Scheduled *struct {
					ActivityType struct{ Name string } `json:"activityType"`
				} `json:"activityTaskScheduledEventAttributes"`
				// A local activity is a marker whose data payload names it.
				Marker *struct {
					Name    string `json:"markerName"`
					Details struct {
						Data struct {
							Payloads []struct{ Data []byte } `json:"payloads"`
						} `json:"data"`
					} `json:"details"`
				} `json:"markerRecordedEventAttributes"`
			} `json:"events"`
		}
		require.NoError(t, json.Unmarshal(raw, &h), f)
		for _, e := range h.Events {
			if e.Scheduled != nil {
				names[e.Scheduled.ActivityType.Name] = true
			}
			if e.Marker != nil && e.Marker.Name == "LocalActivity" && len(e.Marker.Details.Data.Payloads) > 0 {
				var local struct{ ActivityType string }
				require.NoError(t, json.Unmarshal(e.Marker.Details.Data.Payloads[0].Data, &local), f)
				require.NotEmpty(t, local.ActivityType, f)
				names[local.ActivityType] = true
			}
		}
	}
	require.Greater(t, len(names), 10, "the histories schedule the reservation's steps at least")
	require.Contains(t, names, "SyncPerson", "the histories run the people side's local activities too")
	for name := range names {
		_, ok := methods[name]
		assert.True(t, ok, "a recorded history schedules the activity %s, which no registered struct has any more", name)
	}
}

// TestTheSharedClientsAddNoRegisteredName: Clients are embedded in both domains' structs, so an
// exported method of theirs would be registered twice, or as an activity it is not.
func TestTheSharedClientsAddNoRegisteredName(t *testing.T) {
	assert.Zero(t, reflect.TypeFor[*activities.Clients]().NumMethod())
	registeredNames(t)
}
