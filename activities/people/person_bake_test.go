// Integration tests of the bakes: nfs:// and claim:// pictures read by real baker pods on the
// local localstack. The API server, the scheduler and kwok treat the pods as they treat any pod; the
// test kubelet (internal/localstack/bakerkubelet) runs the project's own worker binary in each one, over a
// folder that stands in for its volume, and serves its log to the API server's pods/log proxy.
// So BakePerson runs its production path end to end: create or adopt, wait, read the log, write
// the status and the Events, delete the pod. This file holds the reads and their failures; a
// pod's life across retries and deletes is in person_bake_pods_test.go.
package people

import (
	"bytes"
	"context"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/converter"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"liken.sh/runner/internal/localstack"
	"liken.sh/runner/internal/localstack/bakerkubelet"
	"liken.sh/runner/kube"
	peoplev1 "liken.sh/runner/kube/people/v1alpha1"
	"liken.sh/runner/pictures"
	"liken.sh/runner/pictures/avatar"
	"liken.sh/runner/test/testenv"
)

// The bakes share one test kubelet (the node has one kubelet port) and one build of the
// worker, so they run as subtests, one after another.
func TestBakerPods(t *testing.T) {
	k, err := bakerkubelet.Start(bakerkubelet.Options{
		Kube:    env.Kube,
		Port:    env.Stack.KubeletPort,
		Node:    localstack.NodeName,
		Volumes: t.TempDir(),
		Worker:  env.Build(t, "./cmd/worker"),
	})
	require.NoError(t, err)
	t.Cleanup(k.Stop)
	ensureNamespace(t, DefaultOperatorNamespace)
	env.BoundClaim(t, "lab", "pictures")
	b := bakery{k: k}

	t.Run("a claim picture is baked by a pod in the claim's namespace, then the pod is deleted", b.aClaimPictureIsBaked)
	t.Run("an unchanged file keeps its thumbnail, a changed one is announced, a missing one keeps the photo", b.anUnchangedFileKeepsItsThumbnail)
	t.Run("an NFS picture is baked by a pod in the operator namespace", b.anNFSPictureIsBaked)
	t.Run("a missing file on the claim is BakeFailed and the initials are drawn", b.aMissingFileIsBakeFailed)
	t.Run("a file that is not a picture is DecodeFailed in the pod", b.aFileThatIsNotAPictureIsDecodeFailed)
	t.Run("a claim in a missing namespace is BakeFailed and no pod is created", b.aMissingNamespaceIsBakeFailed)
	t.Run("a pod that never finishes fails at the deadline and names the pod", b.aPodThatNeverFinishesFailsAtTheDeadline)
	t.Run("a retry adopts the running pod and keeps its deadline", b.aRetryAdoptsTheRunningPod)
	t.Run("a retry adopts a pod that just finished and does not run it again", b.aRetryAdoptsAFinishedPod)
	t.Run("an old finished pod is replaced, not adopted", b.anOldFinishedPodIsReplaced)
	t.Run("a pod of the baker's name that the people side did not make is left alone and told", b.aForeignPodIsRefused)
	t.Run("a Person deleted mid-bake loses its pod and is Gone", b.aPersonDeletedMidBakeIsGone)
	t.Run("a pod deleted before it finished is replaced by another", b.aDeletedPodIsReplaced)
	t.Run("the baker pod mounts only its source, read-only, and is locked down", b.theBakerPodMountsOnlyItsSourceReadOnlyAndIsLockedDown)
	t.Run("a pass asks for a bake and deletes the pods of an older avatar", b.aPassAsksForABake)
	t.Run("forgetting a Person deletes every baker pod of it and only of it", b.forgettingAPersonDeletesItsPods)
	t.Run("a worker that does not know its image says so in the status", b.aWorkerWithoutAnImageSaysSo)
	t.Run("a missing namespace or claim is told before a missing image", b.aMissingClaimIsToldBeforeAMissingImage)
}

type bakery struct{ k *bakerkubelet.Kubelet }

// bake runs BakePerson as the worker does: a regular activity, which heartbeats.
func bake(t *testing.T, a *Activities, name string, recheck bool) (PersonOutcome, error) {
	t.Helper()
	aenv := testenv.Suite(t).NewTestActivityEnvironment()
	aenv.SetTestTimeout(2 * time.Minute)
	aenv.RegisterActivity(a)
	val, err := aenv.ExecuteActivity(a.BakePerson, PersonPass{Name: name, Recheck: recheck})
	var out PersonOutcome
	if err == nil {
		err = val.Get(&out)
	}
	return out, err
}

