// The driver on one node: it registers with the kubelet as serial.liken.sh, publishes the
// node's devices as its ResourceSlice whenever a scan finds them changed (a device plugged in
// or pulled out), and prepares the devices allocated to a claim by writing their CDI spec.
// What it prepared lives in the CDI folder on the host, named by claim, so a restarted driver
// unprepares what an earlier one prepared.
package dra

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/dynamic-resource-allocation/kubeletplugin"
)

// DriverName is the driver's name in slices, claims and the DeviceClass of deploy/devices.
const DriverName = "serial.liken.sh"

// Driver is the driver of one node.
type Driver struct {
	Node   string
	Roots  Roots
	CDIDir string // where the container runtime reads CDI specs
	// KubeletDir is the kubelet's root folder: it finds drivers in plugins_registry.
	KubeletDir string
	Every      time.Duration // how often to look for devices
	Log        *slog.Logger

	fatal    func(error)
	mu       sync.Mutex
	seen     []Device
	notReady atomic.Pointer[string] // why the driver is not ready; nil once it is
}

// Ready says whether the kubelet has registered the driver and its slice is published, and
// if not, why: what a readiness probe reports.
func (d *Driver) Ready() error {
	if why := d.notReady.Load(); why != nil {
		return errors.New(*why)
	}
	return nil
}

func (d *Driver) setNotReady(why string) {
	if why == "" {
		d.notReady.Store(nil)
		return
	}
	d.notReady.Store(&why)
}

// Run registers with the kubelet and keeps the node's slice current until ctx ends or the
// helper meets an error it cannot recover from.
func (d *Driver) Run(ctx context.Context, kube kubernetes.Interface) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	d.fatal = cancel
	d.setNotReady("starting")
	plugin := filepath.Join(d.KubeletDir, "plugins", DriverName)
	if err := os.MkdirAll(plugin, 0o750); err != nil {
		return fmt.Errorf("make the driver's folder for the kubelet: %w", err)
	}
	helper, err := kubeletplugin.Start(ctx, d,
		kubeletplugin.DriverName(DriverName),
		kubeletplugin.KubeClient(kube),
		kubeletplugin.NodeName(d.Node),
		kubeletplugin.RegistrarDirectoryPath(filepath.Join(d.KubeletDir, "plugins_registry")),
		kubeletplugin.PluginDataDirectoryPath(plugin),
		kubeletplugin.HealthService(false),
	)
	if err != nil {
		return fmt.Errorf("register with the kubelet: %w", err)
	}
	defer helper.Stop()
	d.Log.Info("registered with the kubelet", "node", d.Node, "kubeletDir", d.KubeletDir, "cdiDir", d.CDIDir)
	published := false
	for {
		if devs, changed := d.rescan(); changed || !published {
			if err := helper.PublishResources(ctx, Resources(d.Node, devs)); err != nil {
				return fmt.Errorf("publish the node's devices: %w", err)
			}
			published = true
		}
		d.setNotReady(registration(helper))
		select {
		case <-ctx.Done():
			if err := context.Cause(ctx); !errors.Is(err, context.Canceled) {
				return err
			}
			return nil
		case <-time.After(d.Every):
		}
	}
}

// registration says why the kubelet has not registered the driver yet, "" once it has.
func registration(h *kubeletplugin.Helper) string {
	switch st := h.RegistrationStatus(); {
	case st == nil:
		return "waiting for the kubelet to register the driver"
	case !st.PluginRegistered:
		return "the kubelet refused the driver: " + st.Error
	}
	return ""
}

// rescan looks at the node's devices and says whether they changed since the last look,
// logging each one plugged in or pulled out.
func (d *Driver) rescan() ([]Device, bool) {
	devs, err := Scan(d.Roots)
	if err != nil {
		d.Log.Error("cannot list the node's devices", "err", err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err != nil || slices.Equal(devs, d.seen) {
		return d.seen, false
	}
	for _, dev := range devs {
		if !slices.Contains(d.seen, dev) {
			d.Log.Info("device plugged in", "device", dev.Name, "path", dev.Path, "vendorID", dev.VendorID, "productID", dev.ProductID, "serial", dev.Serial)
		}
	}
	for _, dev := range d.seen {
		if !slices.Contains(devs, dev) {
			d.Log.Info("device pulled out", "device", dev.Name, "path", dev.Path)
		}
	}
	d.seen = devs
	return devs, true
}

// PrepareResourceClaims writes the CDI spec of each claim's devices on this node.
func (d *Driver) PrepareResourceClaims(ctx context.Context, claims []*resourceapi.ResourceClaim) (map[types.UID]kubeletplugin.PrepareResult, error) {
	devs, _ := d.rescan()
	out := make(map[types.UID]kubeletplugin.PrepareResult, len(claims))
	for _, c := range claims {
		res, mine, err := Allocated(c, d.Node, devs)
		if err == nil {
			err = writeCDISpec(d.CDIDir, string(c.UID), mine)
		}
		if err != nil {
			d.Log.Error("cannot prepare a claim", "claim", c.Namespace+"/"+c.Name, "err", err)
			out[c.UID] = kubeletplugin.PrepareResult{Err: err}
			continue
		}
		d.Log.Info("prepared a claim", "claim", c.Namespace+"/"+c.Name, "devices", len(mine))
		out[c.UID] = kubeletplugin.PrepareResult{Devices: res}
	}
	return out, nil
}

// UnprepareResourceClaims removes the claims' CDI specs.
func (d *Driver) UnprepareResourceClaims(ctx context.Context, claims []kubeletplugin.NamespacedObject) (map[types.UID]error, error) {
	out := make(map[types.UID]error, len(claims))
	for _, c := range claims {
		out[c.UID] = removeCDISpec(d.CDIDir, string(c.UID))
		d.Log.Info("unprepared a claim", "claim", c.String(), "err", out[c.UID])
	}
	return out, nil
}

// HandleError logs what went wrong in the background (publishing the slice while the API
// server is away is retried by the helper) and stops the driver on what cannot recover.
func (d *Driver) HandleError(ctx context.Context, err error, msg string) {
	d.Log.Error(msg, "err", err)
	if !errors.Is(err, kubeletplugin.ErrRecoverable) && d.fatal != nil {
		d.fatal(fmt.Errorf("%s: %w", msg, err))
	}
}

// WatchHealthStatus is not served: the driver turns the health service off.
func (d *Driver) WatchHealthStatus(context.Context, chan<- kubeletplugin.DeviceHealthReport) error {
	return kubeletplugin.ErrHealthNotSupported
}
