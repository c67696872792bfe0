// The test kubelet's own rules, without a cluster: how it answers the API server's log
// requests and where it looks for a pod's volume. Its work with a real API server is proved
// by the activities' bake tests, which cannot pass without it.
package bakerkubelet

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTheLogIsServedAsTheAPIServerAsksForIt(t *testing.T) {
	k := &Kubelet{logs: map[string]podLog{"lab/avatar-ada/bake": {log: []byte("0123456789\n")}}}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /containerLogs/{namespace}/{pod}/{container}", k.serveLog)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	for _, tc := range []struct {
		path   string
		status int
		body   string
	}{
		{"/containerLogs/lab/avatar-ada/bake", 200, "0123456789\n"},
		{"/containerLogs/lab/avatar-ada/bake?limitBytes=4", 200, "0123"},
		{"/containerLogs/lab/avatar-ada/bake?limitBytes=1048576", 200, "0123456789\n"},
		{"/containerLogs/lab/avatar-ada/bake?limitBytes=0", 400, ""},
		{"/containerLogs/lab/avatar-ada/other", 404, ""},
		{"/containerLogs/lab/avatar-grace/bake", 404, ""},
	} {
		resp, err := http.Get(srv.URL + tc.path)
		require.NoError(t, err)
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		assert.Equal(t, tc.status, resp.StatusCode, tc.path)
		if tc.status == 200 {
			assert.Equal(t, tc.body, string(body), tc.path)
		}
	}
}

func TestAPodsVolumeIsAFolderThatMustExist(t *testing.T) {
	dir := t.TempDir()
	k := &Kubelet{o: Options{Volumes: dir}}
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "lab", "pictures"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "nfs", "files.example", "photos", "people"), 0o755))
	pod := func(ns string, v corev1.VolumeSource) *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metaNS(ns),
			Spec:       corev1.PodSpec{Volumes: []corev1.Volume{{Name: "source", VolumeSource: v}}},
		}
	}
	for _, tc := range []struct {
		pod    *corev1.Pod
		want   string
		exists bool
	}{
		{pod("lab", corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "pictures"}}),
			filepath.Join(dir, "lab", "pictures"), true},
		{pod("lab", corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "gone"}}),
			filepath.Join(dir, "lab", "gone"), false},
		{pod("liken-system", corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: "files.example", Path: "/photos/people"}}),
			filepath.Join(dir, "nfs", "files.example", "photos", "people"), true},
		{pod("liken-system", corev1.VolumeSource{NFS: &corev1.NFSVolumeSource{Server: "dead.example", Path: "/photos"}}),
			filepath.Join(dir, "nfs", "dead.example", "photos"), false},
		{pod("lab", corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}), "", false},
	} {
		got, ok := k.volumeDir(tc.pod)
		assert.Equal(t, tc.want, got)
		assert.Equal(t, tc.exists, ok, tc.want)
	}
}

func metaNS(ns string) metav1.ObjectMeta { return metav1.ObjectMeta{Namespace: ns, Name: "avatar-x"} }