func mustBake(t *testing.T, a *Activities, name string, recheck bool) PersonOutcome {
	t.Helper()
	out, err := bake(t, a, name, recheck)
	require.NoError(t, err)
	return out
}

func ensureNamespace(t *testing.T, ns string) {
	t.Helper()
	_, err := env.Kube.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) {
		require.NoError(t, err)
	}
}

// storedPNG is a 40x40 PNG without compression, so that every colour gives the same size.
func storedPNG(t *testing.T, c color.Color) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, 40, 40))
	draw.Draw(img, img.Bounds(), image.NewUniform(c), image.Point{}, draw.Src)
	var buf bytes.Buffer
	require.NoError(t, (&png.Encoder{CompressionLevel: png.NoCompression}).Encode(&buf, img))
	return buf.Bytes()
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
	require.NoError(t, os.WriteFile(path, data, 0o644))
}

// waitForPod waits until the pod exists and returns it.
func waitForPod(t *testing.T, ns, name string) *corev1.Pod {
	t.Helper()
	var pod *corev1.Pod
	require.Eventually(t, func() bool {
		p, err := env.Kube.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
		pod = p
		return err == nil
	}, 30*time.Second, 50*time.Millisecond, "the pod %s/%s never appeared", ns, name)
	return pod
}

// waitForPodGone waits until no pod of that name (or, with a UID, that pod) exists.
func waitForPodGone(t *testing.T, ns, name string, uid types.UID) {
	t.Helper()
	require.Eventually(t, func() bool {
		p, err := env.Kube.CoreV1().Pods(ns).Get(context.Background(), name, metav1.GetOptions{})
		return apierrors.IsNotFound(err) || (err == nil && uid != "" && p.UID != uid)
	}, 30*time.Second, 50*time.Millisecond, "the pod %s/%s was never deleted", ns, name)
}

// podsOf lists the baker pods of a Person, in every namespace.
func podsOf(t *testing.T, person string) []corev1.Pod {
	t.Helper()
	list, err := env.Kube.CoreV1().Pods("").List(context.Background(), metav1.ListOptions{LabelSelector: kube.BakerSelector})
	require.NoError(t, err)
	var mine []corev1.Pod
	for _, p := range list.Items {
		if p.Annotations[kube.AnnotationPerson] == person {
			mine = append(mine, p)
		}
	}
	return mine
}

// startBakerPod creates a Person's baker pod directly, as an earlier attempt would have.
func startBakerPod(t *testing.T, p *peoplev1.Person, uri string) *corev1.Pod {
	t.Helper()
	src, err := avatar.ParseSource(uri)
	require.NoError(t, err)
	want, err := kube.BakerPod(kube.BakerPodInput{
		Person: p.Name, PersonUID: p.UID, Avatar: uri, Source: src,
		Checked: p.Annotations[kube.AnnotationCheckAvatar], Image: testImage, OperatorNamespace: DefaultOperatorNamespace,
	})
	require.NoError(t, err)
	pod, err := env.Kube.CoreV1().Pods(want.Namespace).Create(context.Background(), want, metav1.CreateOptions{})
	require.NoError(t, err)
	t.Cleanup(func() {
		env.Kube.CoreV1().Pods(pod.Namespace).Delete(context.Background(), pod.Name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &pod.UID}})
	})
	return pod
}

func waitForPhase(t *testing.T, pod *corev1.Pod, phase corev1.PodPhase) {
	t.Helper()
	require.Eventually(t, func() bool {
		p, err := env.Kube.CoreV1().Pods(pod.Namespace).Get(context.Background(), pod.Name, metav1.GetOptions{})
		return err == nil && p.UID == pod.UID && p.Status.Phase == phase
	}, 30*time.Second, 50*time.Millisecond, "the pod %s/%s never became %s", pod.Namespace, pod.Name, phase)
}

