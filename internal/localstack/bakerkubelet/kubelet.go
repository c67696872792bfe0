// Package bakerkubelet plays the kubelet's part of a baker pod on the local stack's fake node,
// so that the worker's production code runs unchanged in tests: it creates a real pod through
// the API server, waits for its phase through the API server, and reads its log through the
// API server's pods/log proxy. kwok makes pods Running but runs nothing; this runs the baker.
//
// For each baker pod bound to the node, once kwok has marked it Running, it maps the pod's
// `source` volume to a local folder (a claim to <dir>/<namespace>/<claim>, an NFS export to
// <dir>/nfs/<server>/<path>), runs the project's own worker binary with the container's
// arguments (`bake /source/<file> <#rrggbb>`, with /source pointing at that folder), keeps what
// it prints as the container's log, and sets the pod Succeeded or Failed with the container's
// exit code, as a kubelet does. A pod whose folder does not exist stays Running, like a pod
// stuck on a dead NFS server: that is how a bake's deadline is tested.
//
// The log is served where the API server looks for it: an HTTPS server on the node's kubelet
// port, answering GET /containerLogs/{namespace}/{pod}/{container} with limitBytes honoured.
package bakerkubelet

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"

	"liken.sh/runner/internal/localstack"
	"liken.sh/runner/kube"
	"liken.sh/runner/pictures/avatar"
)

// Options says where the kubelet runs and what it runs.
type Options struct {
	// Kube reaches the API server with rights to read pods and write their status.
	Kube kubernetes.Interface
	// Port is the fake node's kubelet port (the stack's KubeletPort), on 127.0.0.1.
	Port int
	// Node is the fake node whose pods are run.
	Node string
	// Volumes is the folder that stands in for the volumes pods mount.
	Volumes string
	// Worker is the project's worker binary, which bakes with its `bake` subcommand.
	Worker string
	// Held keeps every container from starting until Release: for a test that must act
	// while a baker pod runs.
	Held bool
}

// Kubelet runs baker pods until Stop.
type Kubelet struct {
	o      Options
	ctx    context.Context
	cancel context.CancelFunc
	srv    *http.Server
	wg     sync.WaitGroup

	released chan struct{} // closed by Release (or at once when not Held)

	mu      sync.Mutex
	running map[types.UID]context.CancelFunc // pods being baked, or hung, by UID
	logs    map[string]podLog                // container logs by namespace/pod/container
	ran     map[string][]types.UID           // the pods run under each namespace/name
}

type podLog struct {
	uid types.UID
	log []byte
}

// Release lets the containers of a Held kubelet start.
func (k *Kubelet) Release() {
	k.mu.Lock()
	defer k.mu.Unlock()
	select {
	case <-k.released:
	default:
		close(k.released)
	}
}

// Start serves the node's kubelet port and starts running the node's baker pods.
func Start(o Options) (*Kubelet, error) {
	if o.Kube == nil || o.Port == 0 || o.Node == "" || o.Volumes == "" || o.Worker == "" {
		return nil, errors.New("bakerkubelet: Kube, Port, Node, Volumes and Worker are all needed")
	}
	// The API server of the local stack does not verify kubelets' certificates (it has no
	// --kubelet-certificate-authority): a certificate of its own will do.
	cert, err := localstack.NewCertificate("bakerkubelet", nil, func(c *x509.Certificate) {
		c.ExtKeyUsage, c.IPAddresses = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, []net.IP{net.IPv4(127, 0, 0, 1)}
	})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(o.Port)))
	if err != nil {
		return nil, fmt.Errorf("bakerkubelet: listen on the kubelet port: %w", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	k := &Kubelet{
		o: o, ctx: ctx, cancel: cancel,
		released: make(chan struct{}),
		running:  map[types.UID]context.CancelFunc{},
		logs:     map[string]podLog{},
		ran:      map[string][]types.UID{},
	}
	if !o.Held {
		close(k.released)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /containerLogs/{namespace}/{pod}/{container}", k.serveLog)
	k.srv = &http.Server{
		Handler:           mux,
		TLSConfig:         &tls.Config{Certificates: []tls.Certificate{cert}},
		ReadHeaderTimeout: 10 * time.Second,
	}
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		_ = k.srv.ServeTLS(ln, "", "")
	}()

	factory := informers.NewSharedInformerFactoryWithOptions(o.Kube, 0, informers.WithTweakListOptions(func(lo *metav1.ListOptions) {
		lo.FieldSelector = fields.OneTermEqualSelector("spec.nodeName", o.Node).String()
		lo.LabelSelector = kube.BakerSelector
	}))
	pods := factory.Core().V1().Pods().Informer()
	if _, err := pods.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { k.consider(obj) },
		UpdateFunc: func(_, obj any) { k.consider(obj) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if pod, ok := obj.(*corev1.Pod); ok {
				k.kill(pod.UID)
			}
		},
	}); err != nil {
		k.Stop()
		return nil, err
	}
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), pods.HasSynced) {
		k.Stop()
		return nil, errors.New("bakerkubelet: the pod informer did not sync")
	}
	k.wg.Add(1)
	go func() { defer k.wg.Done(); <-ctx.Done(); factory.Shutdown() }()
	return k, nil
}

