// Tables for the people side's pure rules: when a read is due, what the status becomes after
// a read, which Event that deserves, what the Events and the baker pod are called and built
// from. No server is needed; the activities' integration tests prove the same rules end to end.
package kube

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation"

	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
	"liken.sh/runner/pictures/avatar"
)

var (
	t0     = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	later  = t0.Add(time.Hour).Add(500 * time.Millisecond)
	photo  = "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAD"
	photo2 = "data:image/jpeg;base64,/9j/4AAQSkZJRgABAQAAAQABAAE"
	// initials are thumbnails that begin with the initials marker: the rules here read only
	// the marker, so nothing is drawn.
	initials  = avatar.DataURI([]byte(avatar.InitialsMarker + "AL"))
	initials2 = avatar.DataURI([]byte(avatar.InitialsMarker + "A"))
)

func cond(status metav1.ConditionStatus, reason, msg string, gen int64, at time.Time) peoplev1.Condition {
	return peoplev1.Condition{
		Type: peoplev1.ConditionAvatarReady, Status: status, Reason: reason, Message: msg,
		ObservedGeneration: gen, LastTransitionTime: metav1.NewTime(at),
	}
}

func TestAReadIsDueWhenAnythingThePictureDependsOnChanged(t *testing.T) {
	read := func(mut func(p *peoplev1.Person)) *peoplev1.Person {
		p := &peoplev1.Person{
			ObjectMeta: metav1.ObjectMeta{Name: "ada", Generation: 3,
				Annotations: map[string]string{AnnotationCheckAvatar: "1"}},
			Spec: peoplev1.PersonSpec{DisplayName: "Ada Lovelace", Avatar: "https://x/a.png"},
			Status: peoplev1.PersonStatus{
				Thumbnail:  photo,
				Avatar:     &peoplev1.AvatarStatus{Source: "https://x/a.png", Checked: "1"},
				Conditions: []peoplev1.Condition{cond(metav1.ConditionTrue, "Fetched", "", 3, t0)},
			},
		}
		if mut != nil {
			mut(p)
		}
		return p
	}
	for _, tc := range []struct {
		name          string
		person        *peoplev1.Person
		recheck, data bool
		due           bool
	}{
		{"nothing changed", read(nil), false, false, false},
		{"no thumbnail yet", read(func(p *peoplev1.Person) { p.Status.Thumbnail = "" }), false, false, true},
		{"a new avatar", read(func(p *peoplev1.Person) { p.Spec.Avatar = "https://x/b.png" }), false, false, true},
		{"no status.avatar at all", read(func(p *peoplev1.Person) { p.Status.Avatar = nil }), false, false, true},
		{"a new check-avatar value", read(func(p *peoplev1.Person) { p.Annotations[AnnotationCheckAvatar] = "2" }), false, false, true},
		{"check-avatar removed", read(func(p *peoplev1.Person) { p.Annotations = nil }), false, false, true},
		{"a new generation", read(func(p *peoplev1.Person) { p.Generation = 4 }), false, false, true},
		{"no AvatarReady condition", read(func(p *peoplev1.Person) { p.Status.Conditions = nil }), false, false, true},
		{"the six-hourly re-check", read(nil), true, false, true},
		{"a re-check of a data: URI", read(nil), true, true, false},
		{"a re-check of initials", read(func(p *peoplev1.Person) {
			p.Spec.Avatar, p.Status.Avatar.Source = "", ""
		}), true, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.due, AvatarReadDue(tc.person, tc.recheck, tc.data))
		})
	}
}

// statusAfter is one read and the status it must leave.
type statusAfter struct {
	name    string
	old     peoplev1.PersonStatus
	read    AvatarRead
	checked string
	want    peoplev1.PersonStatus
}

// statusesBefore are the statuses a read may find: a fetched photo, drawn initials, and a
// failure; laterSecond is later in whole seconds, as a transition time is written.
type statusesBefore struct {
	uid                          int64
	fetched, drawn, failedBefore peoplev1.PersonStatus
	laterSecond                  metav1.Time
}

