// Package images builds, without Docker or a registry, every image the real node runs: the
// runner's (the Dockerfile's layout, from binaries built here), the INDI images its pods
// name (indiserver, indi-shim, socat and the drivers of Debian's indi-bin, each with its
// library closure), the pod sandbox, the bundled Temporal's and the one the examples' Job
// actions use. Each is one layer of files from this machine, named exactly as the
// manifests and the runner's pods name it, and written into one docker-archive tarball that
// the node's containerd imports (test/stack's Node.Import).
package images

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"

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
)

// Image is one image: its name, its one layer and how it runs.
type Image struct {
	Name       string
	Layer      Layer
	Entrypoint []string
	Cmd        []string
	Env        []string
	User       string
}

// Write writes the images into one docker-archive tarball at path.
func Write(path string, imgs []Image) error {
	refs := map[name.Reference]v1.Image{}
	for _, im := range imgs {
		ref, err := name.ParseReference(im.Name)
		if err != nil {
			return fmt.Errorf("image name %q: %w", im.Name, err)
		}
		img, err := im.v1()
		if err != nil {
			return fmt.Errorf("image %s: %w", im.Name, err)
		}
		refs[ref] = img
	}
	return tarball.MultiRefWriteToFile(path, refs)
}

func (im Image) v1() (v1.Image, error) {
	layer, err := im.Layer.v1Layer()
	if err != nil {
		return nil, err
	}
	img, err := mutate.Append(empty.Image, mutate.Addendum{Layer: layer})
	if err != nil {
		return nil, err
	}
	cfg, err := img.ConfigFile()
	if err != nil {
		return nil, err
	}
	cfg = cfg.DeepCopy()
	cfg.OS, cfg.Architecture = "linux", runtime.GOARCH
	cfg.Config.Entrypoint, cfg.Config.Cmd = im.Entrypoint, im.Cmd
	cfg.Config.Env, cfg.Config.User = im.Env, im.User
	return mutate.ConfigFile(img, cfg)
}

// Inputs are the programs built here that go into the images.
type Inputs struct {
	RunnerTag string // the runner image's tag
	Worker    string // static binaries (CGO_ENABLED=0)
	Watcher   string
	Shim      string
	Pause     string // the cache's node-<version>/pause
	Temporal  string // the cache's temporal-<version>/temporal
}

// All is every image the real node needs.
func All(in Inputs) ([]Image, error) {
	var out []Image
	for _, build := range []func(Inputs) (Image, error){Runner, Server, Simulators, Pause, Temporal, Job} {
		im, err := build(in)
		if err != nil {
			return nil, err
		}
		out = append(out, im)
	}
	return out, nil
}

const pathEnv = "PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// base is what every image has: users, a sticky /tmp, and CA certificates.
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
		out += f[0] + ":x:" + f[3] + ":\n"
	}
	return out
}

// Runner is the Dockerfile's image: worker and watcher in /usr/local/bin, the worker as the
// entry point (baker pods pass only arguments), distroless's nonroot user.
func Runner(in Inputs) (Image, error) {
	l := base("nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\n")
	l.Add(Entry{Path: "/usr/local/bin/worker", From: in.Worker})
	l.Add(Entry{Path: "/usr/local/bin/watcher", From: in.Watcher})
	l.Add(Entry{Path: "/home/nonroot", Dir: true})
	return Image{
		Name: RunnerRepository + ":" + in.RunnerTag, Layer: l,
		Entrypoint: []string{"/usr/local/bin/worker"},
		Env:        []string{pathEnv, "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"},
		User:       "65532:65532",
	}, nil
}

// indiUser is the INDI images' user: uid 1000, whose HOME is /tmp (an emptyDir in the pods),
// where drivers keep their config under ~/.indi.
const indiUser = "indi:x:1000:1000:INDI:/tmp:/sbin/nologin\n"

// programs is a layer of host programs with their libraries, plus INDI's shared data.
func programs(progs []string) (Layer, error) {
	libs, err := Closure(progs...)
	if err != nil {
		return nil, err
	}
	l := base(indiUser)
	l.CopyFiles(progs...)
	l.CopyFiles(libs...)
	data, _ := filepath.Glob("/usr/share/indi/*")
	l.CopyFiles(data...)
	return l, nil
}

func indiImage(name string, progs []string, extra ...Entry) (Image, error) {
	l, err := programs(progs)
	if err != nil {
		return Image{}, err
	}
	for _, e := range extra {
		l.Add(e)
	}
	return Image{Name: name, Layer: l, Env: []string{pathEnv, "HOME=/tmp"}, User: "1000:1000"}, nil
}

// Server is the INDI server pods' image (kube.ServerImage): indiserver behind indi-shim,
// socat, and the core drivers, which device pods of core drivers run from it too; and
// indi_getprop and indi_setprop, so `kubectl exec` into a server can read and set a device.
func Server(in Inputs) (Image, error) {
	progs := []string{"/usr/bin/indiserver", "/usr/bin/socat", "/usr/bin/indi_getprop", "/usr/bin/indi_setprop"}
	for _, d := range kube.CoreDrivers() {
		progs = append(progs, "/usr/bin/"+d)
	}
	return indiImage(kube.ServerImage, progs, Entry{Path: "/usr/bin/indi-shim", From: in.Shim})
}

// Simulators is the simulator drivers' image (kube.SimulatorImage), with socat.
func Simulators(Inputs) (Image, error) {
	sims, err := filepath.Glob("/usr/bin/indi_simulator_*")
	if err != nil || len(sims) == 0 {
		return Image{}, fmt.Errorf("no INDI simulators in /usr/bin: run hack/tools.sh (it installs Debian's indi-bin)")
	}
	return indiImage(kube.SimulatorImage, append(sims, "/usr/bin/socat"))
}

// Pause is the sandbox every pod starts with: one static program.
func Pause(in Inputs) (Image, error) {
	return Image{
		Name: PauseImage, Layer: Layer{{Path: "/pause", From: in.Pause}},
		Entrypoint: []string{"/pause"}, User: "65535:65535",
	}, nil
}

// Temporal is deploy/temporal's image: the Temporal CLI, whose `server start-dev` the
// Deployment runs with its arguments.
func Temporal(in Inputs) (Image, error) {
	libs, err := Closure(in.Temporal)
	if err != nil {
		return Image{}, err
	}
	l := base("temporal:x:1000:1000:temporal:/tmp:/sbin/nologin\n")
	l.Add(Entry{Path: "/usr/local/bin/temporal", From: in.Temporal})
	l.CopyFiles(libs...)
	return Image{
		Name: TemporalImage, Layer: l, Entrypoint: []string{"/usr/local/bin/temporal"},
		Env: []string{pathEnv, "HOME=/tmp"}, User: "1000:1000",
	}, nil
}

// Job is busybox for Job actions: the static busybox and a link for each of its applets.
func Job(Inputs) (Image, error) {
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
	return Image{Name: JobImage, Layer: l, Cmd: []string{"sh"}, Env: []string{pathEnv}}, nil
}

func busyboxApplets(bb string) ([]string, error) {
	out, err := exec.Command(bb, "--list").Output()
	if err != nil {
		return nil, fmt.Errorf("%s --list: %w (run hack/tools.sh: it installs Debian's busybox-static)", bb, err)
	}
	applets := strings.Fields(string(out))
	slices.Sort(applets)
	return applets, nil
}