func (b bakery) aClaimPictureIsBaked(t *testing.T) {
	data := pngOf(t, 64, 64, color.NRGBA{90, 30, 200, 255})
	file := filepath.Join(b.k.ClaimDir("lab", "pictures"), "people", "ada.png")
	writeFile(t, file, data)
	info, err := os.Stat(file)
	require.NoError(t, err)
	uri := "claim://lab/pictures/people/ada.png"
	p := createPerson(t, "baked-ada", peoplev1.PersonSpec{DisplayName: "Ada Lovelace", Avatar: uri}, map[string]string{kube.AnnotationCheckAvatar: "1"})
	a := newActivities()

	out := pass(t, a, p.Name, false)
	assert.Equal(t, PersonOutcome{UID: string(p.UID), Generation: 1, Source: uri, NeedsBake: true, Recheck: true}, out)
	assert.Empty(t, readPerson(t, p.Name).Status.Thumbnail, "the quick pass writes nothing for a file")

	var beats atomic.Int32
	aenv := testenv.Suite(t).NewTestActivityEnvironment()
	aenv.SetTestTimeout(2 * time.Minute)
	aenv.RegisterActivity(a)
	aenv.SetOnActivityHeartbeatListener(func(_ *activity.Info, _ converter.EncodedValues) { beats.Add(1) })
	val, err := aenv.ExecuteActivity(a.BakePerson, PersonPass{Name: p.Name})
	require.NoError(t, err)
	out = PersonOutcome{} // a payload leaves out the fields it does not set
	require.NoError(t, val.Get(&out))
	assert.Equal(t, PersonOutcome{UID: string(p.UID), Generation: 1, Source: uri, Reason: "Baked", Recheck: true, Wrote: true}, out)
	assert.Positive(t, beats.Load(), "the bake heartbeats while it waits")

	p = readPerson(t, p.Name)
	thumb, err := pictures.Thumbnail(data, avatar.Colour(p.Name))
	require.NoError(t, err)
	assert.Equal(t, avatar.DataURI(thumb), p.Status.Thumbnail)
	assert.Equal(t, &peoplev1.AvatarStatus{
		Source: uri, LastModified: info.ModTime().UTC().Format(time.RFC3339Nano), Size: info.Size(), Checked: "1",
	}, p.Status.Avatar)
	c := avatarReady(t, p)
	assert.Equal(t, metav1.ConditionTrue, c.Status)
	assert.Equal(t, "Baked", c.Reason)
	assert.Equal(t, corev1.EventTypeNormal, eventWith(t, p, "Baked").Type)

	assert.Len(t, b.k.Ran("lab", "avatar-baked-ada"), 1, "one pod, in the claim's namespace")
	assert.Contains(t, string(b.k.Log("lab", "avatar-baked-ada", "bake")), `"thumbnail"`)
	waitForPodGone(t, "lab", "avatar-baked-ada", "")
	assert.False(t, pass(t, a, p.Name, false).NeedsBake, "the read is done")
}

func (b bakery) anUnchangedFileKeepsItsThumbnail(t *testing.T) {
	file := filepath.Join(b.k.ClaimDir("lab", "pictures"), "people", "grace.png")
	writeFile(t, file, storedPNG(t, color.NRGBA{250, 200, 0, 255}))
	p := createPerson(t, "baked-grace", peoplev1.PersonSpec{DisplayName: "Grace Hopper", Avatar: "claim://lab/pictures/people/grace.png"}, nil)
	a := newActivities()
	require.Equal(t, "Baked", mustBake(t, a, p.Name, false).Reason)
	first := readPerson(t, p.Name)
	info, err := os.Stat(file)
	require.NoError(t, err)

	// Another picture of the same size with the same mtime: the version says the file did not
	// change, so the thumbnail the pod made of it is not used.
	writeFile(t, file, storedPNG(t, color.NRGBA{0, 0, 0, 255}))
	require.NoError(t, os.Chtimes(file, info.ModTime(), info.ModTime()))
	same, err := os.Stat(file)
	require.NoError(t, err)
	require.Equal(t, info.Size(), same.Size())
	out := mustBake(t, a, p.Name, true)
	assert.False(t, out.Wrote)
	assert.Equal(t, "Baked", out.Reason)
	assert.Equal(t, first.ResourceVersion, readPerson(t, p.Name).ResourceVersion)
	// kwok deletes a deleted pod again by name, late, and may hit the next pod of that name;
	// the bake then starts another, so count at least one new pod.
	assert.GreaterOrEqual(t, len(b.k.Ran("lab", "avatar-baked-grace")), 2, "the re-check ran a pod")
	waitForPodGone(t, "lab", "avatar-baked-grace", "")

	// A new picture is a new thumbnail, announced without a transition.
	writeFile(t, file, pngOf(t, 40, 40, color.NRGBA{0, 100, 250, 255}))
	require.NoError(t, os.Chtimes(file, info.ModTime().Add(time.Minute), info.ModTime().Add(time.Minute)))
	out = mustBake(t, a, p.Name, true)
	assert.True(t, out.Wrote)
	changed := readPerson(t, p.Name)
	assert.NotEqual(t, first.Status.Thumbnail, changed.Status.Thumbnail)
	assert.Equal(t, info.ModTime().Add(time.Minute).UTC().Format(time.RFC3339Nano), changed.Status.Avatar.LastModified)
	assert.Equal(t, corev1.EventTypeNormal, eventWith(t, changed, "AvatarUpdated").Type)

	// The file goes away; the user asks for a new read: the photo stays.
	require.NoError(t, os.Remove(file))
	editPerson(t, p.Name, func(p *peoplev1.Person) { p.Annotations = map[string]string{kube.AnnotationCheckAvatar: "again"} })
	require.True(t, pass(t, a, p.Name, false).NeedsBake)
	out = mustBake(t, a, p.Name, false)
	assert.Equal(t, "BakeFailed", out.Reason)
	failed := readPerson(t, p.Name)
	assert.Equal(t, changed.Status.Thumbnail, failed.Status.Thumbnail, "the last good picture stays")
	c := avatarReady(t, failed)
	assert.Equal(t, "the file /source/people/grace.png does not exist; the last good picture stays", c.Message)
	assert.Equal(t, "again", failed.Status.Avatar.Checked)
	assert.Equal(t, corev1.EventTypeWarning, eventWith(t, failed, "BakeFailed").Type)
}