func newStatusesBefore() statusesBefore {
	uid := int64(1234)
	return statusesBefore{
		uid: uid,
		fetched: peoplev1.PersonStatus{
			UID:        &uid,
			Thumbnail:  photo,
			Avatar:     &peoplev1.AvatarStatus{Source: "https://x/a.png", ETag: `"v1"`, LastModified: "Mon, 02 Jan 2006 15:04:05 GMT", Checked: "1"},
			Conditions: []peoplev1.Condition{{Type: "Other", Status: "True", Reason: "Kept", LastTransitionTime: metav1.NewTime(t0)}, cond("True", "Fetched", "", 1, t0)},
		},
		drawn: peoplev1.PersonStatus{
			Thumbnail:  initials,
			Avatar:     &peoplev1.AvatarStatus{Checked: "1"},
			Conditions: []peoplev1.Condition{cond("True", "Initials", "", 1, t0)},
		},
		failedBefore: peoplev1.PersonStatus{
			Thumbnail:  initials,
			Avatar:     &peoplev1.AvatarStatus{Source: "ftp://x"},
			Conditions: []peoplev1.Condition{cond("False", "UnsupportedScheme", "no ftp", 1, t0)},
		},
		laterSecond: metav1.NewTime(later.Truncate(time.Second)),
	}
}

func TestTheStatusAfterAReadFollowsTheSpecsRules(t *testing.T) {
	b := newStatusesBefore()
	for _, tc := range slices.Concat(statusesAfterAPicture(b), statusesAfterAFailure(b)) {
		t.Run(tc.name, func(t *testing.T) {
			old := tc.old.DeepCopy()
			got := PersonStatusAfter(tc.old, tc.read, 2, tc.checked, later)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, old, &tc.old, "the old status must not be touched")
		})
	}
}

// statusesAfterAPicture are reads that found a picture: initials, fetched, baked, unchanged.
func statusesAfterAPicture(b statusesBefore) []statusAfter {
	fetched, drawn, laterSecond := b.fetched, b.drawn, b.laterSecond
	return []statusAfter{
		{
			name: "the first read of nothing draws the initials and starts the condition",
			read: AvatarRead{Reason: "Initials", Thumbnail: initials},
			want: peoplev1.PersonStatus{
				Thumbnail:  initials,
				Conditions: []peoplev1.Condition{{Type: "AvatarReady", Status: "True", Reason: "Initials", ObservedGeneration: 2, LastTransitionTime: laterSecond}},
			},
		},
		{
			name:    "a fetched picture records its version and keeps the transition time of a True condition",
			old:     drawn,
			read:    AvatarRead{Source: "https://x/a.png", Reason: "Fetched", Thumbnail: photo, ETag: `"v1"`, LastModified: "yesterday"},
			checked: "1",
			want: peoplev1.PersonStatus{
				Thumbnail:  photo,
				Avatar:     &peoplev1.AvatarStatus{Source: "https://x/a.png", ETag: `"v1"`, LastModified: "yesterday", Checked: "1"},
				Conditions: []peoplev1.Condition{cond("True", "Fetched", "", 2, t0)},
			},
		},
		{
			name:    "a baked picture records the file's mtime and size",
			old:     drawn,
			read:    AvatarRead{Source: "nfs://h/p/a.png", Reason: "Baked", Thumbnail: photo, LastModified: "2026-01-01T00:00:00.5Z", Size: 42},
			checked: "1",
			want: peoplev1.PersonStatus{
				Thumbnail:  photo,
				Avatar:     &peoplev1.AvatarStatus{Source: "nfs://h/p/a.png", LastModified: "2026-01-01T00:00:00.5Z", Size: 42, Checked: "1"},
				Conditions: []peoplev1.Condition{cond("True", "Baked", "", 2, t0)},
			},
		},
		{
			name:    "an unchanged source keeps the thumbnail and the recorded version",
			old:     fetched,
			read:    AvatarRead{Source: "https://x/a.png", Reason: "Fetched", Unchanged: true},
			checked: "1",
			want: func() peoplev1.PersonStatus {
				s := *fetched.DeepCopy()
				s.Conditions[1].ObservedGeneration = 2
				return s
			}(),
		},
	}
}

