package testkit

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/klauspost/compress/zstd"
)

// ChatGPTServer plays the ChatGPT backend (chatgpt_base_url) over TLS on 127.0.0.1, as Codex
// 0.169 requires an HTTPS backend: the workspace routing check and the Responses endpoint at
// /backend-api/codex/responses, whose zstd bodies it decompresses and whose answers come from
// a scripted model Server (which records them, headers included). CAFile is the PEM to trust
// (CODEX_CA_CERTIFICATE / SSL_CERT_FILE).
//
//	model := testkit.NewServer(t)
//	backend := testkit.NewChatGPTServer(t, model)
//	// config: chatgpt_base_url = backend.BaseURL(); env: CODEX_CA_CERTIFICATE=backend.CAFile
type ChatGPTServer struct {
	srv    *httptest.Server
	model  *Server
	CAFile string

	mu           sync.Mutex
	paths        []string
	unauthorized int               // the next responses requests answered 401
	valid        func(string) bool // which bearer tokens the backend accepts
	checkStatus  int
	// account routes (chatgpt_account.go)
	idempotencyKeys []string
	nudges          int
}

// NewChatGPTServer starts the backend in front of model; it stops when the test ends.
func NewChatGPTServer(t TB, model *Server) *ChatGPTServer {
	b := &ChatGPTServer{model: model, checkStatus: http.StatusOK}
	ca, leaf, err := newTestCA()
	if err != nil {
		panic(err)
	}
	b.srv = httptest.NewUnstartedServer(http.HandlerFunc(b.serve))
	b.srv.TLS = &tls.Config{Certificates: []tls.Certificate{leaf}}
	b.srv.StartTLS()
	t.Cleanup(b.srv.Close)
	dir, err := os.MkdirTemp("", "testkit-ca-")
	if err != nil {
		panic(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	b.CAFile = filepath.Join(dir, "ca.pem")
	if err := os.WriteFile(b.CAFile, ca, 0o600); err != nil {
		panic(err)
	}
	return b
}

// BaseURL is the chatgpt_base_url to configure.
func (b *ChatGPTServer) BaseURL() string { return b.srv.URL + "/backend-api/" }

// Unauthorized makes the next n Responses requests answer 401.
func (b *ChatGPTServer) Unauthorized(n int) {
	b.mu.Lock()
	b.unauthorized = n
	b.mu.Unlock()
}

// AcceptTokens sets which bearer tokens are valid (401 otherwise); nil accepts any.
func (b *ChatGPTServer) AcceptTokens(valid func(token string) bool) {
	b.mu.Lock()
	b.valid = valid
	b.mu.Unlock()
}

// SetAccountsCheckStatus makes the routing check answer status (404 makes Codex fail turns).
func (b *ChatGPTServer) SetAccountsCheckStatus(status int) {
	b.mu.Lock()
	b.checkStatus = status
	b.mu.Unlock()
}

// Paths are the method and path of every request, in order ("GET /backend-api/...").
func (b *ChatGPTServer) Paths() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]string(nil), b.paths...)
}

func (b *ChatGPTServer) serve(w http.ResponseWriter, r *http.Request) {
	b.mu.Lock()
	b.paths = append(b.paths, r.Method+" "+r.URL.Path)
	checkStatus, valid := b.checkStatus, b.valid
	b.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && (r.URL.Path == "/backend-api/wham/accounts/check" || strings.HasSuffix(r.URL.Path, "/api/codex/accounts/check")):
		if checkStatus != http.StatusOK {
			http.Error(w, "no", checkStatus)
			return
		}
		writeJSON(w, http.StatusOK, map[string]any{
			"accounts":         []any{map[string]any{"id": "acct-123", "workspace_backend_origin": "NO_CONSTRAINT", "account_routing_override": "NO_CONSTRAINT"}},
			"account_ordering": []string{"acct-123"}, "default_account_id": "acct-123"})
	case r.URL.Path == "/backend-api/codex/responses" && r.Header.Get("Upgrade") != "":
		http.Error(w, "use HTTPS POST", http.StatusUpgradeRequired)
	case r.Method == http.MethodPost && r.URL.Path == "/backend-api/codex/responses":
		token := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
		b.mu.Lock()
		deny := b.unauthorized > 0 || token == "" || (valid != nil && !valid(token))
		if b.unauthorized > 0 {
			b.unauthorized--
		}
		b.mu.Unlock()
		if deny {
			writeJSON(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"message": "Unauthorized", "code": "token_expired"}})
			return
		}
		b.forward(w, r)
	case b.serveAccount(w, r):
	default:
		http.NotFound(w, r)
	}
}

// forward hands the (decompressed) request to the scripted model, which records it.
func (b *ChatGPTServer) forward(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if r.Header.Get("Content-Encoding") == "zstd" {
		dec, _ := zstd.NewReader(nil)
		body, err = dec.DecodeAll(body, nil)
		dec.Close()
		if err != nil {
			http.Error(w, "bad zstd body: "+err.Error(), http.StatusBadRequest)
			return
		}
		r.Header.Set("X-Testkit-Content-Encoding", "zstd") // what the client sent, for the test
		r.Header.Del("Content-Encoding")
	}
	target, _ := url.Parse(b.model.URL())
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1
	r2 := r.Clone(r.Context())
	r2.URL.Path = "/v1/responses"
	r2.Body = io.NopCloser(bytes.NewReader(body))
	r2.ContentLength = int64(len(body))
	proxy.ServeHTTP(w, r2)
}

// newTestCA makes a CA (returned as PEM) and a server certificate it signed for 127.0.0.1 and
// localhost: rustls, which Codex uses, refuses a self-signed CA certificate as a server's.
func newTestCA() ([]byte, tls.Certificate, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	now := time.Now()
	caTmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "gocodex testkit CA"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	caCert, _ := x509.ParseCertificate(caDER)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(24 * time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)}, DNSNames: []string{"localhost"}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
	if err != nil {
		return nil, tls.Certificate{}, err
	}
	leaf := tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), leaf, nil
}
