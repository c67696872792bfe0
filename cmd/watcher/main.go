// Command watcher turns changes in the cluster into Temporal workflow signals. Only the copy
// that holds the Lease acts; the others wait to take over.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/client-go/kubernetes"

	"liken.sh/runner/internal/app"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "watcher:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	var cfg app.Config
	fs := flag.NewFlagSet("watcher", flag.ContinueOnError)
	cfg.Flags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	log, err := cfg.Logger("watcher")
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

	var health app.Health
	health.Check("temporal", app.TemporalReady(tc))
	health.Check("kubernetes", func(ctx context.Context) error {
		_, err := kube.Discovery().ServerVersion()
		return err
	})
	if _, err := health.Serve(ctx, cfg.HealthAddress, log); err != nil {
		return err
	}
	log.Info("watching", "temporal", cfg.TemporalAddress, "namespace", cfg.TemporalNamespace, "taskQueue", cfg.TaskQueue)
	<-ctx.Done()
	log.Info("stopped")
	return nil
}
