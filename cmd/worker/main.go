// Command worker runs the workflows and activities on a Temporal task queue. Run as many
// replicas as you like: Temporal hands each task to one of them, so no leader is needed.
//
// The same binary bakes pictures in baker pods: `worker bake <file> <#rrggbb>` reads one
// file, prints one JSON line and exits, so the operator's image is the only image it runs.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"go.temporal.io/sdk/worker"
	"k8s.io/client-go/kubernetes"

	"liken.sh/runner/activities"
	"liken.sh/runner/internal/app"
	"liken.sh/runner/pictures"
	"liken.sh/runner/workflows"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "bake" {
		os.Exit(pictures.BakeMain(os.Args[2:], os.Stdout))
	}
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	var cfg app.Config
	fs := flag.NewFlagSet("worker", flag.ContinueOnError)
	cfg.Flags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	log, err := cfg.Logger("worker")
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()

	rc, err := cfg.RESTConfig()
	if err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return err
	}
	tc, err := cfg.Temporal(log)
	if err != nil {
		return err
	}
	defer tc.Close()

	w := worker.New(tc, cfg.TaskQueue, worker.Options{
		// Under a burst the default 5 s sticky timeout sends workflow tasks back to the
		// shared queue and causes minute-long tails (measured in the project's notes).
		StickyScheduleToStartTimeout: time.Minute,
	})
	workflows.Register(w, &activities.Activities{Kube: kube, Now: time.Now})

	var health app.Health
	health.Check("temporal", app.TemporalReady(tc))
	if _, err := health.Serve(ctx, cfg.HealthAddress, log); err != nil {
		return err
	}
	if err := w.Start(); err != nil {
		return fmt.Errorf("start polling task queue %s at %s: %w", cfg.TaskQueue, cfg.TemporalAddress, err)
	}
	log.Info("polling", "taskQueue", cfg.TaskQueue, "temporal", cfg.TemporalAddress, "namespace", cfg.TemporalNamespace)
	<-ctx.Done()
	log.Info("stopping: finishing the tasks in hand")
	w.Stop()
	log.Info("stopped")
	return nil
}