// statusesAfterAFailure are reads that failed, after a photo, after initials or after none,
// and the success that ends a failure.
func statusesAfterAFailure(b statusesBefore) []statusAfter {
	uid, fetched, drawn, failedBefore, laterSecond := b.uid, b.fetched, b.drawn, b.failedBefore, b.laterSecond
	return []statusAfter{
		{
			name:    "a failure after a photo keeps the photo and says so, and moves the transition time",
			old:     fetched,
			read:    AvatarRead{Source: "https://x/a.png", Reason: "FetchFailed", Message: "the server answered 404 Not Found", Initials: initials},
			checked: "1",
			want: peoplev1.PersonStatus{
				UID:       &uid,
				Thumbnail: photo,
				Avatar:    &peoplev1.AvatarStatus{Source: "https://x/a.png", Checked: "1"},
				Conditions: []peoplev1.Condition{fetched.Conditions[0],
					cond("False", "FetchFailed", "the server answered 404 Not Found"+KeptPictureNote, 2, laterSecond.Time)},
			},
		},
		{
			name: "a failure after initials draws the initials again, with no note",
			old:  drawn,
			read: AvatarRead{Source: "ftp://x", Reason: "UnsupportedScheme", Message: "no ftp", Initials: initials2},
			want: peoplev1.PersonStatus{
				Thumbnail:  initials2,
				Avatar:     &peoplev1.AvatarStatus{Source: "ftp://x"},
				Conditions: []peoplev1.Condition{cond("False", "UnsupportedScheme", "no ftp", 2, laterSecond.Time)},
			},
		},
		{
			name: "a failure with no thumbnail at all draws the initials",
			read: AvatarRead{Source: "data:,", Reason: "DecodeFailed", Message: "empty", Initials: initials},
			want: peoplev1.PersonStatus{
				Thumbnail:  initials,
				Avatar:     &peoplev1.AvatarStatus{Source: "data:,"},
				Conditions: []peoplev1.Condition{cond("False", "DecodeFailed", "empty", 2, laterSecond.Time)},
			},
		},
		{
			name: "a second failure of another kind keeps the transition time",
			old:  failedBefore,
			read: AvatarRead{Source: "gopher://x", Reason: "UnsupportedScheme", Message: "no gopher", Initials: initials},
			want: peoplev1.PersonStatus{
				Thumbnail:  initials,
				Avatar:     &peoplev1.AvatarStatus{Source: "gopher://x"},
				Conditions: []peoplev1.Condition{cond("False", "UnsupportedScheme", "no gopher", 2, t0)},
			},
		},
		{
			name: "a success after a failure moves the transition time and clears the message",
			old:  failedBefore,
			read: AvatarRead{Source: "data:,x", Reason: "Inline", Thumbnail: photo2},
			want: peoplev1.PersonStatus{
				Thumbnail:  photo2,
				Avatar:     &peoplev1.AvatarStatus{Source: "data:,x"},
				Conditions: []peoplev1.Condition{cond("True", "Inline", "", 2, laterSecond.Time)},
			},
		},
	}
}

func TestTheSameReadTwiceGivesTheSameStatus(t *testing.T) {
	read := AvatarRead{Source: "https://x/a.png", Reason: "FetchFailed", Message: "404", Initials: initials}
	first := PersonStatusAfter(peoplev1.PersonStatus{}, read, 1, "", t0)
	second := PersonStatusAfter(first, read, 1, "", later)
	assert.Equal(t, first, second, "a status is written only when it differs, so a repeat must not differ")
}

