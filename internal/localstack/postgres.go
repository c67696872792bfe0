// A PostgreSQL cluster of the stack's own, the database of Temporal's server on PostgreSQL
// (temporal_server.go): initdb into <Dir>/postgres, then postgres itself, in the foreground as
// one of the stack's processes, on a free port of 127.0.0.1 and no Unix socket. Its one role
// has a password (scram-sha-256), as a real database's would.
//
// PostgreSQL refuses to run as root, and the tests and CI run as root: then initdb and postgres
// run as the system user postgres, which Debian's package creates, and which owns the data
// folder. Debian keeps the binaries off PATH, in /usr/lib/postgresql/<version>/bin; hack/tools.sh
// installs the package when initdb is missing.
//
// Commits are acknowledged before their WAL reaches the disk (synchronous_commit=off): like the
// dev server's SQLite in WAL mode, a crash of the process loses nothing, a crash of the machine
// the last commits. The stack's data is thrown away with its folder; a production database keeps
// PostgreSQL's default.
package localstack

import (
	"cmp"
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
)

// postgres is the address and the role of the stack's PostgreSQL.
type postgres struct {
	Host, Port, User, Password string
}

// startPostgres creates a cluster whose one role is user (a superuser, so Temporal's schema
// tool may create its databases), with a random password, and starts it on port.
func (s *Stack) startPostgres(ctx context.Context, port int, role string) (*postgres, error) {
	bin, err := postgresBin()
	if err != nil {
		return nil, err
	}
	as, err := postgresUser()
	if err != nil {
		return nil, err
	}
	home, err := s.postgresHome(as)
	if err != nil {
		return nil, err
	}
	pg := &postgres{Host: "127.0.0.1", Port: strconv.Itoa(port), User: role, Password: randomHex(16)}
	pwfile := filepath.Join(home, "password")
	if err := os.WriteFile(pwfile, []byte(pg.Password+"\n"), 0o600); err != nil {
		return nil, err
	}
	if err := chown(pwfile, as); err != nil {
		return nil, err
	}
	data := filepath.Join(home, "data")
	if err := s.runOnce(ctx, "initdb", as, nil, filepath.Join(bin, "initdb"), "--pgdata="+data,
		"--username="+role, "--pwfile="+pwfile, "--auth=scram-sha-256",
		"--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions"); err != nil {
		return nil, err
	}
	os.Remove(pwfile)
	return pg, s.run(ctx, &proc{
		name: "postgres", path: filepath.Join(bin, "postgres"), dir: home, user: as,
		args: []string{"-D", data,
			"-c", "listen_addresses=127.0.0.1", "-c", "port=" + pg.Port,
			"-c", "unix_socket_directories=", "-c", "synchronous_commit=off",
		},
		// Fast shutdown: the server ends its sessions, writes a checkpoint and removes its
		// shared memory, which a SIGKILL would leave behind.
		shutdown: syscall.SIGINT,
		ready: func(ctx context.Context) error {
			out, err := exec.CommandContext(ctx, filepath.Join(bin, "pg_isready"),
				"--host="+pg.Host, "--port="+pg.Port, "--username="+role, "--dbname=postgres").CombinedOutput()
			if err != nil {
				return fmt.Errorf("pg_isready: %v: %s", err, strings.TrimSpace(string(out)))
			}
			return nil
		},
	})
}

// postgresBin is the folder of initdb, postgres and pg_isready: initdb's on PATH (through a
// symbolic link), else the newest of Debian's /usr/lib/postgresql/<version>/bin.
func postgresBin() (string, error) {
	if p, err := exec.LookPath("initdb"); err == nil {
		if real, err := filepath.EvalSymlinks(p); err == nil {
			return filepath.Dir(real), nil
		}
	}
	found, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(found) == 0 {
		return "", fmt.Errorf("PostgreSQL's initdb is neither on PATH nor in /usr/lib/postgresql/<version>/bin: run `make tools` (hack/tools.sh installs Debian's postgresql)")
	}
	version := func(p string) float64 {
		v, _ := strconv.ParseFloat(filepath.Base(filepath.Dir(filepath.Dir(p))), 64)
		return v
	}
	newest := slices.MaxFunc(found, func(a, b string) int { return cmp.Compare(version(a), version(b)) })
	return filepath.Dir(newest), nil
}

// postgresUser is who runs initdb and postgres: nil (ourselves), or the user postgres when we
// are root, whom PostgreSQL refuses.
func postgresUser() (*syscall.Credential, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		return nil, fmt.Errorf("PostgreSQL refuses to run as root, and there is no user postgres to run it as "+
			"(Debian's postgresql creates it: run `make tools`): %w", err)
	}
	uid, err := strconv.ParseUint(u.Uid, 10, 32)
	if err != nil {
		return nil, err
	}
	gid, err := strconv.ParseUint(u.Gid, 10, 32)
	if err != nil {
		return nil, err
	}
	return &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}, nil
}

// postgresHome makes <Dir>/postgres, owned by the user PostgreSQL runs as. That user must be
// able to pass through every folder above it: the stack lets it through Dir (others may enter,
// not list it), and fails with the name of any folder higher up that it may not enter.
func (s *Stack) postgresHome(as *syscall.Credential) (string, error) {
	home, err := mkdir(s.opts.Dir, "postgres")
	if err != nil || as == nil {
		return home, err
	}
	st, err := os.Stat(s.opts.Dir)
	if err != nil {
		return "", err
	}
	if err := os.Chmod(s.opts.Dir, st.Mode().Perm()|0o001); err != nil {
		return "", err
	}
	for d := s.opts.Dir; ; d = filepath.Dir(d) {
		if !enterable(d, as) {
			return "", fmt.Errorf("PostgreSQL runs as the user postgres (it refuses root), who may not enter %s, above the stack's folder %s: "+
				"give the stack a folder it can reach (under /tmp, say)", d, s.opts.Dir)
		}
		if filepath.Dir(d) == d {
			break
		}
	}
	return home, chown(home, as)
}

// enterable says whether the user as may pass through the folder dir (its x bit).
func enterable(dir string, as *syscall.Credential) bool {
	st, err := os.Stat(dir)
	if err != nil {
		return false
	}
	sys, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return false
	}
	perm := st.Mode().Perm()
	switch {
	case sys.Uid == as.Uid:
		return perm&0o100 != 0
	case sys.Gid == as.Gid:
		return perm&0o010 != 0
	default:
		return perm&0o001 != 0
	}
}

func chown(path string, as *syscall.Credential) error {
	if as == nil {
		return nil
	}
	return os.Chown(path, int(as.Uid), int(as.Gid))
}