// Stop kills the bakes in progress and stops serving.
func (k *Kubelet) Stop() {
	k.cancel()
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = k.srv.Shutdown(sctx)
	k.wg.Wait()
}

// ClaimDir is the folder that stands in for the claim's volume.
func (k *Kubelet) ClaimDir(namespace, claim string) string {
	return filepath.Join(k.o.Volumes, namespace, claim)
}

// NFSDir is the folder that stands in for the NFS export server:path.
func (k *Kubelet) NFSDir(server, path string) string {
	return filepath.Join(k.o.Volumes, "nfs", server, filepath.FromSlash(path))
}

// Log is the log of a pod's container as the kubelet keeps it, for a test's messages.
func (k *Kubelet) Log(namespace, pod, container string) []byte {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.logs[namespace+"/"+pod+"/"+container].log
}

// Ran lists the UIDs of the pods of this name whose container this kubelet started, in order:
// a test tells an adopted pod from a new one by it.
func (k *Kubelet) Ran(namespace, pod string) []types.UID {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]types.UID(nil), k.ran[namespace+"/"+pod]...)
}

// consider starts a Running baker pod that has not been started yet.
func (k *Kubelet) consider(obj any) {
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return
	}
	if pod.DeletionTimestamp != nil {
		k.kill(pod.UID)
		return
	}
	if pod.Status.Phase != corev1.PodRunning {
		return
	}
	k.mu.Lock()
	if _, started := k.running[pod.UID]; started || k.ctx.Err() != nil {
		k.mu.Unlock()
		return
	}
	ctx, cancel := context.WithCancel(k.ctx)
	k.running[pod.UID] = cancel
	k.mu.Unlock()

	dir, ok := k.volumeDir(pod)
	if !ok {
		// A mount that never comes: the container never starts and the pod stays Running.
		return
	}
	pod = pod.DeepCopy()
	k.mu.Lock()
	k.ran[pod.Namespace+"/"+pod.Name] = append(k.ran[pod.Namespace+"/"+pod.Name], pod.UID)
	k.mu.Unlock()
	k.wg.Add(1)
	go func() {
		defer k.wg.Done()
		k.run(ctx, pod, dir)
	}()
}

func (k *Kubelet) kill(uid types.UID) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if cancel, ok := k.running[uid]; ok {
		cancel()
	}
}

// volumeDir is the local folder of the pod's source volume, if it exists.
func (k *Kubelet) volumeDir(pod *corev1.Pod) (string, bool) {
	for _, v := range pod.Spec.Volumes {
		if v.Name != kube.BakerVolume {
			continue
		}
		var dir string
		switch {
		case v.PersistentVolumeClaim != nil:
			dir = k.ClaimDir(pod.Namespace, v.PersistentVolumeClaim.ClaimName)
		case v.NFS != nil:
			dir = k.NFSDir(v.NFS.Server, v.NFS.Path)
		default:
			return "", false
		}
		info, err := os.Stat(dir)
		return dir, err == nil && info.IsDir()
	}
	return "", false
}