func TestOneEventMarksEachTransitionOfThePicture(t *testing.T) {
	st := func(thumb string, c ...peoplev1.Condition) *peoplev1.PersonStatus {
		return &peoplev1.PersonStatus{Thumbnail: thumb, Conditions: c}
	}
	for _, tc := range []struct {
		name     string
		old, new *peoplev1.PersonStatus
		want     *Event
	}{
		{"a new condition", st(""), st(initials, cond("True", "Initials", "", 1, t0)),
			&Event{"Normal", "Initials", ""}},
		{"a new failing condition is a Warning", st(""), st(initials, cond("False", "FetchFailed", "404", 1, t0)),
			&Event{"Warning", "FetchFailed", "404"}},
		{"True to False", st(photo, cond("True", "Fetched", "", 1, t0)), st(photo, cond("False", "FetchFailed", "404; the last good picture stays", 1, t0)),
			&Event{"Warning", "FetchFailed", "404; the last good picture stays"}},
		{"False to True", st(initials, cond("False", "FetchFailed", "404", 1, t0)), st(photo, cond("True", "Fetched", "", 1, t0)),
			&Event{"Normal", "Fetched", ""}},
		{"a new reason with the same status", st(initials, cond("True", "Initials", "", 1, t0)), st(photo, cond("True", "Inline", "", 2, t0)),
			&Event{"Normal", "Inline", ""}},
		{"a new picture from the same kind of source", st(photo, cond("True", "Fetched", "", 1, t0)), st(photo2, cond("True", "Fetched", "", 1, t0)),
			&Event{"Normal", "AvatarUpdated", AvatarUpdatedMessage}},
		{"nothing changed", st(photo, cond("True", "Fetched", "", 1, t0)), st(photo, cond("True", "Fetched", "", 2, t0)), nil},
		{"a new message alone", st(initials, cond("False", "FetchFailed", "404", 1, t0)), st(initials, cond("False", "FetchFailed", "500", 1, t0)), nil},
		{"initials redrawn under a failure", st(initials, cond("False", "FetchFailed", "404", 1, t0)), st(initials2, cond("False", "FetchFailed", "404", 2, t0)), nil},
		{"no condition at all", st(""), st(""), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := AvatarEvent(tc.old, tc.new)
			if tc.want == nil {
				assert.False(t, ok, "no Event expected, got %+v", got)
				return
			}
			require.True(t, ok)
			assert.Equal(t, *tc.want, got)
		})
	}
}

func TestAnEventsNameDependsOnWhatMakesItTheSameAndIsValid(t *testing.T) {
	e := Event{Type: "Warning", Reason: "FetchFailed", Message: "404"}
	name := PersonEventName("ada", "uid-1", e)
	assert.Equal(t, name, PersonEventName("ada", "uid-1", e), "a retry must find the same Event")
	assert.True(t, strings.HasPrefix(name, "ada."), name)
	assert.Len(t, name, len("ada.")+16)
	for _, other := range []string{
		PersonEventName("ada", "uid-2", e),
		PersonEventName("ada", "uid-1", Event{"Warning", "FetchFailed", "500"}),
		PersonEventName("ada", "uid-1", Event{"Warning", "DecodeFailed", "404"}),
		PersonEventName("ada", "uid-1", Event{"Normal", "FetchFailed", "404"}),
	} {
		assert.NotEqual(t, name, other)
	}
	long := strings.Repeat("a", 240) + "." + strings.Repeat("b", 12)
	got := PersonEventName(long, "u", e)
	assert.LessOrEqual(t, len(got), 253)
	assert.Empty(t, validation.IsDNS1123Subdomain(got), got)
}

func TestAPersonEventIsACoreEventInDefaultAboutThePerson(t *testing.T) {
	ev := PersonEvent("ada", "uid-1", Event{"Warning", "FetchFailed", "404"}, "default", "worker-abc", later)
	sec := metav1.NewTime(later.Truncate(time.Second))
	assert.Equal(t, &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: PersonEventName("ada", "uid-1", Event{"Warning", "FetchFailed", "404"}), Namespace: "default"},
		InvolvedObject: corev1.ObjectReference{
			APIVersion: "people.liken.sh/v1alpha1", Kind: "Person", Name: "ada", UID: "uid-1",
		},
		Type: "Warning", Reason: "FetchFailed", Message: "404",
		Source:              corev1.EventSource{Component: "people-operator"},
		ReportingController: "people-operator", ReportingInstance: "worker-abc",
		FirstTimestamp: sec, LastTimestamp: sec, Count: 1,
	}, ev)
}

