// Package images builds, without Docker, every image the runner's pods run and pushes each
// to a registry as an index of its platforms. The project's own images are the runner's (the
// Dockerfile's layout), the INDI server's (indiserver behind indi-shim, socat and the core
// drivers), the simulators' and indi-open's; `make images` publishes them for linux/amd64
// and linux/arm64 (the Raspberry Pis beside the mounts). The INDI images are Debian bookworm's packages of
// one INDI version for each CPU, which hack/tools.sh extracts into the cache: what this
// machine has installed does not matter. The test world's real node adds, for its own
// platform only, the images a cluster gets elsewhere: the pod sandbox, the bundled Temporal's
// and busybox. Each image is one layer, so what a pod runs is exactly that list of files.
package images

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"liken.sh/runner/kube"
)

// The names of the images that are not the runner's own.
const (
	// PauseImage is the pod sandbox; the node's containerd config names it too.
	PauseImage = "registry.k8s.io/pause:3.10"
	// TemporalImage is deploy/temporal's server, the Temporal CLI's dev server.
	TemporalImage = "temporalio/temporal:1.5.1"
	// JobImage is what the tests' Job actions run: busybox, from Debian's busybox-static.
	JobImage = "busybox:1.35"
	// RunnerRepository is the runner's image without its tag (deploy/'s images: entry).
	RunnerRepository = "ghcr.io/liken-sh/people-operator"
	// DevicesRepository is the DRA driver's image without its tag (deploy/devices), tagged
	// as the runner's.
	DevicesRepository = "ghcr.io/liken-sh/serial-devices"
)

// Source is the images' org.opencontainers.image.source: the project, by its module path.
const Source = "https://liken.sh/runner"

// Image is one platform's image: its name, its one layer and how it runs.
type Image struct {
	Name       string
	Arch       string // GOARCH; the OS is always linux
	Layer      Layer
	Entrypoint []string
	Cmd        []string
	Env        []string
	User       string
	Labels     map[string]string
}

func (im Image) v1() (v1.Image, error) {
	layer, err := im.Layer.v1Layer()
	if err != nil {
		return nil, err
	}
	img, err := mutate.Append(mutate.MediaType(mutate.ConfigMediaType(empty.Image, types.OCIConfigJSON), types.OCIManifestSchema1),
		mutate.Addendum{Layer: layer, MediaType: types.OCILayer})
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = "linux", im.Arch
	if im.Arch == "arm64" {
		cfg.Variant = "v8"
	}
	cfg.Config.Entrypoint, cfg.Config.Cmd = im.Entrypoint, im.Cmd
	cfg.Config.Env, cfg.Config.User = im.Env, im.User
	cfg.Config.Labels = im.Labels
	return mutate.ConfigFile(img, cfg)
}

// Labels are the OCI labels every image carries: where it comes from and which build it is.
func Labels(version, revision string) map[string]string {
	return map[string]string{
		"org.opencontainers.image.source":   Source,
		"org.opencontainers.image.revision": revision,
		"org.opencontainers.image.version":  version,
	}
}

// Platform is what one platform's images are built from.
type Platform struct {
	Arch string // GOARCH
	// Programs holds the project's programs built for Arch: worker, watcher, indi-shim,
	// serial-devices.
	Programs string
	// Version is the build the programs are stamped with, which the server image's tag names.
	Version string
	// Debian is the tree of Debian's INDI packages and socat for Arch, which hack/tools.sh
	// extracts into the cache.
	Debian string
	Labels map[string]string
}

const pathEnv = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// base is what every image has: users, a sticky /tmp, and CA certificates (the same for
// every CPU, so this machine's).
func base(users string) Layer {
	return Layer{
		{Path: "/etc/passwd", Data: []byte("root:x:0:0:root:/root:/sbin/nologin\n" + users)},
		{Path: "/etc/group", Data: []byte(groups(users))},
		{Path: "/etc/ssl/certs/ca-certificates.crt", From: "/etc/ssl/certs/ca-certificates.crt"},
		{Path: "/tmp", Dir: true, Mode: os.ModeSticky | 0o777},
	}
}

// groups gives each user of a passwd text a group of its own name and id.
func groups(passwd string) string {
	out := "root:x:0:\n"
	for _, line := range strings.Split(strings.TrimSpace(passwd), "\n") {
		f := strings.Split(line, ":")
		if len(f) < 4 {
			continue
		}
		out += f[0] + ":x:" + f[3] + ":\n"
	}
	return out
}

