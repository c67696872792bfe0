// Command screenshots regenerates the Temporal UI guide's pictures (docs/*.png). It
// runs make run's local observatory (bin/run, in a temporary folder on free ports, beside any
// make run of yours), waits until the example reservation is Ready, has a headless Chromium
// take the workflow list and the reservation's page, and stops everything. `make screenshots`
// runs it; Debian's chromium is installed when missing.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"go.temporal.io/sdk/client"

	"liken.sh/runner/contract"
	"liken.sh/runner/internal/localstack"
)

// listColumns are the workflow list's columns in the pictures: the UI's own, the search
// attributes that tell the reservations apart, and the build each last ran on.
const listColumns = `{"default":[{"label":"Status","pinned":true},{"label":"Workflow ID","pinned":true},` +
	`{"label":"Type","pinned":false},{"label":"Telescope","pinned":false},{"label":"Holder","pinned":false},` +
	`{"label":"Phase","pinned":false},{"label":"Step","pinned":false},{"label":"Deployment Version","pinned":false}]}`

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "screenshots:", err)
		os.Exit(1)
	}
}

func run() error {
	out := flag.String("out", "docs", "folder the pictures are written to")
	bin := flag.String("bin", "bin", "folder with run, watcher and worker (make builds them)")
	flag.Parse()
	wd, _ := os.Getwd()
	root, err := localstack.Root(wd)
	if err != nil {
		return err
	}
	if err := chromium(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()

	obs, err := startObservatory(ctx, root, *bin)
	if err != nil {
		return err
	}
	defer obs.stop()
	b, err := startBrowser(ctx, 1500, 900)
	if err != nil {
		return err
	}
	defer b.close()

	ui := "http://127.0.0.1:" + strconv.Itoa(obs.uiPort) + "/namespaces/default/workflows"
	if err := b.open(ui); err != nil {
		return err
	}
	if err := b.waitText(ctx, "Workflows"); err != nil {
		return err
	}
	if _, err := b.eval("localStorage.setItem('namespace-workflow-table-columns', '" + listColumns + "')"); err != nil {
		return err
	}
	list := filepath.Join(root, *out, "ui-list.png")
	if err := shoot(ctx, b, ui, list, "Workflows", contract.ReservationID("observatory", "tonight"),
		contract.TelescopeLockID("observatory", "east"), "Ready", contract.PersonID("grace")); err != nil {
		return err
	}

	id := contract.ReservationID("observatory", "tonight")
	c, err := client.Dial(client.Options{HostPort: obs.temporal})
	if err != nil {
		return err
	}
	defer c.Close()
	d, err := c.DescribeWorkflow(ctx, id, "")
	if err != nil {
		return err
	}
	run := ui + "/" + url.PathEscape(id) + "/" + d.WorkflowExecution.RunID
	// The whole story, oldest first, and the words it started with. (The UI draws the
	// summaries and details as markdown in frames of their own, which the page's text does
	// not show: the wait is for the headings around them.)
	history := filepath.Join(root, *out, "ui-reservation.png")
	if err := b.size(1500, 1000); err != nil {
		return err
	}
	if _, err := b.eval(`localStorage.setItem('eventFilterSort', '"ascending"'); localStorage.setItem('eventView', '"compact"')`); err != nil {
		return err
	}
	if err := shoot(ctx, b, run+"/history", history, "Mount east, Focuser east-main"); err != nil {
		return err
	}
	metadata := filepath.Join(root, *out, "ui-reservation-metadata.png")
	if err := b.size(1500, 900); err != nil {
		return err
	}
	if err := shoot(ctx, b, run+"/user-metadata", metadata, "User Metadata", "Summary", "Current Details", "Events with Metadata"); err != nil {
		return err
	}
	fmt.Println("wrote", list+",", history, "and", metadata)
	return nil
}

// shoot opens a page, waits until it shows the texts, scrolls to the first, and writes its
// picture.
func shoot(ctx context.Context, b *browser, page, file string, texts ...string) error {
	if err := b.open(page); err != nil {
		return err
	}
	if err := b.waitText(ctx, texts...); err != nil {
		return fmt.Errorf("%s: %w", page, err)
	}
	if err := b.scrollTo(texts[0]); err != nil {
		return fmt.Errorf("%s: %w", page, err)
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	return b.shoot(file)
}

// observatory is bin/run, running.
type observatory struct {
	cmd          *exec.Cmd
	dir, log     string
	temporal     string
	uiPort       int
	exited       chan struct{}
	temporalPort int
}

// startObservatory starts bin/run and waits until the example reservation is Ready.
func startObservatory(ctx context.Context, root, bin string) (*observatory, error) {
	dir, err := os.MkdirTemp("", "liken-screenshots-run-")
	if err != nil {
		return nil, err
	}
	o := &observatory{dir: dir, log: filepath.Join(dir, "run.log"), exited: make(chan struct{})}
	if o.temporalPort, err = localstack.FreePort(); err != nil {
		return nil, err
	}
	if o.uiPort, err = localstack.FreePort(); err != nil {
		return nil, err
	}
	o.temporal = "127.0.0.1:" + strconv.Itoa(o.temporalPort)
	logFile, err := os.Create(o.log)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	o.cmd = exec.Command(filepath.Join(root, bin, "run"), "-bin", bin, "-dir", filepath.Join(dir, "run"), "-session", "30m",
		"-temporal-port", strconv.Itoa(o.temporalPort), "-ui-port", strconv.Itoa(o.uiPort))
	o.cmd.Dir = root
	o.cmd.Stdout, o.cmd.Stderr = logFile, logFile
	o.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if err := o.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s (make builds it): %w", o.cmd.Path, err)
	}
	go func() { o.cmd.Wait(); close(o.exited) }()
	for {
		b, _ := os.ReadFile(o.log)
		if strings.Contains(string(b), "Reservation observatory/tonight is Ready") {
			return o, nil
		}
		select {
		case <-o.exited:
			return nil, fmt.Errorf("bin/run exited; its output:\n%s", b)
		case <-ctx.Done():
			o.stop()
			return nil, errors.New("the example reservation was not Ready in time")
		case <-time.After(500 * time.Millisecond):
		}
	}
}

// stop ends bin/run as Ctrl-C does, and removes its folder.
func (o *observatory) stop() {
	syscall.Kill(o.cmd.Process.Pid, syscall.SIGINT)
	select {
	case <-o.exited:
	case <-time.After(time.Minute):
		syscall.Kill(-o.cmd.Process.Pid, syscall.SIGKILL)
		<-o.exited
	}
	os.RemoveAll(o.dir)
}

// chromium installs Debian's chromium when it is missing.
func chromium() error {
	if _, err := exec.LookPath("chromium"); err == nil {
		return nil
	}
	fmt.Fprintln(os.Stderr, "screenshots: installing Debian's chromium")
	sudo := []string{}
	if os.Geteuid() != 0 {
		sudo = []string{"sudo"}
	}
	for _, args := range [][]string{{"apt-get", "update", "-qq"}, {"apt-get", "install", "-y", "-qq", "chromium"}} {
		cmd := exec.Command(append(sudo, args...)[0], append(sudo, args...)[1:]...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("install chromium: %w", err)
		}
	}
	return nil
}
