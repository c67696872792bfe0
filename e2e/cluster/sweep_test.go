// What a killed node leaves behind: the next start removes every process and container of a
// SIGKILLed node, and a second real node on the machine is refused while the first runs on.
package cluster

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"

	"liken.sh/runner/build/images"
	"liken.sh/runner/internal/localstack"
)

// doomedNodeEnv makes the test binary a process that starts a real node with one pod and
// waits to be killed.
const doomedNodeEnv = "LIKEN_CLUSTER_DOOMED_NODE"

// doomed is the node TestMain had a process start and then SIGKILLed.
var doomed struct {
	dir        string // its node folder
	leftovers  int    // processes of it still alive after the kill
	containers bool   // its pod's container was running
}

// killANode runs the doomed node in a child process, SIGKILLs the child once its pod runs,
// and notes what the kill left: containerd's shims and the pod's processes outlive it.
func killANode() error {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), doomedNodeEnv+"=1")
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	line := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if dir, ok := strings.CutPrefix(sc.Text(), "ready "); ok {
				line <- dir
				return
			}
		}
		close(line)
	}()
	select {
	case dir, ok := <-line:
		cmd.Process.Kill()
		cmd.Wait()
		if !ok {
			return errors.New("the doomed node did not start")
		}
		doomed.dir = dir
		doomed.leftovers = len(processesUnder(dir))
		// Its control plane's files go now; its node folder is for the sweep to remove.
		parent := filepath.Dir(dir)
		entries, _ := os.ReadDir(parent)
		for _, e := range entries {
			if e.Name() != filepath.Base(dir) {
				os.RemoveAll(filepath.Join(parent, e.Name()))
			}
		}
		return nil
	case <-time.After(3 * time.Minute):
		cmd.Process.Kill()
		cmd.Wait()
		return errors.New("the doomed node did not start within 3 minutes")
	}
}

// runDoomedNode is the child: a node with a pod of the pause image, then nothing.
func runDoomedNode() int {
	fail := func(err error) int { fmt.Fprintln(os.Stderr, "doomed node:", err); return 1 }
	dir, err := os.MkdirTemp("", "liken-doomed-")
	if err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	s, err := localstack.Start(ctx, localstack.Options{Dir: dir, Cache: localstack.Cache(), Node: true,
		Log: slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))})
	if err != nil {
		return fail(err)
	}
	cfg, err := clientcmd.BuildConfigFromFlags("", s.Kubeconfig)
	if err != nil {
		return fail(err)
	}
	kube := kubernetes.NewForConfigOrDie(cfg)
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "doomed", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name: "pause", Image: images.PauseImage, Command: []string{"/pause"},
		}}},
	}
	if _, err := kube.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		return fail(err)
	}
	for {
		p, err := kube.CoreV1().Pods("default").Get(ctx, "doomed", metav1.GetOptions{})
		if err == nil && p.Status.Phase == corev1.PodRunning {
			break
		}
		select {
		case <-ctx.Done():
			return fail(fmt.Errorf("its pod did not run: %v", ctx.Err()))
		case <-time.After(200 * time.Millisecond):
		}
	}
	fmt.Printf("ready %s\n", s.Node.Dir)
	select {}
}

// processesUnder lists the pids whose command line names dir.
func processesUnder(dir string) []string {
	var pids []string
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && bytes.Contains(b, []byte(dir)) {
			pids = append(pids, filepath.Base(filepath.Dir(p)))
		}
	}
	return pids
}

// TestAStartAfterAKilledNodeRemovesEverythingItLeft: the node of a SIGKILLed parent left
// its shims and its pod running; this package's start removed them, and its folder.
func TestAStartAfterAKilledNodeRemovesEverythingItLeft(t *testing.T) {
	require.NotEmpty(t, doomed.dir)
	assert.Positive(t, doomed.leftovers, "the kill left processes of the doomed node (else this test proves nothing)")
	assert.Empty(t, processesUnder(doomed.dir), "no process of the doomed node is left")
	_, err := os.Stat(doomed.dir)
	assert.ErrorIs(t, err, os.ErrNotExist, "the doomed node's folder is gone")
	t.Logf("the kill left %d processes of the doomed node; the start removed them", doomed.leftovers)
}

// removeOnceSwept removes the doomed node's temporary folder, dir's parent, once the package's
// start has swept dir, whichever tests run.
func removeOnceSwept(dir string) {
	for {
		if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
			os.Remove(filepath.Dir(dir))
			return
		}
		time.Sleep(time.Second)
	}
}

// TestASecondRealNodeIsRefusedAndTheFirstRunsOn: a second start on the machine fails,
// saying why, and leaves the running node alone.
func TestASecondRealNodeIsRefusedAndTheFirstRunsOn(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := localstack.Start(ctx, localstack.Options{Dir: t.TempDir(), Cache: localstack.Cache(), Node: true})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "a real node already runs on this machine")
	assert.Contains(t, err.Error(), env.Stack.Node.Dir, "it names the running node's folder")

	n, err := env.Kube.CoreV1().Nodes().Get(ctx, localstack.RealNodeName, metav1.GetOptions{})
	require.NoError(t, err)
	ready := false
	for _, c := range n.Status.Conditions {
		ready = ready || (c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue)
	}
	assert.True(t, ready, "the running node is still Ready")
	out, err := env.Stack.Node.Ctr(ctx, "version")
	assert.NoError(t, err, "its containerd still answers: %s", out)
}