func TestARepeatWithinTenMinutesCountsAndALaterOneStartsOver(t *testing.T) {
	first := metav1.NewTime(t0)
	for _, tc := range []struct {
		name      string
		existing  corev1.Event
		at        time.Time
		count     int32
		wantFirst time.Time
	}{
		{"a repeat a minute later", corev1.Event{Count: 1, FirstTimestamp: first, LastTimestamp: first}, t0.Add(time.Minute), 2, t0},
		{"a third at ten minutes", corev1.Event{Count: 2, FirstTimestamp: first, LastTimestamp: metav1.NewTime(t0.Add(time.Minute))}, t0.Add(11 * time.Minute), 3, t0},
		{"one after eleven minutes of quiet", corev1.Event{Count: 5, FirstTimestamp: first, LastTimestamp: first}, t0.Add(11 * time.Minute), 1, t0.Add(11 * time.Minute)},
		{"an Event with no times starts over", corev1.Event{}, t0, 1, t0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			count, f, last := EventRepeat(&tc.existing, tc.at)
			assert.Equal(t, tc.count, count)
			assert.True(t, f.Time.Equal(tc.wantFirst), "firstTimestamp %v, want %v", f, tc.wantFirst)
			assert.True(t, last.Time.Equal(tc.at.Truncate(time.Second)))
		})
	}
}

func TestABakerPodIsNamedAfterItsPersonAndStaysAValidName(t *testing.T) {
	for _, tc := range []struct {
		person string
		want   string
	}{
		{"ada", "avatar-ada"},
		{strings.Repeat("a", 246), "avatar-" + strings.Repeat("a", 246)},
	} {
		assert.Equal(t, tc.want, BakerPodName(tc.person))
	}
	for _, person := range []string{
		strings.Repeat("a", 247),
		strings.Repeat("a", 253),
		strings.Repeat("a", 235) + "." + strings.Repeat("b", 17), // the cut falls on the dot
		strings.Repeat("a", 235) + "-" + strings.Repeat("b", 17), // or on a dash
	} {
		name := BakerPodName(person)
		assert.Len(t, name, 253, "a long name is cut to the limit, then the hash")
		assert.Empty(t, validation.IsDNS1123Subdomain(name), name)
		assert.True(t, strings.HasPrefix(name, "avatar-aaa"), name)
		assert.Regexp(t, `-[0-9a-f]{16}$`, name)
	}
	// The 16 hex digits are the first of sha256(person).
	long := strings.Repeat("a", 253)
	sum := sha256.Sum256([]byte(long))
	assert.Equal(t, ("avatar-" + long)[:236]+"-"+hex.EncodeToString(sum[:8]), BakerPodName(long))
	assert.NotEqual(t, BakerPodName(strings.Repeat("a", 252)+"b"), BakerPodName(strings.Repeat("a", 252)+"c"),
		"names that share the cut part still differ")
}

