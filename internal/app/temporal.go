// How the binaries reach Temporal: the one place a client is built, for a bare dev server as
// for a site's own Temporal behind mTLS or Temporal Cloud with an API key. The environment
// variables are the ones Temporal's own CLI and SDKs read (TEMPORAL_TLS_CLIENT_CERT_PATH, ...),
// so a site that has them set for `temporal` has them set for the runner. The client
// certificate and its key are read again at each new connection, and the API key at most once
// a minute, so a mounted Secret that Kubernetes updates is picked up without a restart; the CA
// is read at start.
package app

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.temporal.io/api/serviceerror"
	"go.temporal.io/api/workflowservice/v1"
	"go.temporal.io/sdk/client"
	sdklog "go.temporal.io/sdk/log"
	"google.golang.org/grpc/codes"
)

// TemporalSecurity is how the connection to Temporal is secured: none by default.
type TemporalSecurity struct {
	// TLS turns TLS on with the system's roots; any of the files or keys below turns it on too.
	TLS bool
	// CAFile is the PEM bundle of the CAs that sign the frontend's certificate.
	CAFile string
	// CertFile and KeyFile are the client's certificate and key (mTLS), both or neither.
	CertFile, KeyFile string
	// ServerName is the name the frontend's certificate must hold, when not its address's host.
	ServerName string
	// APIKeyFile holds an API key (Temporal Cloud's), read again once a minute; APIKey is one
	// given in the environment. At most one of the two.
	APIKeyFile, APIKey string
}

func (s *TemporalSecurity) flags(fs *flag.FlagSet) {
	on, _ := strconv.ParseBool(os.Getenv("TEMPORAL_TLS"))
	fs.BoolVar(&s.TLS, "temporal-tls", on, "dial Temporal over TLS with the system's roots; the TLS files and an API key below imply it (env TEMPORAL_TLS)")
	fs.StringVar(&s.CAFile, "temporal-tls-ca", os.Getenv("TEMPORAL_TLS_SERVER_CA_CERT_PATH"),
		"PEM file of the CAs that sign Temporal's certificate (env TEMPORAL_TLS_SERVER_CA_CERT_PATH)")
	fs.StringVar(&s.CertFile, "temporal-tls-cert", os.Getenv("TEMPORAL_TLS_CLIENT_CERT_PATH"),
		"PEM file of the client certificate for mTLS, read at each connection (env TEMPORAL_TLS_CLIENT_CERT_PATH)")
	fs.StringVar(&s.KeyFile, "temporal-tls-key", os.Getenv("TEMPORAL_TLS_CLIENT_KEY_PATH"),
		"PEM file of the client certificate's key (env TEMPORAL_TLS_CLIENT_KEY_PATH)")
	fs.StringVar(&s.ServerName, "temporal-tls-server-name", os.Getenv("TEMPORAL_TLS_SERVER_NAME"),
		"name Temporal's certificate must hold, when not the address's host (env TEMPORAL_TLS_SERVER_NAME)")
	fs.StringVar(&s.APIKeyFile, "temporal-api-key-file", os.Getenv("TEMPORAL_API_KEY_FILE"),
		"file holding an API key, read again once a minute; or the key itself in env TEMPORAL_API_KEY (env TEMPORAL_API_KEY_FILE)")
	s.APIKey = os.Getenv("TEMPORAL_API_KEY")
}

// Env is the environment that gives a child process these options, as the flags read it.
func (s TemporalSecurity) Env() []string {
	var env []string
	for name, v := range map[string]string{"TEMPORAL_TLS_SERVER_CA_CERT_PATH": s.CAFile,
		"TEMPORAL_TLS_CLIENT_CERT_PATH": s.CertFile, "TEMPORAL_TLS_CLIENT_KEY_PATH": s.KeyFile,
		"TEMPORAL_TLS_SERVER_NAME": s.ServerName, "TEMPORAL_API_KEY_FILE": s.APIKeyFile, "TEMPORAL_API_KEY": s.APIKey} {
		if v != "" {
			env = append(env, name+"="+v)
		}
	}
	if s.TLS {
		env = append(env, "TEMPORAL_TLS=true")
	}
	slices.Sort(env)
	return env
}

// TLSConfig is the TLS the options ask for, or nil for none. It reads the CA now and checks
// that the client certificate and key load, so a wrong path fails the start with its name.
func (s TemporalSecurity) TLSConfig() (*tls.Config, error) {
	if (s.CertFile == "") != (s.KeyFile == "") {
		return nil, errors.New("--temporal-tls-cert and --temporal-tls-key go together: give both, or neither")
	}
	if !s.tlsOn() {
		return nil, nil
	}
	cfg := &tls.Config{ServerName: s.ServerName, MinVersion: tls.VersionTLS12}
	if s.CAFile != "" {
		pem, err := os.ReadFile(s.CAFile)
		if err != nil {
			return nil, fmt.Errorf("--temporal-tls-ca: %w", err)
		}
		cfg.RootCAs = x509.NewCertPool()
		if !cfg.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("--temporal-tls-ca %s holds no PEM certificate", s.CAFile)
		}
	}
	if s.CertFile != "" {
		load := func() (*tls.Certificate, error) {
			c, err := tls.LoadX509KeyPair(s.CertFile, s.KeyFile)
			if err != nil {
				return nil, fmt.Errorf("--temporal-tls-cert %s and --temporal-tls-key %s: %w", s.CertFile, s.KeyFile, err)
			}
			return &c, nil
		}
		if _, err := load(); err != nil {
			return nil, err
		}
		cfg.GetClientCertificate = func(*tls.CertificateRequestInfo) (*tls.Certificate, error) { return load() }
	}
	return cfg, nil
}

