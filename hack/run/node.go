// `make run NODE=1`: the same playground on a real node. The stack runs a real kubelet
// and containerd instead of kwok, the images are built here and pushed to the stack's
// registry, from which the node pulls them, and deploy/ is installed as a user installs it: the watchers, the worker and the bundled Temporal run as
// pods, and the example reservation's INDI servers and devices are real containers a person
// can reach with an INDI client. Needs root, and one real node per machine.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"liken.sh/runner/build/images"
	"liken.sh/runner/internal/localstack"
)

// nodeTag is the runner image's tag on the node (never latest, which the kubelet would pull again on every start).
const nodeTag = "local"

func runOnNode(ctx context.Context, log *slog.Logger, root, cache, dir string, uiPort int, session time.Duration) error {
	started := time.Now()
	type result struct {
		imgs []images.Image
		err  error
	}
	built := make(chan result, 1)
	go func() {
		imgs, err := localstack.NodeImages(ctx, root, cache, filepath.Join(dir, "image-programs"), nodeTag, images.VersionOf(root))
		built <- result{imgs, err}
	}()
	s, err := localstack.Start(ctx, localstack.Options{Dir: dir, Cache: cache, Node: true, Log: log})
	if err != nil {
		return err
	}
	defer s.Stop()
	b := <-built
	if b.err != nil {
		return fmt.Errorf("build the images: %w", b.err)
	}
	if err := s.Push(ctx, b.imgs); err != nil {
		return err
	}
	log.Info("the real node is up and has the images", "in", time.Since(started).Round(time.Millisecond))
	restricted := map[string]string{"pod-security.kubernetes.io/enforce": "restricted"}
	if err := s.Install(ctx, root, nodeTag, restricted); err != nil {
		return err
	}
	kube, err := s.Client()
	if err != nil {
		return err
	}
	kubectlOut := func(args ...string) error {
		if out, err := s.Kubectl(ctx, args...); err != nil {
			return fmt.Errorf("%w\n%s", err, out)
		}
		return nil
	}
	sessionEnd, err := exampleSession(ctx, kube, observatory{dir}, kubectlOut, root, session)
	if err != nil {
		return err
	}
	// The Web UI runs in the bundled Temporal's pod; a port-forward brings it to 127.0.0.1.
	kubectl := filepath.Join(cache, "kube-"+localstack.KubeVersion, "kubectl")
	ui := "http://127.0.0.1:" + strconv.Itoa(uiPort)
	if err := s.Spawn(ctx, localstack.Process{
		Name: "temporal-ui", Path: kubectl,
		Args:  []string{"--kubeconfig=" + s.Kubeconfig, "-n", localstack.OperatorNamespace, "port-forward", "svc/temporal-ui", strconv.Itoa(uiPort) + ":8233"},
		Ready: localstack.HTTPReady(ui),
	}); err != nil {
		return err
	}
	fmt.Printf(`
The local stack is up on a real node (in %s): deploy/ runs as pods of the images built here.

  export KUBECONFIG=%s
  %s get pods -o wide -A
  %s get people,astro -A

  Temporal UI:  %s
  INDI server:  %s -n observatory port-forward svc/east-telescope 7624   (then point KStars at 127.0.0.1:7624)
  Logs:         %s/{kubelet,containerd,kube-apiserver,...}.log, and kubectl logs

The example reservation observatory/tonight runs until %s, then deactivates and is Released.

Ctrl-C stops everything and removes the node's containers, network and files.
`, time.Since(started).Round(time.Second), s.Kubeconfig, kubectl, kubectl, ui, kubectl, dir, sessionEnd.Local().Format("15:04:05"))
	if err := s.Supervise(ctx); err != nil {
		return fmt.Errorf("%w; stopping everything", err)
	}
	fmt.Fprintln(os.Stderr, "\nstopping the real node and the stack")
	return nil
}