func TestABakerPodIsBuiltAsTheSpecSays(t *testing.T) {
	src := func(uri string) avatar.Source {
		s, err := avatar.ParseSource(uri)
		require.NoError(t, err)
		return s
	}
	for _, tc := range []struct {
		name, avatar, ns, file string
		volume                 corev1.VolumeSource
	}{
		{"nfs", "nfs://files.example/photos/people/ada.jpg", "liken-system", "/source/ada.jpg",
			corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: "files.example", Path: "/photos/people", ReadOnly: true}}},
		{"claim", "claim://lab/pictures/people/ada.jpg", "lab", "/source/people/ada.jpg",
			corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "pictures", ReadOnly: true}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod, err := BakerPod(BakerPodInput{
				Person: "ada", PersonUID: "uid-1", Avatar: tc.avatar, Source: src(tc.avatar),
				Checked: "7", Image: "ghcr.io/liken-sh/people-operator:v1", OperatorNamespace: "liken-system",
			})
			require.NoError(t, err)
			assert.Equal(t, "avatar-ada", pod.Name)
			assert.Equal(t, tc.ns, pod.Namespace)
			assert.Equal(t, map[string]string{"people.liken.sh/baker": "avatar", "app.kubernetes.io/managed-by": "people-operator"}, pod.Labels)
			assert.Equal(t, map[string]string{"people.liken.sh/person": "ada", "people.liken.sh/source": tc.avatar, "people.liken.sh/checked": "7"}, pod.Annotations)
			require.Len(t, pod.OwnerReferences, 1)
			assert.Equal(t, metav1.OwnerReference{APIVersion: "people.liken.sh/v1alpha1", Kind: "Person", Name: "ada", UID: "uid-1", Controller: ptrTo(true)}, pod.OwnerReferences[0])

			s := pod.Spec
			assert.Equal(t, corev1.RestartPolicyNever, s.RestartPolicy)
			assert.Equal(t, ptrTo(false), s.AutomountServiceAccountToken)
			assert.Equal(t, ptrTo(false), s.EnableServiceLinks)
			require.Len(t, s.Volumes, 1)
			assert.Equal(t, corev1.Volume{Name: "source", VolumeSource: tc.volume}, s.Volumes[0])
			require.Len(t, s.Containers, 1)
			c := s.Containers[0]
			assert.Equal(t, "bake", c.Name)
			assert.Equal(t, "ghcr.io/liken-sh/people-operator:v1", c.Image)
			assert.Empty(t, c.Command, "the image's entrypoint is the worker binary")
			assert.Equal(t, []string{"bake", tc.file, avatar.Hex(avatar.Colour("ada"))}, c.Args)
			assert.Regexp(t, `^#[0-9a-f]{6}$`, c.Args[2])
			assert.Equal(t, []corev1.VolumeMount{{Name: "source", MountPath: "/source", ReadOnly: true}}, c.VolumeMounts)
			assert.True(t, resource.MustParse("10m").Equal(c.Resources.Requests[corev1.ResourceCPU]))
			assert.True(t, resource.MustParse("32Mi").Equal(c.Resources.Requests[corev1.ResourceMemory]))
			assert.True(t, resource.MustParse("384Mi").Equal(c.Resources.Limits[corev1.ResourceMemory]))
			assert.Len(t, c.Resources.Limits, 1, "no CPU limit")
			sc := c.SecurityContext
			require.NotNil(t, sc)
			assert.Equal(t, ptrTo(false), sc.AllowPrivilegeEscalation)
			assert.Equal(t, ptrTo(true), sc.ReadOnlyRootFilesystem)
			// What the restricted Pod Security Standard admits (e2e/cluster runs it there).
			assert.Equal(t, ptrTo(true), sc.RunAsNonRoot)
			assert.Equal(t, ptrTo(int64(65534)), sc.RunAsUser, "nobody, as a root-squashed export sees root")
			assert.Equal(t, ptrTo(int64(65534)), sc.RunAsGroup)
			assert.Nil(t, sc.Privileged)
			assert.Equal(t, &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}, sc.Capabilities, "no capability added")
			assert.Equal(t, &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}, sc.SeccompProfile)
		})
	}
}

func TestABakerPodIsOnlyForFiles(t *testing.T) {
	for _, uri := range []string{"", "https://x/a.png", "data:,x"} {
		s, err := avatar.ParseSource(uri)
		require.NoError(t, err)
		_, err = BakerPod(BakerPodInput{Person: "ada", Avatar: uri, Source: s, Image: "i"})
		assert.Error(t, err, uri)
	}
}

func ptrTo[T any](v T) *T { return &v }

func TestTheWorkerFindsItsOwnImageInItsPod(t *testing.T) {
	pod := func(names ...string) *corev1.Pod {
		p := &corev1.Pod{}
		for _, n := range names {
			p.Spec.Containers = append(p.Spec.Containers, corev1.Container{Name: n, Image: "img-" + n})
		}
		return p
	}
	for _, tc := range []struct {
		pod  *corev1.Pod
		want string
	}{
		{pod("operator"), "img-operator"},
		{pod("sidecar", "operator"), "img-operator"},
		{pod("sidecar", "worker"), "img-worker"},
		{pod("anything"), "img-anything"},
		{pod("a", "b"), ""},
		{pod(), ""},
	} {
		got, err := OwnImage(tc.pod)
		assert.Equal(t, tc.want, got)
		assert.Equal(t, tc.want == "", err != nil)
	}
}
