// What the real node leaves on the machine, and how it goes. A node is more than its
// processes: containerd's shims and the containers outlive them, the kubelet mounts volumes,
// makes cgroups, links logs into /var/log/containers, adds iptables chains and changes
// sysctls, and the CNI bridge adds a link and NAT rules. So a node takes a machine-wide lock
// (one node at a time: the bridge, the cgroups and the chains are the machine's), and
// records, before it makes anything, what the machine was like: the sysctls, which host
// paths and iptables tables existed. clean puts it back from that record. Stop calls it; and
// because a parent can be SIGKILLed, so does the next start, when it finds a record whose
// lock nobody holds.
package localstack

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// nodeStateDir holds the lock and the record of the node that runs, or ran, here.
var nodeStateDir = "/var/lib/liken-node"

// hostPaths are what the kubelet and containerd make outside the node's folder whatever
// their flags say; the ones that did not exist before the node are removed after it.
var hostPaths = []string{
	"/var/lib/kubelet", "/var/log/containers", "/var/log/pods", "/run/containerd",
	"/var/run/netns", "/opt/containerd", "/var/lib/cni", "/etc/cni/net.d",
}

// sysctls are those the kubelet and the CNI plugins set; each is put back as it was.
var sysctls = []string{
	"vm/overcommit_memory", "kernel/panic", "kernel/panic_on_oops", "net/ipv4/ip_forward",
	"net/bridge/bridge-nf-call-iptables", "net/ipv4/conf/all/route_localnet",
}

// nodeRecord is what a node writes before it changes the machine.
type nodeRecord struct {
	Pid       int               `json:"pid"`
	Dir       string            `json:"dir"` // the node's folder
	KubeProxy string            `json:"kubeProxy"`
	Sysctls   map[string]string `json:"sysctls"`
	NewPaths  []string          `json:"newPaths"`  // hostPaths that did not exist
	NewTables []string          `json:"newTables"` // nft tables ("ip nat") that did not exist
}

// nodeLock takes the machine's node lock, or says who holds it. It is an flock, so it goes
// with its holder however that ends.
func nodeLock() (*os.File, error) {
	if err := os.MkdirAll(nodeStateDir, 0o755); err != nil {
		return nil, fmt.Errorf("the real node needs root (it runs containers): %w", err)
	}
	f, err := os.OpenFile(filepath.Join(nodeStateDir, "lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		holder := "another process"
		if r, err := readRecord(); err == nil {
			holder = fmt.Sprintf("process %d (its folder is %s)", r.Pid, r.Dir)
		}
		return nil, fmt.Errorf("a real node already runs on this machine, started by %s: only one can run at a time, "+
			"because the bridge %s, its pod network, the kubepods cgroups and the iptables chains are the machine's; "+
			"stop it first (or use the kwok node)", holder, bridgeName)
	}
	return f, nil
}

func recordPath() string { return filepath.Join(nodeStateDir, "record.json") }

func readRecord() (*nodeRecord, error) {
	b, err := os.ReadFile(recordPath())
	if err != nil {
		return nil, err
	}
	var r nodeRecord
	return &r, json.Unmarshal(b, &r)
}

func (r *nodeRecord) write() error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp := recordPath() + ".new"
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, recordPath())
}

// newRecord notes the machine as it is before a node starts in dir. It refuses a machine
// that already runs another Kubernetes node: this one would fight it for the same cgroups and
// chains, and its teardown would remove theirs.
func newRecord(dir, kubeProxy string) (*nodeRecord, error) {
	if kubeChains() {
		return nil, errors.New("this machine has iptables chains of a Kubernetes node (KUBE-*) that no real node " +
			"of this project recorded: another Kubernetes runs here, and a second node would fight it")
	}
	r := &nodeRecord{Pid: os.Getpid(), Dir: dir, KubeProxy: kubeProxy, Sysctls: map[string]string{}}
	for _, s := range sysctls {
		if b, err := os.ReadFile("/proc/sys/" + s); err == nil {
			r.Sysctls[s] = strings.TrimSpace(string(b))
		}
	}
	for _, p := range hostPaths {
		if _, err := os.Lstat(p); errors.Is(err, os.ErrNotExist) {
			r.NewPaths = append(r.NewPaths, p)
		}
	}
	before := nftTables()
	for _, t := range []string{"ip filter", "ip nat", "ip mangle", "ip6 filter", "ip6 nat", "ip6 mangle"} {
		if !slices.Contains(before, t) {
			r.NewTables = append(r.NewTables, t)
		}
	}
	return r, r.write()
}