func (b bakery) anNFSPictureIsBaked(t *testing.T) {
	data := pngOf(t, 100, 60, color.NRGBA{10, 200, 10, 255})
	writeFile(t, filepath.Join(b.k.NFSDir("files.example", "/photos/people"), "hedy.png"), data)
	p := createPerson(t, "nfs-hedy", peoplev1.PersonSpec{DisplayName: "Hedy Lamarr", Avatar: "nfs://files.example/photos/people/hedy.png"}, nil)
	out := mustBake(t, newActivities(), p.Name, false)
	assert.Equal(t, "Baked", out.Reason)
	assert.True(t, out.Wrote)
	thumb, err := pictures.Thumbnail(data, avatar.Colour(p.Name))
	require.NoError(t, err)
	assert.Equal(t, avatar.DataURI(thumb), readPerson(t, p.Name).Status.Thumbnail)
	assert.Len(t, b.k.Ran(DefaultOperatorNamespace, "avatar-nfs-hedy"), 1, "the pod ran in the operator namespace")
	waitForPodGone(t, DefaultOperatorNamespace, "avatar-nfs-hedy", "")
}

func (b bakery) aMissingFileIsBakeFailed(t *testing.T) {
	p := createPerson(t, "missing-alan", peoplev1.PersonSpec{DisplayName: "Alan Turing", Avatar: "claim://lab/pictures/people/nobody.png"}, nil)
	out := mustBake(t, newActivities(), p.Name, false)
	assert.Equal(t, "BakeFailed", out.Reason)
	p = readPerson(t, p.Name)
	c := avatarReady(t, p)
	assert.Equal(t, metav1.ConditionFalse, c.Status)
	assert.Equal(t, "the file /source/people/nobody.png does not exist", c.Message)
	assert.True(t, avatar.IsInitials(p.Status.Thumbnail))
	ev := eventWith(t, p, "BakeFailed")
	assert.Equal(t, corev1.EventTypeWarning, ev.Type)
	assert.Equal(t, c.Message, ev.Message)
	waitForPodGone(t, "lab", "avatar-missing-alan", "")
}

func (b bakery) aFileThatIsNotAPictureIsDecodeFailed(t *testing.T) {
	writeFile(t, filepath.Join(b.k.ClaimDir("lab", "pictures"), "notes.txt"), []byte("not a picture at all\n"))
	p := createPerson(t, "decode-joan", peoplev1.PersonSpec{DisplayName: "Joan Clarke", Avatar: "claim://lab/pictures/notes.txt"}, nil)
	out := mustBake(t, newActivities(), p.Name, false)
	assert.Equal(t, "DecodeFailed", out.Reason)
	c := avatarReady(t, readPerson(t, p.Name))
	assert.Equal(t, "the picture is not a JPEG, PNG, GIF, or WebP image", c.Message)
	assert.Equal(t, corev1.EventTypeWarning, eventWith(t, readPerson(t, p.Name), "DecodeFailed").Type)
}

