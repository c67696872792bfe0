// API keys for Temporal's server on PostgreSQL (Temporal.APIKeys), as a site that requires them
// runs it: the server takes JSON Web Tokens signed by the keys a JWKS URL serves, as it would
// an identity provider's. The stack is its own provider: it makes a P-256 key, serves its
// public half on 127.0.0.1 while the stack runs, and signs two tokens: the setup script's,
// which may administer the namespace default, and the clients', which may write in it.
package localstack

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// jwtIssuer signs tokens with its key, whose public half it serves as a JWKS.
type jwtIssuer struct {
	key *ecdsa.PrivateKey
	kid string
}

func newJWTIssuer() (*jwtIssuer, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	return &jwtIssuer{key: key, kid: "liken-stack"}, nil
}

// token signs an ES256 token for subject with the server's permissions claim
// ("<namespace>:<role>"), valid for a day.
func (j *jwtIssuer) token(subject string, permissions ...string) (string, error) {
	header, _ := json.Marshal(map[string]string{"alg": "ES256", "typ": "JWT", "kid": j.kid})
	claims, _ := json.Marshal(map[string]any{"sub": subject, "permissions": permissions,
		"iat": time.Now().Unix(), "exp": time.Now().Add(24 * time.Hour).Unix()})
	signed := b64(header) + "." + b64(claims)
	digest := sha256.Sum256([]byte(signed))
	r, s, err := ecdsa.Sign(rand.Reader, j.key, digest[:])
	if err != nil {
		return "", err
	}
	sig := make([]byte, 64) // ES256 is r and s, 32 bytes each
	r.FillBytes(sig[:32])
	s.FillBytes(sig[32:])
	return signed + "." + b64(sig), nil
}

// jwks is the key set the server fetches: the public half of the key.
func (j *jwtIssuer) jwks() []byte {
	pub := j.key.PublicKey
	b, _ := json.Marshal(map[string]any{"keys": []map[string]string{{
		"kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": j.kid,
		"x": b64(pub.X.FillBytes(make([]byte, 32))), "y": b64(pub.Y.FillBytes(make([]byte, 32))),
	}}})
	return b
}

// serve serves the JWKS on a free port of 127.0.0.1 until the stack stops, and returns its URL.
func (j *jwtIssuer) serve(s *Stack) (string, error) {
	port, err := FreePort()
	if err != nil {
		return "", err
	}
	l, err := net.Listen("tcp", "127.0.0.1:"+strconv.Itoa(port))
	if err != nil {
		return "", err
	}
	keys := j.jwks()
	srv := &http.Server{ReadHeaderTimeout: 10 * time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write(keys)
	})}
	go func() {
		if err := srv.Serve(l); !errors.Is(err, http.ErrServerClosed) {
			s.log.Error("the stack's JWKS stopped serving", "error", err)
		}
	}()
	s.onStop(func() { srv.Shutdown(context.Background()) })
	return "http://" + l.Addr().String() + "/jwks.json", nil
}

func b64(b []byte) string { return base64.RawURLEncoding.EncodeToString(b) }

// requireAPIKeys has the server take the API keys of an issuer of the stack's own, set as a
// user sets the overlay for theirs, and gives the setup script and the clients a key each.
func (s *Stack) requireAPIKeys(ov *overlay) error {
	if s.TemporalSecurity == nil {
		return errors.New("API keys come with TLS here (Temporal.TLS): a key sent in the clear is anyone's")
	}
	issuer, err := newJWTIssuer()
	if err != nil {
		return err
	}
	url, err := issuer.serve(s)
	if err != nil {
		return err
	}
	// The runner needs no more than write; the setup script creates the namespace.
	runner, err := issuer.token("liken-runner", "default:write")
	if err != nil {
		return err
	}
	setup, err := issuer.token("liken-setup", "default:admin")
	if err != nil {
		return err
	}
	file := filepath.Join(s.opts.Dir, "temporal-tls", "api-key")
	if err := os.WriteFile(file, []byte(runner+"\n"), 0o600); err != nil {
		return err
	}
	s.TemporalSecurity.APIKeyFile = file
	return ov.requireAPIKeys(url, setup)
}