// sweepDeadNode cleans what a node whose holder died left, then forgets it. The caller holds
// the lock, so the recorded node's holder is gone.
func sweepDeadNode() error {
	r, err := readRecord()
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("the record of an earlier real node (%s) is unreadable; remove it once its node is gone: %w", recordPath(), err)
	}
	if err := r.clean(); err != nil {
		return fmt.Errorf("clean what an earlier real node (process %d, folder %s) left: %w", r.Pid, r.Dir, err)
	}
	return nil
}

// clean removes everything the recorded node made, from the containers in, and the record
// last. Each step goes on after a failure, so one stuck mount does not keep the rest.
func (r *nodeRecord) clean() error {
	var errs []error
	errs = append(errs, killContainers(), killUnder(r.Dir))
	errs = append(errs, unmountUnder(r.Dir))
	errs = append(errs, removeCgroups())
	if r.KubeProxy != "" {
		// Its own chains; it needs no API server for this.
		exec.Command(r.KubeProxy, "--cleanup").Run()
	}
	exec.Command("ip", "link", "del", bridgeName).Run()
	errs = append(errs, removeChains(r.NewTables))
	for s, v := range r.Sysctls {
		if err := os.WriteFile("/proc/sys/"+s, []byte(v), 0o644); err != nil {
			errs = append(errs, fmt.Errorf("put back the sysctl %s=%s: %w", s, v, err))
		}
	}
	errs = append(errs, removeLogLinks(r.Dir))
	for _, p := range r.NewPaths {
		os.RemoveAll(p)
	}
	errs = append(errs, os.RemoveAll(r.Dir))
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return os.Remove(recordPath())
}

// killContainers kills every process in the kubelet's cgroups, in each hierarchy, and
// waits until they are gone.
func killContainers() error {
	deadline := time.Now().Add(10 * time.Second)
	for {
		pids := cgroupPids()
		if len(pids) == 0 {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("the pods' processes %v did not die", pids)
		}
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func kubepodsDirs() []string {
	dirs, _ := filepath.Glob("/sys/fs/cgroup/*/kubepods")
	if _, err := os.Stat("/sys/fs/cgroup/kubepods"); err == nil {
		dirs = append(dirs, "/sys/fs/cgroup/kubepods")
	}
	return dirs
}

func cgroupPids() []int {
	var pids []int
	for _, d := range kubepodsDirs() {
		filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err != nil || e.Name() != "cgroup.procs" {
				return nil
			}
			b, _ := os.ReadFile(p)
			for _, f := range strings.Fields(string(b)) {
				if n, err := strconv.Atoi(f); err == nil && !slices.Contains(pids, n) {
					pids = append(pids, n)
				}
			}
			return nil
		})
	}
	return pids
}

// removeCgroups removes the kubepods trees, deepest first (a cgroup goes only empty).
func removeCgroups() error {
	var errs []error
	for _, d := range kubepodsDirs() {
		var dirs []string
		filepath.WalkDir(d, func(p string, e os.DirEntry, err error) error {
			if err == nil && e.IsDir() {
				dirs = append(dirs, p)
			}
			return nil
		})
		for i := len(dirs) - 1; i >= 0; i-- {
			if err := syscall.Rmdir(dirs[i]); err != nil && !errors.Is(err, os.ErrNotExist) {
				errs = append(errs, fmt.Errorf("remove the cgroup %s: %w", dirs[i], err))
			}
		}
	}
	return errors.Join(errs...)
}

// killUnder kills the processes whose command line names the node's folder: containerd,
// its shims (which outlive it, in sessions of their own), the kubelet and the rest.
func killUnder(dir string) error {
	if dir == "" {
		return nil
	}
	me := os.Getpid()
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(b, []byte(dir)) {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(filepath.Dir(p)))
		if pid != me {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
	return nil
}

// unmountUnder detaches every mount below dir (volumes, network namespaces, the kubelet's
// bind mount of its root, overlay snapshots), deepest first.
func unmountUnder(dir string) error {
	if dir == "" {
		return nil
	}
	f, err := os.Open("/proc/self/mountinfo")
	if err != nil {
		return err
	}
	defer f.Close()
	var mounts []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) > 4 && (fields[4] == dir || strings.HasPrefix(fields[4], dir+"/")) {
			mounts = append(mounts, fields[4])
		}
	}
	slices.SortFunc(mounts, func(a, b string) int { return len(b) - len(a) })
	var errs []error
	for _, m := range mounts {
		if err := syscall.Unmount(m, syscall.MNT_DETACH); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("unmount %s: %w", m, err))
		}
	}
	return errors.Join(errs...)
}

