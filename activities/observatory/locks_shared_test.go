// Tests of the shared arming: callers that ask at once share an arming that starts after they ask.
package observatory

import (
	"context"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestTwentyReservationsAskingAtOnceShareTwoArmingsEachStartedAfterTheyAsked(t *testing.T) {
	var runs atomic.Int32
	started := make(chan struct{})
	release := make(chan struct{})
	old := armNow
	t.Cleanup(func() { armNow = old })
	armNow = func(_ *Activities, _ context.Context, ns, observatory string) (string, error) {
		n := runs.Add(1)
		if n == 1 {
			close(started)
			<-release // the first arming is under way while the others ask
		}
		return "arming " + strconv.Itoa(int(n)) + " of " + ns + "/" + observatory, nil
	}
	a := &Activities{}
	ctx := context.Background()

	first := make(chan string, 1)
	go func() {
		s, err := a.armSite(ctx, "bench", "site")
		assert.NoError(t, err)
		first <- s
	}()
	<-started
	var wg sync.WaitGroup
	got := make([]string, 19)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := a.armSite(ctx, "bench", "site")
			assert.NoError(t, err)
			got[i] = s
		}()
	}
	// Once every later caller waits for the next arming, the first may end.
	require.Eventually(t, func() bool {
		siteArms.mu.Lock()
		defer siteArms.mu.Unlock()
		s := siteArms.sites[siteArmKey{a: a, ns: "bench", observatory: "site"}]
		return s != nil && s.next != nil && s.next.callers == len(got)
	}, 10*time.Second, time.Millisecond)
	close(release)
	wg.Wait()
	assert.Equal(t, "arming 1 of bench/site", <-first)
	for _, s := range got {
		assert.Equal(t, "arming 2 of bench/site", s, "a caller that asked while an arming ran gets the next one")
	}
	assert.EqualValues(t, 2, runs.Load())

	s, err := a.armSite(ctx, "bench", "site")
	require.NoError(t, err)
	assert.Equal(t, "arming 3 of bench/site", s, "a caller after them all gets an arming of its own")
	other, err := a.armSite(ctx, "bench", "")
	require.NoError(t, err)
	assert.Empty(t, other, "no observatory, nothing to arm")
}
