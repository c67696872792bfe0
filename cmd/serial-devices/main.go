// Command serial-devices is the runner's DRA driver (package dra) for the serial ports and USB
// devices plugged into a node: deploy/devices runs it as a DaemonSet, and a device's
// spec.claim selects one of its devices through the DeviceClass serial.liken.sh. It waits for
// the API server and the kubelet as long as they take (a site after a power cut starts
// everything at once) and stops on SIGTERM, leaving the CDI specs of running pods in place
// for the next copy.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"liken.sh/runner/dra"
	"liken.sh/runner/internal/version"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "serial-devices:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("serial-devices", flag.ContinueOnError)
	d := dra.Driver{Roots: dra.HostRoots}
	var kubeconfig string
	fs.StringVar(&d.Node, "node", os.Getenv("NODE_NAME"), "the node this copy serves (NODE_NAME)")
	fs.StringVar(&d.KubeletDir, "kubelet-dir", "/var/lib/kubelet", "the kubelet's root folder")
	fs.StringVar(&d.CDIDir, "cdi-dir", "/var/run/cdi", "the folder the container runtime reads CDI specs from")
	fs.StringVar(&d.Roots.Dev, "dev", d.Roots.Dev, "the node's /dev")
	fs.StringVar(&d.Roots.Sys, "sys", d.Roots.Sys, "the node's /sys")
	fs.StringVar(&d.Roots.ByID, "by-id", d.Roots.ByID, "the folder of the serial ports' stable links")
	fs.DurationVar(&d.Every, "every", 2*time.Second, "how often to look for devices plugged in or pulled out")
	fs.StringVar(&kubeconfig, "kubeconfig", "", "a kubeconfig, outside a cluster")
	health := fs.String("health-address", ":8081", "where /healthz and /readyz (registered with the kubelet, devices published) answer")
	printVersion := fs.Bool("version", false, "print the build and exit")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *printVersion {
		fmt.Println(version.Get().String())
		return nil
	}
	if d.Node == "" {
		return fmt.Errorf("no --node: set NODE_NAME from the pod's spec.nodeName")
	}
	d.Log = slog.New(slog.NewJSONHandler(os.Stderr, nil)).With("component", "serial-devices")
	cfg, err := restConfig(kubeconfig)
	if err != nil {
		return err
	}
	kube, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGINT)
	defer stop()
	d.Log.Info("starting", "version", version.Get().String(), "node", d.Node)
	go serveHealth(*health, &d)
	return d.Run(ctx, kube)
}

// serveHealth answers the kubelet's probes: /readyz says why the driver is not ready.
func serveHealth(addr string, d *dra.Driver) {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { fmt.Fprintln(w, "ok") })
	mux.HandleFunc("/readyz", func(w http.ResponseWriter, _ *http.Request) {
		if err := d.Ready(); err != nil {
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		fmt.Fprintln(w, "ok")
	})
	srv := &http.Server{Addr: addr, Handler: mux, ReadHeaderTimeout: 5 * time.Second}
	if err := srv.ListenAndServe(); err != nil {
		d.Log.Error("cannot serve the health endpoints", "address", addr, "err", err)
	}
}

func restConfig(kubeconfig string) (*rest.Config, error) {
	if kubeconfig != "" {
		return clientcmd.BuildConfigFromFlags("", kubeconfig)
	}
	return rest.InClusterConfig()
}