// Runner is the Dockerfile's image: worker and watcher in /usr/local/bin, the worker as the
// entry point (baker pods pass only arguments), distroless's nonroot user.
func Runner(p Platform, tag string) Image {
	l := base("nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n")
	l.Add(Entry{Path: "/usr/local/bin/worker", From: filepath.Join(p.Programs, "worker")})
	l.Add(Entry{Path: "/usr/local/bin/watcher", From: filepath.Join(p.Programs, "watcher")})
	l.Add(Entry{Path: "/home/nonroot", Dir: true})
	return Image{
		Name: RunnerRepository + ":" + tag, Arch: p.Arch, Layer: l, Labels: p.Labels,
		Entrypoint: []string{"/usr/local/bin/worker"},
		Env:        []string{pathEnv, "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"},
		User:       "65532:65532",
	}
}

// SerialDevices is the nodes' DRA driver (cmd/serial-devices): its one static program. Its
// DaemonSet runs it as root, without privilege, to serve the kubelet's plugin folders.
func SerialDevices(p Platform, tag string) Image {
	l := base("")
	l.Add(Entry{Path: "/usr/local/bin/serial-devices", From: filepath.Join(p.Programs, "serial-devices")})
	return Image{
		Name: DevicesRepository + ":" + tag, Arch: p.Arch, Layer: l, Labels: p.Labels,
		Entrypoint: []string{"/usr/local/bin/serial-devices"}, Env: []string{pathEnv},
	}
}

// indiUser is the INDI images' user: uid 1000, whose HOME is /tmp (an emptyDir in the pods),
// where drivers keep their config under ~/.indi.
const indiUser = "indi:x:1000:1000:INDI:/tmp:/sbin/nologin\n"

// indiImage is Debian's programs of the platform's tree with their libraries and INDI's
// shared data, each at its own path.
func indiImage(p Platform, name string, progs []string, extra ...Entry) (Image, error) {
	// libindi's alignment subsystem (EQMod, the AltAz mounts) loads its math plugins at run time.
	plugins, err := modules(p, "usr/lib/*/indi/MathPlugins/*.so")
	if err != nil {
		return Image{}, err
	}
	progs = append(progs, plugins...)
	libs, err := Closure(p.Debian, progs...)
	if err != nil {
		return Image{}, fmt.Errorf("%s for %s: %w", name, p.Arch, err)
	}
	l := base(indiUser)
	data, _ := filepath.Glob(filepath.Join(p.Debian, "usr/share/indi/*"))
	// The licenses the programs and libraries are given under (GPL, LGPL, BSD) travel with
	// them: Debian's copyright file of every package of the tree, a superset of the image's.
	notices, _ := filepath.Glob(filepath.Join(p.Debian, "usr/share/doc/*/copyright"))
	for _, d := range append(data, notices...) {
		rel, _ := filepath.Rel(p.Debian, d)
		progs = append(progs, "/"+rel)
	}
	for _, f := range append(progs, libs...) {
		e, err := fromTree(p.Debian, f)
		if err != nil {
			return Image{}, fmt.Errorf("%s for %s: %w", name, p.Arch, err)
		}
		l.Add(e)
	}
	for _, e := range extra {
		l.Add(e)
	}
	return Image{Name: name, Arch: p.Arch, Layer: l, Env: []string{pathEnv, "HOME=/tmp"}, User: "1000:1000", Labels: p.Labels}, nil
}

// Server is the INDI server pods' image of the programs' build (kube.ServerImageOf): indiserver behind indi-shim,
// socat, and the core drivers, which device pods of core drivers run from it too; and
// indi_getprop and indi_setprop, so `kubectl exec` into a server can read and set a device.
func Server(p Platform) (Image, error) {
	progs := []string{"/usr/bin/indiserver", "/usr/bin/socat", "/usr/bin/indi_getprop", "/usr/bin/indi_setprop"}
	for _, d := range kube.CoreDrivers() {
		progs = append(progs, "/usr/bin/"+d)
	}
	return indiImage(p, kube.ServerImageOf(p.Version), progs, Entry{Path: "/usr/bin/indi-shim", From: filepath.Join(p.Programs, "indi-shim")})
}

// Simulators is the simulator drivers' image (kube.SimulatorImage), with socat.
func Simulators(p Platform) (Image, error) {
	sims, err := filepath.Glob(filepath.Join(p.Debian, "usr/bin/indi_simulator_*"))
	if err != nil || len(sims) == 0 {
		return Image{}, fmt.Errorf("no INDI simulators in %s/usr/bin: run hack/tools.sh (it installs Debian's indi-bin)", p.Debian)
	}
	progs := []string{"/usr/bin/socat"}
	for _, s := range sims {
		progs = append(progs, "/usr/bin/"+filepath.Base(s))
	}
	return indiImage(p, kube.SimulatorImage, progs)
}

