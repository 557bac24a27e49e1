package e2e

import (
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

type doctorJSON struct {
	SchemaVersion int    `json:"schemaVersion"`
	OverallStatus string `json:"overallStatus"`
	CodexVersion  string `json:"codexVersion"`
	Checks        map[string]struct {
		ID          string         `json:"id"`
		Category    string         `json:"category"`
		Status      string         `json:"status"`
		Summary     string         `json:"summary"`
		Details     map[string]any `json:"details"` // Codex repeats a key as a list
		Remediation *string        `json:"remediation"`
	} `json:"checks"`
}

func runDoctorJSON(t *testing.T, e *env, bin string, args ...string) (doctorJSON, result) {
	t.Helper()
	r := e.runBin(bin, "", append([]string{"doctor", "--json"}, args...)...)
	var d doctorJSON
	if err := json.Unmarshal([]byte(r.Stdout), &d); err != nil {
		t.Fatalf("doctor --json is not JSON (%v):\n%s\nstderr: %s", err, r.Stdout, r.Stderr)
	}
	return d, r
}

// TestCLIDoctor: doctor reports each check with what to fix; a failed check exits 1,
// warnings alone 0. Config, credentials, sandbox and provider reachability are checked,
// the last within a short deadline; secrets never appear.
func TestCLIDoctor(t *testing.T) {
	e := newEnv(t)
	e.Model.SetModels("gpt-5.5")
	d, r := runDoctorJSON(t, e, binary)
	if r.Code != 0 || d.SchemaVersion != 1 || d.OverallStatus != "warning" {
		t.Errorf("healthy config with an unsandboxed policy: exit %d, overall %q\n%s", r.Code, d.OverallStatus, r.Stdout)
	}
	for id, want := range map[string]string{"config.load": "ok", "auth.credentials": "ok", "sandbox.helpers": "warning",
		"network.provider_reachability": "ok", "state.paths": "ok", "git.environment": "ok", "mcp.config": "ok", "network.env": "ok"} {
		if got := d.Checks[id]; got.Status != want || got.ID != id {
			t.Errorf("check %s: %+v, want status %s", id, got, want)
		}
	}
	if strings.Contains(r.Stdout, "test-key") {
		t.Errorf("the API key is in the report")
	}
	if got := d.Checks["auth.credentials"].Details["provider auth env var"]; got != "MOCK_API_KEY (present)" {
		t.Errorf("auth details: %q", got)
	}

	// The human report: Notes with the fix, sections, counts.
	h := e.run("", "doctor")
	for _, want := range []string{"Notes", "⚠ sandbox", "Environment", "Configuration", "Connectivity", "✓ reachability", "8 ok · 1 warn · 0 fail degraded"} {
		if !strings.Contains(h.Stdout, want) {
			t.Errorf("doctor output lacks %q:\n%s", want, h.Stdout)
		}
	}
	if s := e.run("", "doctor", "--summary", "--ascii"); s.Code != 0 || !strings.Contains(s.Stdout, "[!!] sandbox") || strings.Contains(s.Stdout, "selected git") {
		t.Errorf("doctor --summary --ascii:\n%s", s.Stdout)
	}
	if n := e.run("", "doctor", "--network-only", "--json"); n.Code != 0 || strings.Contains(n.Stdout, "sandbox.helpers") || !strings.Contains(n.Stdout, "network.provider_reachability") {
		t.Errorf("doctor --network-only:\n%s", n.Stdout)
	}

	// A sandboxed policy is checked against what the platform offers.
	if d, _ := runDoctorJSON(t, e, binary, "-c", `sandbox_mode="workspace-write"`); d.Checks["sandbox.helpers"].Details["platform sandbox"] == nil {
		t.Errorf("sandbox check without the platform's mechanism: %+v", d.Checks["sandbox.helpers"])
	}

	// Missing credentials: fail, exit 1, the variable to set.
	noKey := newEnv(t)
	noKey.ExtraEnv = append(noKey.ExtraEnv, "MOCK_API_KEY=")
	noKey.Model.SetModels("gpt-5.5")
	d, r = runDoctorJSON(t, noKey, binary)
	if a := d.Checks["auth.credentials"]; r.Code != 1 || a.Status != "fail" || a.Remediation == nil || !strings.Contains(*a.Remediation, "Set MOCK_API_KEY") {
		t.Errorf("missing key: exit %d, %+v", r.Code, a)
	}

	// A provider route that is not there (the base URL's prefix is wrong): 404.
	e404 := newEnv(t)
	if d, r := runDoctorJSON(t, e404, binary); r.Code != 1 || !strings.Contains(d.Checks["network.provider_reachability"].Summary, "404") {
		t.Errorf("404 provider: exit %d, %+v", r.Code, d.Checks["network.provider_reachability"])
	}

	// Nobody listening, and a server that never answers: fail within the deadline.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	silent := ln.Addr().String()
	defer ln.Close()
	closed, _ := net.Listen("tcp", "127.0.0.1:0")
	refused := closed.Addr().String()
	closed.Close()
	for name, addr := range map[string]string{"refused": refused, "silent": silent} {
		u := newEnv(t)
		u.ExtraEnv = append(u.ExtraEnv, "NO_PROXY=*")
		d, r := runDoctorJSON(t, u, binary, "-c", `model_providers.mock.base_url="http://`+addr+`/v1"`, "--reach-timeout", "300ms")
		c := d.Checks["network.provider_reachability"]
		if r.Code != 1 || c.Status != "fail" || !strings.Contains(c.Summary, "unreachable") {
			t.Errorf("%s provider: exit %d, %+v", name, r.Code, c)
		}
		if name == "silent" && !strings.Contains(fmt.Sprint(c.Details["error"]), "no answer within 300ms") {
			t.Errorf("silent provider: %+v", c)
		}
	}

	// A config.toml that does not parse: the report still comes, config fails, exit 1.
	bad := newEnv(t)
	if err := os.WriteFile(filepath.Join(bad.CodexHome, "config.toml"), []byte("model = [\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	d, r = runDoctorJSON(t, bad, binary)
	if c := d.Checks["config.load"]; r.Code != 1 || c.Status != "fail" || c.Details["error"] == nil || c.Remediation == nil {
		t.Errorf("broken config: exit %d, %+v", r.Code, c)
	}
}

// TestCLIDoctorMatchesReference: the same situations give Codex 0.169's exit statuses and its
// report's shape (schemaVersion, overallStatus, checks keyed by id with the same fields), and
// the checks both have agree.
func TestCLIDoctorMatchesReference(t *testing.T) {
	ref := referenceBinary(t)
	for name, setup := range map[string]func(e *env){
		"models answered": func(e *env) { e.Model.SetModels("gpt-5.5") },
		"404 route":       func(e *env) {},
		"missing key": func(e *env) {
			e.ExtraEnv = append(e.ExtraEnv, "MOCK_API_KEY=")
			e.Model.SetModels("gpt-5.5")
		},
	} {
		t.Run(name, func(t *testing.T) {
			e := newEnv(t)
			setup(e)
			ours, or := runDoctorJSON(t, e, binary)
			theirs, tr := runDoctorJSON(t, e, ref)
			if or.Code != tr.Code {
				t.Errorf("exit: ours %d, reference %d", or.Code, tr.Code)
			}
			for _, id := range []string{"config.load", "auth.credentials", "network.provider_reachability", "mcp.config", "git.environment"} {
				o, th := ours.Checks[id], theirs.Checks[id]
				if o.Status != th.Status || o.Category != th.Category {
					t.Errorf("%s: ours %s/%s %q, reference %s/%s %q", id, o.Category, o.Status, o.Summary, th.Category, th.Status, th.Summary)
				}
			}
		})
	}
}
