// Command indi-shim runs in the INDI server pods (see indi/shim). Two ways to call it:
//
//	indi-shim serve <drivers file> <links folder> <fifo> <indiserver> [flags...]
//
// runs indiserver and starts and stops a driver for each <service>:<port> line that comes to
// or goes from the drivers file, without restarting indiserver; and, called through one of
// the links it makes (named <service>:<port>), it is that driver: indiserver's pipes carried
// over TCP to the device pod. Called through a link named site-guard, it is the site guard
// (indi/guard), which the observatory's server runs beside its devices. `indi-shim --version`
// prints its build.
package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"liken.sh/runner/indi/guard"
	"liken.sh/runner/indi/shim"
	"liken.sh/runner/internal/version"
)

const usage = "usage: indi-shim serve <drivers file> <links folder> <fifo> <indiserver> [flags...]"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if filepath.Base(os.Args[0]) == guard.Driver {
		if err := guard.Serve(ctx); err != nil {
			fmt.Fprintln(os.Stderr, guard.Driver+":", err)
			os.Exit(1)
		}
		return
	}
	if name := filepath.Base(os.Args[0]); shim.IsLinkName(name) {
		// indiserver prefixes what a driver writes on stderr with the driver's name.
		logf := func(f string, a ...any) { fmt.Fprintf(os.Stderr, f+"\n", a...) }
		if err := shim.Link(ctx, name, os.Stdin, os.Stdout, logf); err != nil {
			logf("%v", err)
			os.Exit(1)
		}
		return
	}
	if len(os.Args) == 2 && (os.Args[1] == "--version" || os.Args[1] == "-version") {
		fmt.Println(version.Line("liken-indi-shim"))
		return
	}
	if len(os.Args) < 6 || os.Args[1] != "serve" {
		fmt.Fprintln(os.Stderr, usage)
		os.Exit(2)
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "indi-shim:", err)
		os.Exit(1)
	}
	s := &shim.Server{
		DriversFile: os.Args[2], LinkDir: os.Args[3], Fifo: os.Args[4], Command: os.Args[5:],
		Self: self, Poll: time.Second,
		Log: slog.New(slog.NewTextHandler(os.Stderr, nil)).With("program", "indi-shim"),
	}
	s.Log.Info("starting", "version", version.Get().String())
	if err := s.Run(ctx); err != nil {
		s.Log.Error("indi-shim stops", "error", err)
		os.Exit(1)
	}
}