func (b bakery) aMissingNamespaceIsBakeFailed(t *testing.T) {
	p := createPerson(t, "nowhere-ida", peoplev1.PersonSpec{DisplayName: "Ida Rhodes", Avatar: "claim://no-such-lab/pictures/ida.png"}, nil)
	a := newActivities()
	require.True(t, pass(t, a, p.Name, false).NeedsBake)
	out := mustBake(t, a, p.Name, false)
	assert.Equal(t, "BakeFailed", out.Reason)
	assert.True(t, out.Wrote)
	p = readPerson(t, p.Name)
	c := avatarReady(t, p)
	assert.Equal(t, "the namespace no-such-lab does not exist", c.Message)
	assert.Equal(t, c.Message, eventWith(t, p, "BakeFailed").Message)
	assert.Empty(t, podsOf(t, p.Name), "no pod was created")
	assert.False(t, pass(t, a, p.Name, false).NeedsBake, "the failure is recorded, so no bake loop")
}

func (b bakery) aPodThatNeverFinishesFailsAtTheDeadline(t *testing.T) {
	p := createPerson(t, "hung-barbara", peoplev1.PersonSpec{DisplayName: "Barbara Liskov", Avatar: "nfs://dead.example/photos/barbara.png"}, nil)
	a := newActivities()
	a.People.BakeDeadline = 3 * time.Second
	start := time.Now()
	out := mustBake(t, a, p.Name, false)
	took := time.Since(start)
	assert.Equal(t, "BakeFailed", out.Reason)
	assert.GreaterOrEqual(t, took, 2*time.Second, "the deadline counts from the pod's creation, to the second")
	assert.Less(t, took, 10*time.Second)
	p = readPerson(t, p.Name)
	c := avatarReady(t, p)
	assert.Equal(t, "the baker pod liken-system/avatar-hung-barbara did not finish within 3s", c.Message)
	assert.Equal(t, corev1.EventTypeWarning, eventWith(t, p, "BakeFailed").Type)
	waitForPodGone(t, DefaultOperatorNamespace, "avatar-hung-barbara", "")
}

func (b bakery) theBakerPodMountsOnlyItsSourceReadOnlyAndIsLockedDown(t *testing.T) {
	p, pod, done := hungBake(t, "spec-mary")
	// What the API server stored, defaults and all.
	assert.Equal(t, "avatar-spec-mary", pod.Name)
	assert.Equal(t, "liken-system", pod.Namespace)
	assert.Equal(t, map[string]string{"people.liken.sh/baker": "avatar", "app.kubernetes.io/managed-by": "people-operator"}, pod.Labels)
	assert.Equal(t, map[string]string{
		"people.liken.sh/person":  "spec-mary",
		"people.liken.sh/source":  "nfs://" + deadServer("spec-mary") + "/photos/spec-mary.png",
		"people.liken.sh/checked": "x",
	}, pod.Annotations)
	require.Len(t, pod.OwnerReferences, 1)
	assert.Equal(t, p.UID, pod.OwnerReferences[0].UID)
	assert.Equal(t, "Person", pod.OwnerReferences[0].Kind)

	s := pod.Spec
	assert.Equal(t, corev1.RestartPolicyNever, s.RestartPolicy)
	assert.Equal(t, ptr.To(false), s.AutomountServiceAccountToken)
	assert.Equal(t, ptr.To(false), s.EnableServiceLinks)
	require.Len(t, s.Volumes, 1, "no service account token volume either")
	assert.Equal(t, corev1.Volume{Name: "source", VolumeSource: corev1.VolumeSource{
		NFS: &corev1.NFSVolumeSource{Server: deadServer("spec-mary"), Path: "/photos", ReadOnly: true},
	}}, s.Volumes[0])
	require.Len(t, s.Containers, 1)
	c := s.Containers[0]
	assert.Equal(t, "bake", c.Name)
	assert.Equal(t, testImage, c.Image)
	assert.Equal(t, []string{"bake", "/source/spec-mary.png", avatar.Hex(avatar.Colour("spec-mary"))}, c.Args)
	assert.Equal(t, []corev1.VolumeMount{{Name: "source", MountPath: "/source", ReadOnly: true}}, c.VolumeMounts)
	assert.Empty(t, c.Env)
	assert.Equal(t, "10m", ptr.To(c.Resources.Requests[corev1.ResourceCPU]).String())
	assert.Equal(t, "32Mi", ptr.To(c.Resources.Requests[corev1.ResourceMemory]).String())
	assert.Equal(t, "384Mi", ptr.To(c.Resources.Limits[corev1.ResourceMemory]).String())
	sc := c.SecurityContext
	require.NotNil(t, sc)
	assert.Equal(t, kube.BakerSecurity(), sc, "what the restricted Pod Security Standard admits")
	assert.Equal(t, localstack.NodeName, waitForScheduled(t, pod), "the scheduler placed it on the fake node")

	deletePerson(t, p.Name)
	select {
	case out := <-done:
		assert.True(t, out.Gone)
	case <-time.After(30 * time.Second):
		t.Fatal("the bake did not end")
	}
}