// removeLogLinks removes the kubelet's links in /var/log/containers into the node's folder.
func removeLogLinks(dir string) error {
	links, _ := filepath.Glob("/var/log/containers/*.log")
	for _, l := range links {
		if to, err := os.Readlink(l); err == nil && (strings.HasPrefix(to, dir+"/") || !exists(to)) {
			os.Remove(l)
		}
	}
	return nil
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// nftTables lists the nft tables ("ip nat"), where iptables-nft keeps the rules.
func nftTables() []string {
	out, _ := exec.Command("nft", "list", "tables").Output()
	var tables []string
	for _, line := range strings.Split(string(out), "\n") {
		if t, ok := strings.CutPrefix(strings.TrimSpace(line), "table "); ok {
			tables = append(tables, t)
		}
	}
	return tables
}

// kubeChains says whether a KUBE- chain exists in any iptables table.
func kubeChains() bool {
	for _, cmd := range []string{"iptables-save", "ip6tables-save"} {
		out, _ := exec.Command(cmd).Output()
		if bytes.Contains(out, []byte("\n:KUBE-")) {
			return true
		}
	}
	return false
}

// removeChains removes what the kubelet, kube-proxy and the CNI bridge added to iptables:
// the tables that did not exist before go whole; in the others, every KUBE- chain (none
// existed before: newRecord refuses such a machine) and every rule that jumps to one, and
// the rules the bridge plugin tagged with the node's network, with the chains they jump to.
func removeChains(newTables []string) error {
	for _, t := range newTables {
		exec.Command("nft", "delete", "table", t).Run()
	}
	var errs []error
	for _, ipt := range []string{"iptables", "ip6tables"} {
		out, err := exec.Command(ipt + "-save").Output()
		if err != nil {
			continue
		}
		script := chainRemoval(string(out))
		cmd := exec.Command(ipt+"-restore", "-w", "--noflush")
		cmd.Stdin = strings.NewReader(script)
		if b, err := cmd.CombinedOutput(); err != nil {
			errs = append(errs, fmt.Errorf("%s-restore: %v: %s", ipt, err, b))
		}
	}
	return errors.Join(errs...)
}

// chainRemoval turns iptables-save's output into an iptables-restore script that deletes
// the node's rules and chains and nothing else.
func chainRemoval(saved string) string {
	var b strings.Builder
	ours := func(chain string) bool { return strings.HasPrefix(chain, "KUBE-") }
	for _, table := range strings.Split("\n"+saved, "\n*")[1:] {
		lines := strings.Split(table, "\n")
		var del, chains []string
		for _, l := range lines[1:] {
			f := strings.Fields(l)
			if len(f) < 2 || f[0] != "-A" {
				continue
			}
			jump := ""
			if i := slices.Index(f, "-j"); i >= 0 && i+1 < len(f) {
				jump = f[i+1]
			}
			tagged := strings.Contains(l, `name: \"`+cniNetwork+`\"`)
			if tagged && strings.HasPrefix(jump, "CNI-") && !slices.Contains(chains, jump) {
				chains = append(chains, jump)
			}
			if !ours(f[1]) && (ours(jump) || tagged) {
				del = append(del, "-D"+strings.TrimPrefix(l, "-A"))
			}
		}
		for _, l := range lines[1:] {
			if c, ok := strings.CutPrefix(l, ":"); ok {
				if name := strings.Fields(c)[0]; ours(name) && !slices.Contains(chains, name) {
					chains = append(chains, name)
				}
			}
		}
		if len(del)+len(chains) == 0 {
			continue
		}
		b.WriteString("*" + lines[0] + "\n")
		for _, l := range del {
			b.WriteString(l + "\n")
		}
		for _, c := range chains {
			b.WriteString("-F " + c + "\n")
		}
		for _, c := range chains {
			b.WriteString("-X " + c + "\n")
		}
		b.WriteString("COMMIT\n")
	}
	return b.String()
}
