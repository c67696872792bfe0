// TLS for Temporal's server on PostgreSQL (Temporal.TLS), as a site that secures its own
// Temporal runs it: a CA of the stack's own signs the frontend's certificate (for 127.0.0.1
// and localhost) and one client's, and the frontend requires a client certificate (mTLS).
// The server reads them through the FRONTEND_TLS_* variables of deploy/temporal/postgres's
// server-config.yaml; a client dials with Stack.TemporalSecurity, the runner's own options.
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

	"liken.sh/runner/internal/app"
)

// makeTemporalTLS writes a CA, the frontend's certificate and a client's into dir, and
// returns the server's environment and the client's options.
func makeTemporalTLS(dir string) (serverEnv []string, client *app.TemporalSecurity, err error) {
	ca, err := NewCertificate("ca", nil, func(c *x509.Certificate) {
		c.IsCA, c.BasicConstraintsValid, c.KeyUsage = true, true, x509.KeyUsageCertSign
	})
	if err != nil {
		return nil, nil, err
	}
	frontend, err := NewCertificate("frontend", &ca, func(c *x509.Certificate) {
		c.DNSNames, c.IPAddresses = []string{"localhost"}, []net.IP{net.IPv4(127, 0, 0, 1)}
		c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	})
	if err != nil {
		return nil, nil, err
	}
	clientCert, err := NewCertificate("client", &ca, func(c *x509.Certificate) {
		c.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	})
	if err != nil {
		return nil, nil, err
	}
	f := func(name string) string { return filepath.Join(dir, name) }
	for name, c := range map[string]tls.Certificate{"ca": ca, "frontend": frontend, "client": clientCert} {
		if err := writePEM(c, f(name+".crt"), f(name+".key")); err != nil {
			return nil, nil, err
		}
	}
	serverEnv = []string{"FRONTEND_TLS_CERT=" + f("frontend.crt"), "FRONTEND_TLS_KEY=" + f("frontend.key"),
		"FRONTEND_TLS_CLIENT_CA=" + f("ca.crt")}
	return serverEnv, &app.TemporalSecurity{CAFile: f("ca.crt"), CertFile: f("client.crt"), KeyFile: f("client.key"), ServerName: "localhost"}, nil
}

// NewCertificate makes a P-256 key and a certificate for it, valid for a day, named name,
// shaped by shape and signed by parent (nil: by itself), for the stack's own servers.
func NewCertificate(name string, parent *tls.Certificate, shape func(*x509.Certificate)) (tls.Certificate, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, err
	}
	serial, err := rand.Int(rand.Reader, big.NewInt(1<<62))
	if err != nil {
		return tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{SerialNumber: serial, Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature}
	shape(tmpl)
	signer, signerKey := tmpl, any(key)
	if parent != nil {
		signer, signerKey = parent.Leaf, parent.PrivateKey
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, signer, &key.PublicKey, signerKey)
	if err != nil {
		return tls.Certificate{}, err
	}
	leaf, err := x509.ParseCertificate(der)
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, err
}

// writePEM writes c's certificate and key as PEM files.
func writePEM(c tls.Certificate, certFile, keyFile string) error {
	keyDER, err := x509.MarshalECPrivateKey(c.PrivateKey.(*ecdsa.PrivateKey))
	if err != nil {
		return err
	}
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.Certificate[0]}), 0o644); err != nil {
		return err
	}
	return os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600)
}