// run runs the bake container as the node would, and reports how it ended.
func (k *Kubelet) run(ctx context.Context, pod *corev1.Pod, dir string) {
	var c *corev1.Container
	for i := range pod.Spec.Containers {
		if pod.Spec.Containers[i].Name == kube.BakerContainer {
			c = &pod.Spec.Containers[i]
		}
	}
	if c == nil {
		return
	}
	mount := avatar.BakerMount + "/"
	args := make([]string, len(c.Args))
	for i, a := range c.Args {
		if rest, ok := strings.CutPrefix(a, mount); ok {
			a = filepath.Join(dir, filepath.FromSlash(rest))
		}
		args[i] = a
	}
	select {
	case <-k.released:
	case <-ctx.Done():
		return
	}
	started := metav1.Now()
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, k.o.Worker, args...)
	// A container's log holds both of its streams, as a container runtime keeps them.
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Env = []string{}
	err := cmd.Run()
	if ctx.Err() != nil {
		return // the pod was deleted, or the kubelet stopped
	}
	code := 0
	var exit *exec.ExitError
	switch {
	case errors.As(err, &exit):
		code = exit.ExitCode()
	case err != nil:
		code = 128
		fmt.Fprintf(&out, "bakerkubelet: %v\n", err)
	}
	// Inside the pod the file is under /source; say so in its log as the real pod would.
	log := bytes.ReplaceAll(out.Bytes(), []byte(dir+string(filepath.Separator)), []byte(mount))

	k.mu.Lock()
	k.logs[pod.Namespace+"/"+pod.Name+"/"+c.Name] = podLog{uid: pod.UID, log: log}
	k.mu.Unlock()
	k.finish(ctx, pod, c, code, started)
}

// finish sets the pod's phase and its container's terminated state.
func (k *Kubelet) finish(ctx context.Context, pod *corev1.Pod, c *corev1.Container, code int, started metav1.Time) {
	pods := k.o.Kube.CoreV1().Pods(pod.Namespace)
	_ = retry.OnError(retry.DefaultBackoff, func(err error) bool { return !apierrors.IsNotFound(err) && ctx.Err() == nil }, func() error {
		cur, err := pods.Get(ctx, pod.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if cur.UID != pod.UID || cur.DeletionTimestamp != nil {
			return nil
		}
		now := metav1.Now()
		phase, reason := corev1.PodSucceeded, "Completed"
		if code != 0 {
			phase, reason = corev1.PodFailed, "Error"
		}
		cur.Status.Phase = phase
		cur.Status.ContainerStatuses = []corev1.ContainerStatus{{
			Name:    c.Name,
			Image:   c.Image,
			ImageID: c.Image,
			Ready:   false,
			Started: new(bool),
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
				ExitCode: int32(code), Reason: reason, StartedAt: started, FinishedAt: now,
			}},
		}}
		for i := range cur.Status.Conditions {
			switch cur.Status.Conditions[i].Type {
			case corev1.PodReady, corev1.ContainersReady:
				cur.Status.Conditions[i].Status = corev1.ConditionFalse
				cur.Status.Conditions[i].Reason = "PodCompleted"
				cur.Status.Conditions[i].LastTransitionTime = now
			}
		}
		_, err = pods.UpdateStatus(ctx, cur, metav1.UpdateOptions{FieldManager: "bakerkubelet"})
		return err
	})
}

// serveLog answers the API server's pods/log proxy.
func (k *Kubelet) serveLog(w http.ResponseWriter, r *http.Request) {
	key := r.PathValue("namespace") + "/" + r.PathValue("pod") + "/" + r.PathValue("container")
	k.mu.Lock()
	l, ok := k.logs[key]
	k.mu.Unlock()
	if !ok {
		// A container that has not run has no log file yet; a kubelet says so.
		http.Error(w, "container "+r.PathValue("container")+" of "+key+" has no log yet", http.StatusNotFound)
		return
	}
	log := l.log
	if v := r.URL.Query().Get("limitBytes"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			http.Error(w, "limitBytes must be a positive integer", http.StatusBadRequest)
			return
		}
		if int64(len(log)) > n {
			log = log[:n]
		}
	}
	w.Header().Set("Content-Type", "text/plain")
	_, _ = w.Write(log)
}
