// Integration tests of the people side's quick pass against the real local stack: a real API
// server with the Person CRD (statuses, Events, pods). The activities are called as the worker
// calls them; what they wrote is read back from the API server. This file holds the stack and
// the helpers every people test uses, and the initials, data: and paint tests; the http(s)
// reads are in person_fetch_test.go, the bakes, which need a kubelet, in person_bake_test.go
// and person_bake_pods_test.go.
package people

import (
	"bytes"
	"context"
	"encoding/base64"
	"image"
	"image/color"
	"image/png"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"

	"liken.sh/runner/activities/activitytest"
	"liken.sh/runner/kube"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
	"liken.sh/runner/pictures"
	"liken.sh/runner/pictures/avatar"
	"liken.sh/runner/test/testenv"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Run(m, activitytest.Stack, &env) }

const (
	testImage    = "ghcr.io/liken-sh/people-operator:test"
	testInstance = activitytest.Instance
	// testFetchTimeout stands in for FetchTimeout so a server that never answers fails fast.
	testFetchTimeout = 2 * time.Second
)

func newActivities() *Activities {
	return &Activities{
		Clients: activitytest.Clients(env),
		HTTP:    &http.Client{Timeout: testFetchTimeout},
		People:  Config{BakerImage: testImage},
	}
}

var testContext = activitytest.Context

// createPerson creates a Person and deletes it when the test ends.
func createPerson(t *testing.T, name string, spec peoplev1.PersonSpec, annotations map[string]string) *peoplev1.Person {
	t.Helper()
	p := &peoplev1.Person{
		TypeMeta:   metav1.TypeMeta{APIVersion: peoplev1.SchemeGroupVersion.String(), Kind: "Person"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Annotations: annotations},
		Spec:       spec,
	}
	obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(p)
	require.NoError(t, err)
	delete(obj, "status")
	_, err = env.Dynamic.Resource(peoplev1.PersonResource).Create(context.Background(), &unstructured.Unstructured{Object: obj}, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		err := env.Dynamic.Resource(peoplev1.PersonResource).Delete(context.Background(), name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete the Person %s: %v", name, err)
		}
	})
	return readPerson(t, name)
}

func readPerson(t *testing.T, name string) *peoplev1.Person {
	t.Helper()
	u, err := env.Dynamic.Resource(peoplev1.PersonResource).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	var p peoplev1.Person
	require.NoError(t, runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &p))
	return &p
}

// editPerson changes a Person's spec or metadata as a user would.
func editPerson(t *testing.T, name string, edit func(p *peoplev1.Person)) {
	t.Helper()
	require.NoError(t, retry.RetryOnConflict(retry.DefaultRetry, func() error {
		u, err := env.Dynamic.Resource(peoplev1.PersonResource).Get(context.Background(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		var p peoplev1.Person
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &p); err != nil {
			return err
		}
		edit(&p)
		obj, err := runtime.DefaultUnstructuredConverter.ToUnstructured(&p)
		if err != nil {
			return err
		}
		_, err = env.Dynamic.Resource(peoplev1.PersonResource).Update(context.Background(), &unstructured.Unstructured{Object: obj}, metav1.UpdateOptions{})
		return err
	}))
}

func deletePerson(t *testing.T, name string) {
	t.Helper()
	require.NoError(t, env.Dynamic.Resource(peoplev1.PersonResource).Delete(context.Background(), name, metav1.DeleteOptions{}))
}

func avatarReady(t *testing.T, p *peoplev1.Person) peoplev1.Condition {
	t.Helper()
	c := kube.AvatarCondition(&p.Status)
	require.NotNil(t, c, "the Person %s has no AvatarReady condition: %+v", p.Name, p.Status)
	return *c
}

// personEvents lists the Events about a Person, as kubectl describe finds them.
func personEvents(t *testing.T, p *peoplev1.Person) []corev1.Event {
	t.Helper()
	list, err := env.Kube.CoreV1().Events("default").List(context.Background(), metav1.ListOptions{
		FieldSelector: fields.OneTermEqualSelector("involvedObject.uid", string(p.UID)).String(),
	})
	require.NoError(t, err)
	return list.Items
}

// eventWith finds the one Event about a Person with this reason.
func eventWith(t *testing.T, p *peoplev1.Person, reason string) corev1.Event {
	t.Helper()
	var found []corev1.Event
	for _, e := range personEvents(t, p) {
		if e.Reason == reason {
			found = append(found, e)
		}
	}
	require.Len(t, found, 1, "Events with reason %s about %s", reason, p.Name)
	return found[0]
}

func pass(t *testing.T, a *Activities, name string, recheck bool) PersonOutcome {
	t.Helper()
	out, err := a.SyncPerson(testContext(t), PersonPass{Name: name, Recheck: recheck})
	require.NoError(t, err)
	return out
}

func pngOf(t *testing.T, w, h int, c color.Color) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := range h {
		for x := range w {
			img.Set(x, y, c)
		}
	}
	var b bytes.Buffer
	require.NoError(t, png.Encode(&b, img))
	return b.Bytes()
}