func waitForScheduled(t *testing.T, pod *corev1.Pod) string {
	t.Helper()
	var node string
	require.Eventually(t, func() bool {
		p, err := env.Kube.CoreV1().Pods(pod.Namespace).Get(context.Background(), pod.Name, metav1.GetOptions{})
		if err == nil {
			node = p.Spec.NodeName
		}
		return node != ""
	}, 30*time.Second, 50*time.Millisecond)
	return node
}

func (b bakery) aWorkerWithoutAnImageSaysSo(t *testing.T) {
	p := createPerson(t, "noimage-anita", peoplev1.PersonSpec{DisplayName: "Anita Borg", Avatar: "nfs://files.example/photos/people/hedy.png"}, nil)
	a := newActivities()
	a.People.BakerImage = ""
	out := mustBake(t, a, p.Name, false)
	assert.Equal(t, "BakeFailed", out.Reason)
	assert.Contains(t, avatarReady(t, readPerson(t, p.Name)).Message, "--baker-image")
	assert.Empty(t, podsOf(t, p.Name))
}

func (b bakery) aMissingClaimIsToldBeforeAMissingImage(t *testing.T) {
	a := newActivities()
	a.People.BakerImage = ""
	for _, c := range []struct{ person, avatar, want string }{
		{"order-ida", "claim://no-such-lab/pictures/ida.png", "the namespace no-such-lab does not exist"},
		{"order-edith", "claim://lab/no-such-claim/edith.png", "the PersistentVolumeClaim lab/no-such-claim does not exist: " +
			"create it, or name another claim in claim://<namespace>/<claim>/<path>"},
	} {
		p := createPerson(t, c.person, peoplev1.PersonSpec{DisplayName: "Ida Rhodes", Avatar: c.avatar}, nil)
		out := mustBake(t, a, p.Name, false)
		assert.Equal(t, "BakeFailed", out.Reason)
		p = readPerson(t, p.Name)
		assert.Equal(t, c.want, avatarReady(t, p).Message)
		assert.Equal(t, c.want, eventWith(t, p, "BakeFailed").Message)
		assert.Empty(t, podsOf(t, p.Name), "no pod was created")
	}
}

func TestWhatKeepsABakeFromStartingIsToldInTheOrderThatHelps(t *testing.T) {
	claim := avatar.Source{Kind: avatar.KindClaim, Namespace: "people", Claim: "portraits", Path: "grace.png"}
	nfs := avatar.Source{Kind: avatar.KindNFS, Server: "files", Dir: "/photos", File: "grace.png"}
	for _, c := range []struct {
		src                 avatar.Source
		nsFound, claimFound bool
		image, want         string
	}{
		{claim, false, false, "", "the namespace people does not exist"},
		{claim, true, false, "", "the PersistentVolumeClaim people/portraits does not exist: create it, or name another claim in claim://<namespace>/<claim>/<path>"},
		{claim, true, true, "", errNoImage.Error()},
		{claim, true, true, "runner:1", ""},
		{nfs, true, true, "", errNoImage.Error()},
		{nfs, true, true, "runner:1", ""},
	} {
		if got := bakeBlocker(c.src, c.nsFound, c.claimFound, c.image); got != c.want {
			t.Errorf("bakeBlocker(%s, ns %v, claim %v, image %q) = %q, want %q", c.src.Kind, c.nsFound, c.claimFound, c.image, got, c.want)
		}
	}
}
