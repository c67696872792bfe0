// TLS for Temporal's server on PostgreSQL (Temporal.TLS), as a site that secures its own
// Temporal runs it: a CA of the stack's own signs the frontend's certificate (for 127.0.0.1
// and localhost) and one client's, and the frontend requires a client certificate (mTLS).
// The server reads them through the FRONTEND_TLS_* variables of deploy/temporal/postgres's
// server-config.yaml; a client finds its files in Stack.TemporalTLS.
package localstack

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// TemporalTLS are the files a client of the stack's TLS Temporal dials with: the CA that
// signed the frontend's certificate, and a client certificate and key that CA signed.
type TemporalTLS struct {
	CA, Cert, Key string
	// ServerName is the name in the frontend's certificate.
	ServerName string
}

// Config is the client TLS these files make.
func (t *TemporalTLS) Config() (*tls.Config, error) {
	pemCA, err := os.ReadFile(t.CA)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pemCA)
	cert, err := tls.LoadX509KeyPair(t.Cert, t.Key)
	if err != nil {
		return nil, err
	}
	return &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, ServerName: t.ServerName}, nil
}

// Env is what the temporal CLI reads to dial with these files.
func (t *TemporalTLS) Env() []string {
	return []string{"TEMPORAL_TLS_SERVER_CA_CERT_PATH=" + t.CA, "TEMPORAL_TLS_CLIENT_CERT_PATH=" + t.Cert,
		"TEMPORAL_TLS_CLIENT_KEY_PATH=" + t.Key, "TEMPORAL_TLS_SERVER_NAME=" + t.ServerName}
}

// makeTemporalTLS writes a CA, the frontend's certificate and a client's into dir, and
// returns the server's environment and the client's files.
func makeTemporalTLS(dir string) (serverEnv []string, client *TemporalTLS, err error) {
	ca, caKey, err := newCert(dir, "ca", nil, nil, func(c *x509.Certificate) {
		c.IsCA, c.BasicConstraintsValid, c.KeyUsage = true, true, x509.KeyUsageCertSign
	})
	if err != nil {
		return nil, nil, err
	}
	// The server's own system worker dials the frontend with the server's certificate: it is
	// a client's certificate too.
	if _, _, err := newCert(dir, "frontend", ca, caKey, func(c *x509.Certificate) {
		c.DNSNames, c.IPAddresses = []string{"localhost"}, []net.IP{net.IPv4(127, 0, 0, 1)}
		c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
	}); err != nil {
		return nil, nil, err
	}
	if _, _, err := newCert(dir, "client", ca, caKey, func(c *x509.Certificate) {
		c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	}); err != nil {
		return nil, nil, err
	}
	f := func(name string) string { return filepath.Join(dir, name) }
	serverEnv = []string{"FRONTEND_TLS_CERT=" + f("frontend.crt"), "FRONTEND_TLS_KEY=" + f("frontend.key"),
		"FRONTEND_TLS_CLIENT_CA=" + f("ca.crt"), "FRONTEND_TLS_CA=" + f("ca.crt"), "FRONTEND_TLS_SERVER_NAME=localhost"}
	return serverEnv, &TemporalTLS{CA: f("ca.crt"), Cert: f("client.crt"), Key: f("client.key"), ServerName: "localhost"}, nil
}

// newCert writes <name>.crt and <name>.key into dir: a certificate named name, shaped by
// shape, signed by parent (nil: by itself).
func newCert(dir, name string, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, shape func(*x509.Certificate)) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature}
	shape(tmpl)
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		return nil, nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, name+".crt"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		return nil, nil, err
	}
	if err := os.WriteFile(filepath.Join(dir, name+".key"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	return cert, key, err
}
