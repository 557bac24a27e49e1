package auth

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net/http"
	"os"
)

// HTTPClient is the client for OpenAI's and ChatGPT's servers: the system roots plus the CA in
// CODEX_CA_CERTIFICATE when set (SSL_CERT_FILE is honoured by Go itself), as Codex trusts them.
// nil, nil means the default client will do.
func HTTPClient(getenv func(string) string) (*http.Client, error) {
	path := getenv("CODEX_CA_CERTIFICATE")
	if path == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("CODEX_CA_CERTIFICATE: %w", err)
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("CODEX_CA_CERTIFICATE=%s holds no PEM certificate", path)
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return &http.Client{Transport: tr}, nil
}
