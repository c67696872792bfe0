// Tests of how the Temporal connection is secured, without a server: what each set of options
// turns on, that a wrong one fails the start with the option's name, and that a refusal names
// the option that may be missing, and that they reach a child process. The connection itself
// is tried against Temporal's server with mTLS and API keys in internal/localstack's postgres
// test.
package app

import (
	"context"
	"flag"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.temporal.io/api/serviceerror"
)

func TestTheTemporalOptionsComeFromTemporalsOwnEnvironmentVariables(t *testing.T) {
	t.Setenv("TEMPORAL_TLS_SERVER_CA_CERT_PATH", "/tls/ca.crt")
	t.Setenv("TEMPORAL_TLS_CLIENT_CERT_PATH", "/tls/tls.crt")
	t.Setenv("TEMPORAL_TLS_CLIENT_KEY_PATH", "/tls/tls.key")
	t.Setenv("TEMPORAL_TLS_SERVER_NAME", "temporal.example")
	t.Setenv("TEMPORAL_API_KEY_FILE", "/key/api-key")
	var c Config
	c.Flags(flag.NewFlagSet("test", flag.ContinueOnError))
	want := TemporalSecurity{CAFile: "/tls/ca.crt", CertFile: "/tls/tls.crt", KeyFile: "/tls/tls.key",
		ServerName: "temporal.example", APIKeyFile: "/key/api-key"}
	if c.TemporalSecurity != want {
		t.Errorf("got %+v, want %+v", c.TemporalSecurity, want)
	}
}

func TestTheOptionsGoToAChildProcessAsTheyCame(t *testing.T) {
	for _, want := range []TemporalSecurity{
		{},
		{TLS: true, APIKey: "key"},
		{CAFile: "/tls/ca.crt", CertFile: "/tls/tls.crt", KeyFile: "/tls/tls.key", ServerName: "temporal.example", APIKeyFile: "/key/api-key"},
	} {
		for _, v := range want.Env() {
			name, value, _ := strings.Cut(v, "=")
			t.Setenv(name, value)
		}
		var c Config
		c.Flags(flag.NewFlagSet("test", flag.ContinueOnError))
		if c.TemporalSecurity != want {
			t.Errorf("%v read back as %+v, want %+v", want.Env(), c.TemporalSecurity, want)
		}
		for _, v := range want.Env() {
			name, _, _ := strings.Cut(v, "=")
			os.Unsetenv(name)
		}
	}
}

func TestTLSIsOffUntilAskedForAndOnWithTheSystemsRootsWhenAsked(t *testing.T) {
	cfg, err := TemporalSecurity{}.TLSConfig()
	if err != nil || cfg != nil {
		t.Errorf("no options: %v, %v; want no TLS", cfg, err)
	}
	cfg, err = TemporalSecurity{TLS: true, ServerName: "temporal.example"}.TLSConfig()
	if err != nil || cfg == nil || cfg.RootCAs != nil || cfg.ServerName != "temporal.example" {
		t.Errorf("--temporal-tls: %+v, %v; want TLS with the system's roots", cfg, err)
	}
}

func TestAWrongTemporalOptionFailsTheStartNamingIt(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(notPEM, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sec  TemporalSecurity
		want string
	}{
		{TemporalSecurity{CertFile: "tls.crt"}, "--temporal-tls-cert and --temporal-tls-key go together"},
		{TemporalSecurity{CAFile: filepath.Join(dir, "missing.crt")}, "--temporal-tls-ca: open"},
		{TemporalSecurity{CAFile: notPEM}, "holds no PEM certificate"},
		{TemporalSecurity{CertFile: notPEM, KeyFile: notPEM}, "--temporal-tls-cert " + notPEM},
		{TemporalSecurity{APIKeyFile: filepath.Join(dir, "missing")}, "--temporal-api-key-file: open"},
		{TemporalSecurity{APIKeyFile: notPEM, APIKey: "k"}, "give one"},
	} {
		_, err := (&Config{TemporalSecurity: tc.sec}).Temporal("test", discard, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v; want an error saying %q", tc.sec, err, tc.want)
		}
	}
}

var discard = slog.New(slog.DiscardHandler)

func TestTheAPIKeyFileIsReadOnceAMinuteNotAtEveryCall(t *testing.T) {
	path := filepath.Join(t.TempDir(), "api-key")
	write := func(key string) {
		if err := os.WriteFile(path, []byte(key+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("second")
	f := &apiKeyFile{path: path}
	if got, err := f.get(context.Background()); err != nil || got != "second" {
		t.Fatalf("got %q, %v; want the file's key", got, err)
	}
	write("third")
	if got, _ := f.get(context.Background()); got != "second" {
		t.Errorf("within the minute: %q, want the key read a moment ago", got)
	}
	f.read = time.Now().Add(-time.Minute)
	if got, _ := f.get(context.Background()); got != "third" {
		t.Errorf("a minute later: %q, want the file's new key", got)
	}
}

func TestARefusedConnectionNamesTheOptionItMayLack(t *testing.T) {
	// As the SDK returns them.
	broken := serviceerror.NewUnavailable(`connection error: desc = "error reading server preface: connection reset by peer"`)
	refused := serviceerror.NewUnavailable(`connection error: desc = "dial tcp 127.0.0.1:7233: connect: connection refused"`)
	for _, c := range []struct {
		name string
		err  error
		sec  TemporalSecurity
		want string
	}{
		{"plain client, broken", broken, TemporalSecurity{}, "--temporal-tls or --temporal-tls-ca"},
		{"TLS without a certificate, broken", broken, TemporalSecurity{CAFile: "ca.crt"}, "--temporal-tls-cert and --temporal-tls-key"},
		{"mTLS, broken", broken, TemporalSecurity{CAFile: "ca.crt", CertFile: "c", KeyFile: "k"}, ""},
		{"no API key, unauthorized", serviceerror.NewPermissionDenied("Request unauthorized.", ""), TemporalSecurity{CAFile: "ca.crt"},
			"--temporal-api-key-file or TEMPORAL_API_KEY"},
		{"an API key, unauthorized", serviceerror.NewPermissionDenied("Request unauthorized.", ""), TemporalSecurity{APIKey: "k"}, ""},
		{"an API key implies TLS, broken", broken, TemporalSecurity{APIKey: "k"}, "--temporal-tls-cert and --temporal-tls-key"},
		{"nobody listens", refused, TemporalSecurity{}, ""},
		{"an unknown namespace", serviceerror.NewNamespaceNotFound("default"), TemporalSecurity{}, ""},
		{"no error", nil, TemporalSecurity{}, ""},
	} {
		got := refusalHint(c.err, c.sec)
		if c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("%s: hint %q, want one with %q", c.name, got, c.want)
		}
	}
}