// Open is the image of the indi-3rdparty drivers that need only open-source libraries
// (kube.OpenImage), with socat. libgphoto2 loads its camera and port drivers at run time.
func Open(p Platform) (Image, error) {
	progs := []string{"/usr/bin/socat"}
	for _, d := range kube.OpenDrivers() {
		progs = append(progs, "/usr/bin/"+d)
	}
	gphoto, err := modules(p, "usr/lib/*/libgphoto2/*/*.so", "usr/lib/*/libgphoto2_port/*/*.so")
	if err != nil {
		return Image{}, err
	}
	return indiImage(p, kube.OpenImage, append(progs, gphoto...))
}

// modules are the platform tree's files that match patterns: libraries a program loads by
// itself at run time, which no ELF file names. Every pattern must match.
func modules(p Platform, patterns ...string) ([]string, error) {
	var out []string
	for _, pattern := range patterns {
		found, _ := filepath.Glob(filepath.Join(p.Debian, pattern))
		if len(found) == 0 {
			return nil, fmt.Errorf("no %s in %s: run `bash hack/tools.sh indi-images`", pattern, p.Debian)
		}
		for _, f := range found {
			rel, _ := filepath.Rel(p.Debian, f)
			out = append(out, "/"+rel)
		}
	}
	return out, nil
}

// Project is every image a cluster gets from this project, for one platform. The vendor
// images (indi-zwo, indi-qhy) and the guider's (indi-phd2) are not among them: Debian has no
// package of their SDKs or of PHD2 to build them from.
func Project(p Platform, runnerTag string) ([]Image, error) {
	imgs := []Image{Runner(p, runnerTag), SerialDevices(p, runnerTag)}
	for _, build := range []func(Platform) (Image, error){Server, Simulators, Open} {
		img, err := build(p)
		if err != nil {
			return nil, err
		}
		imgs = append(imgs, img)
	}
	return imgs, nil
}

// Pause is the sandbox every pod starts with: one static program (the cache's node-<version>/pause).
func Pause(arch, pause string, labels map[string]string) Image {
	return Image{
		Name: PauseImage, Arch: arch, Layer: Layer{{Path: "/pause", From: pause}}, Labels: labels,
		Entrypoint: []string{"/pause"}, User: "65535:65535",
	}
}

// Temporal is deploy/temporal's image: the Temporal CLI (the cache's temporal-<version>/temporal),
// whose `server start-dev` the Deployment runs with its arguments.
func Temporal(arch, temporal string, labels map[string]string) (Image, error) {
	libs, err := Closure("/", temporal)
	if err != nil {
		return Image{}, err
	}
	l := base("temporal:x:1000:1000:temporal:/tmp:/sbin/nologin\n")
	l.Add(Entry{Path: "/usr/local/bin/temporal", From: temporal})
	l.CopyFiles(libs...)
	return Image{
		Name: TemporalImage, Arch: arch, Layer: l, Entrypoint: []string{"/usr/local/bin/temporal"},
		Env: []string{pathEnv, "HOME=/tmp"}, User: "1000:1000", Labels: labels,
	}, nil
}

// Job is busybox for Job actions: the static busybox and a link for each of its applets.
func Job(arch string, labels map[string]string) (Image, error) {
	const bb = "/bin/busybox"
	applets, err := busyboxApplets(bb)
	if err != nil {
		return Image{}, err
	}
	l := base("user:x:1000:1000:user:/tmp:/bin/sh\n")
	l.Add(Entry{Path: bb, From: bb})
	for _, a := range applets {
		if a != "busybox" {
			l.Add(Entry{Path: "/bin/" + a, Link: "busybox"})
		}
	}
	return Image{Name: JobImage, Arch: arch, Layer: l, Cmd: []string{"sh"}, Env: []string{pathEnv}, Labels: labels}, nil
}

func busyboxApplets(bb string) ([]string, error) {
	out, err := execOutput(bb, "--list")
	if err != nil {
		return nil, fmt.Errorf("%s --list: %w (run hack/tools.sh: it installs Debian's busybox-static)", bb, err)
	}
	applets := strings.Fields(out)
	slices.Sort(applets)
	return applets, nil
}
