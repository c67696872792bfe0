// The second way `make test` runs the end-to-end packages: on Temporal's own server with
// PostgreSQL (LIKEN_TEMPORAL=postgres), the production configuration of deploy/temporal/postgres.
// A package names the tests that run that way by their functions, so a renamed test is a
// compile error rather than one that silently stops running.
package testenv

import (
	"flag"
	"fmt"
	"os"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

// chooseTests checks LIKEN_TEMPORAL and, on PostgreSQL, has the package run only the tests its
// TestMain names in AlsoOnPostgres, unless -run chooses; a package that names none has nothing
// to run there (none is false), so it starts no stack.
func chooseTests(opts Options) (none bool, err error) {
	switch v := os.Getenv(temporalBackend); v {
	case "", "dev":
		return false, nil
	case "postgres":
	default:
		return false, fmt.Errorf("%s=%q: want dev (the default) or postgres", temporalBackend, v)
	}
	flag.Parse()
	run := flag.Lookup("test.run")
	if run == nil || run.Value.String() != "" {
		return false, nil
	}
	if len(opts.AlsoOnPostgres) == 0 {
		fmt.Fprintln(os.Stderr, "testenv: this package names no test to run again on Temporal's server with PostgreSQL")
		return true, nil
	}
	names := make([]string, len(opts.AlsoOnPostgres))
	for i, f := range opts.AlsoOnPostgres {
		full := runtime.FuncForPC(reflect.ValueOf(f).Pointer()).Name()
		names[i] = full[strings.LastIndex(full, ".")+1:]
	}
	fmt.Fprintf(os.Stderr, "testenv: on Temporal's server with PostgreSQL: %s\n", strings.Join(names, ", "))
	return false, run.Value.Set("^(" + strings.Join(names, "|") + ")$")
}

// RequirePostgres skips a test of the PostgreSQL-backed Temporal itself (a restart of the
// database) on the dev server; `make test` runs it with LIKEN_TEMPORAL=postgres.
func (e *Env) RequirePostgres(t testing.TB) {
	t.Helper()
	if !e.Postgres {
		t.Skipf("a test of Temporal's server on PostgreSQL: make test runs it with %s=postgres", temporalBackend)
	}
}