func b64(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

func TestAPersonWithoutAnAvatarGetsItsInitialsAndAnEvent(t *testing.T) {
	p := createPerson(t, "initials-ada", peoplev1.PersonSpec{DisplayName: "Ada Lovelace"}, nil)

	// The quick pass runs as a local activity in the workflow; run it that way here too.
	aenv := testenv.Suite(t).NewTestActivityEnvironment()
	aenv.SetTestTimeout(time.Minute)
	val, err := aenv.ExecuteLocalActivity(newActivities().SyncPerson, PersonPass{Name: p.Name})
	require.NoError(t, err)
	var out PersonOutcome
	require.NoError(t, val.Get(&out))
	assert.Equal(t, PersonOutcome{UID: string(p.UID), Generation: 1, Reason: "Initials", Wrote: true}, out)

	p = readPerson(t, p.Name)
	assert.True(t, avatar.IsInitials(p.Status.Thumbnail), "the thumbnail is drawn initials")
	assert.Equal(t, avatar.DataURI(pictures.DrawInitials("AL", avatar.Colour(p.Name))), p.Status.Thumbnail)
	c := avatarReady(t, p)
	assert.Equal(t, metav1.ConditionTrue, c.Status)
	assert.Equal(t, "Initials", c.Reason)
	assert.Empty(t, c.Message)
	assert.Equal(t, int64(1), c.ObservedGeneration)
	assert.Equal(t, c.LastTransitionTime.Time, c.LastTransitionTime.Time.Truncate(time.Second))
	assert.Nil(t, p.Status.Avatar, "nothing to record for an empty avatar and no check-avatar")

	ev := eventWith(t, p, "Initials")
	assert.Equal(t, corev1.EventTypeNormal, ev.Type)
	assert.Equal(t, "default", ev.Namespace)
	assert.Equal(t, corev1.ObjectReference{APIVersion: "people.liken.sh/v1alpha1", Kind: "Person", Name: p.Name, UID: p.UID}, ev.InvolvedObject)
	assert.Equal(t, "people-operator", ev.Source.Component)
	assert.Equal(t, "people-operator", ev.ReportingController)
	assert.Equal(t, testInstance, ev.ReportingInstance)
	assert.Equal(t, int32(1), ev.Count)
	assert.Empty(t, ev.Message)
}

func TestAPassThatChangesNothingWritesNothing(t *testing.T) {
	p := createPerson(t, "quiet-grace", peoplev1.PersonSpec{DisplayName: "Grace Hopper"}, nil)
	a := newActivities()
	require.True(t, pass(t, a, p.Name, false).Wrote)
	before := readPerson(t, p.Name)

	out := pass(t, a, p.Name, false)
	assert.False(t, out.Wrote)
	assert.Equal(t, "Initials", out.Reason)
	out = pass(t, a, p.Name, true)
	assert.False(t, out.Wrote, "a re-check of initials reads nothing")
	after := readPerson(t, p.Name)
	assert.Equal(t, before.ResourceVersion, after.ResourceVersion, "no write at all reached the API server")
	assert.Len(t, personEvents(t, p), 1, "one Event, for the one transition")
}

func TestASpecEditRedrawsTheInitialsWithoutMovingTheTransitionTime(t *testing.T) {
	p := createPerson(t, "redraw-alan", peoplev1.PersonSpec{DisplayName: "Alan Turing"}, nil)
	a := newActivities()
	// The transition time has a resolution of a second: the second pass runs a minute later,
	// so a move would show.
	clock := time.Now()
	a.Now = func() time.Time { return clock }
	pass(t, a, p.Name, false)
	first := readPerson(t, p.Name)

	editPerson(t, p.Name, func(p *peoplev1.Person) { p.Spec.Nickname = "Prof" })
	clock = clock.Add(time.Minute)
	out := pass(t, a, p.Name, false)
	assert.True(t, out.Wrote)
	second := readPerson(t, p.Name)
	assert.Equal(t, avatar.DataURI(pictures.DrawInitials("P", avatar.Colour(p.Name))), second.Status.Thumbnail)
	assert.Equal(t, int64(2), avatarReady(t, second).ObservedGeneration)
	assert.True(t, avatarReady(t, first).LastTransitionTime.Time.Equal(avatarReady(t, second).LastTransitionTime.Time),
		"the status stayed True, so the transition time stays")
	assert.Equal(t, kube.AvatarUpdatedMessage, eventWith(t, second, "AvatarUpdated").Message, "a new picture without a transition")
}

func TestADataURIIsReadInline(t *testing.T) {
	data := pngOf(t, 20, 10, color.NRGBA{0, 0, 255, 255})
	uri := "data:image/png;base64," + b64(data)
	p := createPerson(t, "inline-katherine", peoplev1.PersonSpec{DisplayName: "Katherine Johnson", Avatar: uri}, nil)
	a := newActivities()
	out := pass(t, a, p.Name, false)
	assert.Equal(t, "Inline", out.Reason)
	assert.False(t, out.Recheck, "a data: URI cannot change without a spec change")
	p = readPerson(t, p.Name)
	thumb, err := pictures.Thumbnail(data, avatar.Colour(p.Name))
	require.NoError(t, err)
	assert.Equal(t, avatar.DataURI(thumb), p.Status.Thumbnail)
	assert.Equal(t, "Inline", avatarReady(t, p).Reason)
	assert.Equal(t, uri, p.Status.Avatar.Source)
	assert.False(t, pass(t, a, p.Name, true).Wrote, "the six-hourly re-check skips data: URIs")
}

func TestARepeatedTransitionCountsOnTheSameEvent(t *testing.T) {
	p := createPerson(t, "repeat-ida", peoplev1.PersonSpec{DisplayName: "Ida Rhodes", Avatar: "ftp://files.example/ida.png"}, nil)
	a := newActivities()
	pass(t, a, p.Name, false)
	first := eventWith(t, p, "UnsupportedScheme")
	require.Equal(t, int32(1), first.Count)

	editPerson(t, p.Name, func(p *peoplev1.Person) { p.Spec.Avatar = "" })
	assert.Equal(t, "Initials", pass(t, a, p.Name, false).Reason)
	editPerson(t, p.Name, func(p *peoplev1.Person) { p.Spec.Avatar = "ftp://files.example/ida.png" })
	assert.Equal(t, "UnsupportedScheme", pass(t, a, p.Name, false).Reason)

	again := eventWith(t, p, "UnsupportedScheme")
	assert.Equal(t, first.Name, again.Name, "the repeat is the same Event")
	assert.Equal(t, int32(2), again.Count)
	assert.Equal(t, corev1.EventTypeWarning, again.Type)
	assert.False(t, again.LastTimestamp.Before(&first.LastTimestamp))
	assert.True(t, again.FirstTimestamp.Equal(&first.FirstTimestamp))
	assert.Len(t, personEvents(t, p), 2, "UnsupportedScheme (twice) and Initials")
}

func TestAPersonThatDoesNotExistIsGone(t *testing.T) {
	a := newActivities()
	out, err := a.SyncPerson(testContext(t), PersonPass{Name: "nobody-at-all"})
	require.NoError(t, err)
	assert.Equal(t, PersonOutcome{Gone: true}, out)
	out, err = a.BakePerson(testContext(t), PersonPass{Name: "nobody-at-all"})
	require.NoError(t, err)
	assert.Equal(t, PersonOutcome{Gone: true}, out)
	assert.NoError(t, a.ForgetPerson(testContext(t), "nobody-at-all"))
}

func TestAnAPIServerThatCannotBeReachedIsAnErrorToRetry(t *testing.T) {
	a := newActivities()
	cfg := rest.CopyConfig(env.Config)
	cfg.Host = "https://127.0.0.1:1"
	var err error
	a.Dynamic, err = dynamic.NewForConfig(cfg)
	require.NoError(t, err)
	_, err = a.SyncPerson(testContext(t), PersonPass{Name: "anyone"})
	assert.Error(t, err, "an unreachable API server is not a user's mistake")
}

func TestPaintPeopleWritesTheQuickPicturesAndLeavesTheRestToEachWorkflow(t *testing.T) {
	png := pngOf(t, 40, 30, color.RGBA{R: 200, A: 255})
	createPerson(t, "paint-ada", peoplev1.PersonSpec{DisplayName: "Ada Lovelace"}, nil)
	createPerson(t, "paint-inline", peoplev1.PersonSpec{DisplayName: "Ines Line", Avatar: "data:image/png;base64," + b64(png)}, nil)
	createPerson(t, "paint-ftp", peoplev1.PersonSpec{DisplayName: "Fred Tp", Avatar: "ftp://files/fred.png"}, nil)
	createPerson(t, "paint-web", peoplev1.PersonSpec{DisplayName: "Web Person", Avatar: "https://127.0.0.1:1/web.png"}, nil)
	createPerson(t, "paint-claim", peoplev1.PersonSpec{DisplayName: "Claire Claim", Avatar: "claim://default/photos/claire.png"}, nil)
	names := []string{"paint-ada", "paint-inline", "paint-ftp", "paint-web", "paint-claim", "paint-nobody"}
	a := newActivities()

	// The paint reads the API server's watch cache, as the watcher does: wait until it holds them.
	require.Eventually(t, func() bool {
		l, err := env.Dynamic.Resource(peoplev1.PersonResource).List(testContext(t), metav1.ListOptions{ResourceVersion: "0"})
		return err == nil && len(l.Items) >= 5
	}, 10*time.Second, 50*time.Millisecond)

	out, err := a.PaintPeople(testContext(t), names)
	require.NoError(t, err)
	assert.Equal(t, PaintOutcome{Painted: 3, Left: []string{"paint-claim", "paint-nobody", "paint-web"}}, out,
		"initials, data: and an unsupported scheme are painted; a fetch, a bake and a Person gone are left")
	assert.Equal(t, "Initials", avatarReady(t, readPerson(t, "paint-ada")).Reason)
	assert.Equal(t, "Inline", avatarReady(t, readPerson(t, "paint-inline")).Reason)
	assert.Equal(t, "UnsupportedScheme", avatarReady(t, readPerson(t, "paint-ftp")).Reason)
	assert.Empty(t, readPerson(t, "paint-web").Status.Thumbnail, "left for the Person's workflow to fetch")
	assert.Empty(t, readPerson(t, "paint-claim").Status.Thumbnail, "left for the Person's workflow to bake")
	eventWith(t, readPerson(t, "paint-ada"), "Initials")
	eventWith(t, readPerson(t, "paint-ftp"), "UnsupportedScheme")

	// Painted again (a watcher restart, say): nothing to write, and the Person's own pass
	// finds the status current too.
	require.Eventually(t, func() bool {
		out, err = a.PaintPeople(testContext(t), names[:3])
		return err == nil && out.Current == 3
	}, 10*time.Second, 100*time.Millisecond, "the watch cache catches up with the writes: %+v", out)
	assert.Equal(t, PersonOutcome{UID: string(readPerson(t, "paint-ada").UID), Generation: 1, Reason: "Initials"},
		pass(t, a, "paint-ada", false))
}