// tlsOn says whether any option asks for TLS. An API key does, as in Temporal's SDK: a key
// sent in the clear is anyone's.
func (s TemporalSecurity) tlsOn() bool {
	return s.TLS || s.CAFile != "" || s.CertFile != "" || s.ServerName != "" || s.APIKey != "" || s.APIKeyFile != ""
}

// credentials are the API key's, or nil for none.
func (s TemporalSecurity) credentials() (client.Credentials, error) {
	switch {
	case s.APIKeyFile != "" && s.APIKey != "":
		return nil, errors.New("both --temporal-api-key-file and TEMPORAL_API_KEY are set: give one")
	case s.APIKey != "":
		return client.NewAPIKeyStaticCredentials(s.APIKey), nil
	case s.APIKeyFile == "":
		return nil, nil
	}
	key := &apiKeyFile{path: s.APIKeyFile}
	if _, err := key.get(context.Background()); err != nil {
		return nil, err
	}
	return client.NewAPIKeyDynamicCredentials(key.get), nil
}

// apiKeyFile reads the API key from its file at most once a minute: the SDK asks for it at
// every call, and Kubernetes takes about as long to update a mounted Secret.
type apiKeyFile struct {
	path string
	mu   sync.Mutex
	key  string
	read time.Time
}

func (f *apiKeyFile) get(context.Context) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.key != "" && time.Since(f.read) < time.Minute {
		return f.key, nil
	}
	b, err := os.ReadFile(f.path)
	if err != nil {
		return "", fmt.Errorf("--temporal-api-key-file: %w", err)
	}
	f.key, f.read = strings.TrimSpace(string(b)), time.Now()
	return f.key, nil
}

// Temporal builds the client to the Temporal frontend. The dial is lazy, so a Temporal that
// is still starting does not stop the process; /readyz reports it instead (TemporalReady).
// identity names the process in workflow histories (empty: the SDK's pid@host@). The SDK's
// metrics go to metrics (nil: none).
func (c *Config) Temporal(identity string, log *slog.Logger, metrics client.MetricsHandler) (client.Client, error) {
	tlsCfg, err := c.TemporalSecurity.TLSConfig()
	if err != nil {
		return nil, err
	}
	creds, err := c.TemporalSecurity.credentials()
	if err != nil {
		return nil, err
	}
	return client.NewLazyClient(client.Options{
		HostPort:          c.TemporalAddress,
		Namespace:         c.TemporalNamespace,
		Identity:          identity,
		Logger:            sdklog.NewStructuredLogger(log.With("from", "temporal-sdk")),
		MetricsHandler:    metrics,
		ConnectionOptions: client.ConnectionOptions{TLS: tlsCfg},
		Credentials:       creds,
	})
}

// TemporalReady is a readiness check: the frontend answers and knows the namespace. A refused
// connection says which option may be missing (refusalHint).
func (c *Config) TemporalReady(tc client.Client) func(context.Context) error {
	return func(ctx context.Context) error {
		_, err := tc.WorkflowService().DescribeNamespace(ctx, &workflowservice.DescribeNamespaceRequest{Namespace: c.TemporalNamespace})
		if hint := refusalHint(err, c.TemporalSecurity); hint != "" {
			return fmt.Errorf("%w (%s)", err, hint)
		}
		return err
	}
}

// refusalHint names the option a refused connection may lack, or is empty. A server that
// requires API keys answers only "Request unauthorized.". One that wants TLS or a client
// certificate says so in its TLS alert, but the client often hears only that the connection
// broke: TLS 1.3 ends the client's half of the handshake before the server checks the
// certificate, and a reset loses the alert.
func refusalHint(err error, s TemporalSecurity) string {
	code := serviceerror.ToStatus(err).Code()
	if code == codes.PermissionDenied && s.APIKey == "" && s.APIKeyFile == "" {
		return "if Temporal requires an API key, give one: --temporal-api-key-file or TEMPORAL_API_KEY"
	}
	if code != codes.Unavailable || strings.Contains(err.Error(), "connection refused") {
		return ""
	}
	switch {
	case !s.tlsOn():
		return "if Temporal serves TLS, turn it on: --temporal-tls or --temporal-tls-ca"
	case s.CertFile == "":
		return "if Temporal asks for a client certificate (mTLS), give one: --temporal-tls-cert and --temporal-tls-key"
	}
	return ""
}

// WaitForTemporal waits until ready answers nil, trying again after a back-off that doubles
// from 1 s to 30 s and saying why at each try: after a site's power cut everything starts at
// once, and a process that exited instead would wait out the kubelet's crash-loop back-off.
func WaitForTemporal(ctx context.Context, ready func(context.Context) error, address string, log *slog.Logger) error {
	for wait := time.Second; ; wait = min(2*wait, 30*time.Second) {
		try, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := ready(try)
		cancel()
		if err == nil {
			return nil
		}
		log.Warn("waiting for Temporal; unready until it answers", "address", address, "err", err, "retryIn", wait)
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
	}
}
