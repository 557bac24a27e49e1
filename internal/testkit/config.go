package testkit

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// ConfigOptions tune the config.toml WriteConfig writes. The zero value gives fast-failing
// retries so fault tests finish quickly.
type ConfigOptions struct {
	// Model defaults to "gpt-5.5" (a catalog model, so Codex offers its full toolset).
	Model string
	// RequestMaxRetries, StreamMaxRetries and StreamIdleTimeoutMS go into the provider table
	// when non-nil.
	RequestMaxRetries   *int
	StreamMaxRetries    *int
	StreamIdleTimeoutMS *int
	// ApprovalPolicy defaults to "never", SandboxMode to "danger-full-access".
	ApprovalPolicy string
	SandboxMode    string
	// Extra is appended verbatim at the top level, before the tables.
	Extra string
}

// Int returns a pointer, for ConfigOptions fields.
func Int(v int) *int { return &v }

// WriteConfig writes codexHome/config.toml selecting a `mock` provider at serverURL (a
// Server's URL or BaseURL) with env_key MOCK_API_KEY. Callers set MOCK_API_KEY in the
// environment of the process under test.
func WriteConfig(t testing.TB, codexHome, serverURL string, opts ...ConfigOptions) string {
	t.Helper()
	var o ConfigOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	path, err := WriteConfigFile(codexHome, serverURL, o)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// WriteConfigFile is WriteConfig without a test (cmd/mockmodel -write-config).
func WriteConfigFile(codexHome, serverURL string, o ConfigOptions) (string, error) {
	if o.Model == "" {
		o.Model = "gpt-5.5"
	}
	if o.ApprovalPolicy == "" {
		o.ApprovalPolicy = "never"
	}
	if o.SandboxMode == "" {
		o.SandboxMode = "danger-full-access"
	}
	base := strings.TrimRight(serverURL, "/")
	if !strings.HasSuffix(base, "/v1") {
		base += "/v1"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "model = %s\n", strconv.Quote(o.Model))
	b.WriteString("model_provider = \"mock\"\n")
	fmt.Fprintf(&b, "approval_policy = %s\n", strconv.Quote(o.ApprovalPolicy))
	fmt.Fprintf(&b, "sandbox_mode = %s\n", strconv.Quote(o.SandboxMode))
	b.WriteString("check_for_update_on_startup = false\n")
	if o.Extra != "" {
		b.WriteString(strings.TrimRight(o.Extra, "\n") + "\n")
	}
	b.WriteString("\n[model_providers.mock]\nname = \"Mock\"\n")
	fmt.Fprintf(&b, "base_url = %s\n", strconv.Quote(base))
	b.WriteString("wire_api = \"responses\"\nenv_key = \"MOCK_API_KEY\"\n")
	if o.RequestMaxRetries != nil {
		fmt.Fprintf(&b, "request_max_retries = %d\n", *o.RequestMaxRetries)
	}
	if o.StreamMaxRetries != nil {
		fmt.Fprintf(&b, "stream_max_retries = %d\n", *o.StreamMaxRetries)
	}
	if o.StreamIdleTimeoutMS != nil {
		fmt.Fprintf(&b, "stream_idle_timeout_ms = %d\n", *o.StreamIdleTimeoutMS)
	}
	b.WriteString("\n[features]\nplugins = false\n")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(codexHome, "config.toml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return "", err
	}
	return path, nil
}
