package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/gocodex/gocodex/internal/auth"
	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/internal/sandbox"
	"github.com/gocodex/gocodex/protocol"
)

// DoctorOptions are `gocodex doctor`'s flags and what it runs with.
type DoctorOptions struct {
	JSON        bool
	Summary     bool
	NetworkOnly bool
	ASCII       bool
	Color       bool
	// Load reads the configuration (its error is a finding, not the end of the report).
	Load func() (*config.Config, []config.Warning, error)
	// Getenv reads the environment (credentials' presence, proxies, CODEX_HOME).
	Getenv func(string) string
	// ReachTimeout bounds the provider probe.
	ReachTimeout time.Duration
}

// DefaultReachTimeout is how long doctor waits for the model provider to answer.
const DefaultReachTimeout = 5 * time.Second

// RunDoctor is `gocodex doctor`: it checks the configuration, the credentials the model
// provider needs, the sandbox the platform offers, CODEX_HOME, git, the MCP servers and
// whether the provider answers, and says what to fix. The exit status is 1 when a check
// failed, 0 otherwise (warnings included), as Codex's.
func RunDoctor(ctx context.Context, o DoctorOptions, out, errOut io.Writer) int {
	if o.ReachTimeout <= 0 {
		o.ReachTimeout = DefaultReachTimeout
	}
	if o.Getenv == nil {
		o.Getenv = os.Getenv
	}
	checks := doctorChecks(ctx, o)
	if o.JSON {
		if err := writeDoctorJSON(out, checks, time.Now()); err != nil {
			fmt.Fprintln(errOut, "Error:", err)
			return 1
		}
	} else {
		writeDoctorText(out, checks, doctorStyle{ascii: o.ASCII, color: o.Color}, o.Summary)
	}
	if overallStatus(checks) == StatusFail {
		return 1
	}
	return 0
}

func doctorChecks(ctx context.Context, o DoctorOptions) []DoctorCheck {
	var checks []DoctorCheck
	timed := func(group string, f func(*DoctorCheck)) {
		start := time.Now()
		c := DoctorCheck{group: group}
		f(&c)
		c.DurationMs = time.Since(start).Milliseconds()
		checks = append(checks, c)
	}
	cfg, warnings, cfgErr := o.Load()
	if !o.NetworkOnly {
		timed("Environment", func(c *DoctorCheck) { checkGit(c, cfg) })
		timed("Environment", func(c *DoctorCheck) { checkState(c, cfg, o.Getenv) })
	}
	timed("Configuration", func(c *DoctorCheck) { checkConfig(c, cfg, warnings, cfgErr) })
	if cfg != nil && !o.NetworkOnly {
		timed("Configuration", func(c *DoctorCheck) { checkAuth(c, cfg, o.Getenv) })
		timed("Configuration", func(c *DoctorCheck) { checkMCP(c, cfg) })
		timed("Configuration", func(c *DoctorCheck) { checkLanguageServers(c, cfg) })
		timed("Configuration", func(c *DoctorCheck) { checkSandbox(ctx, c, cfg) })
	}
	timed("Connectivity", func(c *DoctorCheck) { checkProxyEnv(c, o.Getenv) })
	if cfg != nil {
		timed("Connectivity", func(c *DoctorCheck) { checkReachability(ctx, c, cfg, o) })
	}
	return checks
}

func checkConfig(c *DoctorCheck, cfg *config.Config, warnings []config.Warning, err error) {
	c.ID, c.Category = "config.load", "config"
	if err != nil {
		c.detail("error", err.Error())
		c.set(StatusFail, "config could not be loaded", "Fix the reported config error, then rerun gocodex doctor.")
		return
	}
	c.detail("CODEX_HOME", cfg.CodexHome)
	c.detail("config.toml", filepath.Join(cfg.CodexHome, "config.toml"))
	c.detail("cwd", cfg.Cwd)
	c.detail("model", cfg.Model+" · "+cfg.ModelProviderID)
	c.detail("mcp servers", fmt.Sprint(len(cfg.McpServers)))
	for i, w := range warnings {
		c.detail(fmt.Sprintf("warning %d", i+1), w.String())
	}
	if len(warnings) > 0 {
		c.set(StatusWarning, fmt.Sprintf("config loaded with %d warning(s)", len(warnings)), "Fix or remove the settings the warnings name.")
		return
	}
	c.set(StatusOK, "config loaded", "")
}

func checkAuth(c *DoctorCheck, cfg *config.Config, getenv func(string) string) {
	c.ID, c.Category = "auth.credentials", "auth"
	p := cfg.ModelProvider
	c.detail("model provider requires OpenAI auth", fmt.Sprint(p.RequiresOpenAIAuth))
	switch {
	case p.ExperimentalBearerToken != "":
		c.detail("provider bearer token", "set in config")
		c.set(StatusOK, "auth is provided by the active model provider", "")
	case p.EnvKey != "":
		if strings.TrimSpace(getenv(p.EnvKey)) == "" {
			c.detail("provider auth env var", p.EnvKey+" (missing)")
			c.set(StatusFail, "active model provider auth env var is missing", "Set "+p.EnvKey+" for the active model provider.")
			return
		}
		c.detail("provider auth env var", p.EnvKey+" (present)")
		c.set(StatusOK, "auth is provided by the active model provider", "")
	case !p.RequiresOpenAIAuth:
		c.set(StatusOK, "the active model provider needs no credentials", "")
	default:
		for _, k := range []string{"CODEX_API_KEY", "OPENAI_API_KEY"} {
			if strings.TrimSpace(getenv(k)) != "" {
				c.detail("API key env var", k+" (present)")
				c.set(StatusOK, "API key from the environment", "")
				return
			}
		}
		mode, err := auth.ParseStoreMode(cfg.CLIAuthCredentialsStore)
		if err != nil {
			c.set(StatusFail, "credentials store setting is invalid", err.Error())
			return
		}
		store := auth.NewStore(cfg.CodexHome, mode, nil)
		c.detail("auth storage", store.Path())
		f, err := store.Load()
		switch {
		case err != nil:
			c.detail("error", err.Error())
			c.set(StatusFail, "stored credentials cannot be read", "Run `gocodex login` again, or set OPENAI_API_KEY.")
		case f == nil:
			c.set(StatusFail, "not signed in", "Run `gocodex login`, or set OPENAI_API_KEY.")
		case f.Tokens != nil:
			c.detail("auth mode", "ChatGPT")
			if exp, ok := auth.Expiry(f.Tokens.AccessToken); ok {
				c.detail("access token expires", exp.UTC().Format(time.RFC3339)+" (refreshed when needed)")
			}
			c.set(StatusOK, "signed in with ChatGPT", "")
		case f.APIKey != nil && *f.APIKey != "":
			c.detail("auth mode", "API key "+auth.MaskKey(*f.APIKey))
			c.set(StatusOK, "API key stored by `gocodex login`", "")
		default:
			c.set(StatusFail, "not signed in", "Run `gocodex login`, or set OPENAI_API_KEY.")
		}
	}
}

func checkSandbox(ctx context.Context, c *DoctorCheck, cfg *config.Config) {
	c.ID, c.Category = "sandbox.helpers", "sandbox"
	mode := cfg.SandboxPolicy.Mode
	c.detail("sandbox policy", string(mode))
	c.detail("approval policy", cfg.ApprovalPolicy.String())
	r := sandbox.Probe(ctx, sandbox.Options{})
	c.detail("platform sandbox", string(r.Mechanism))
	switch {
	case mode == protocol.SandboxDangerFullAccess:
		c.set(StatusWarning, "filesystem unrestricted · network enabled", "Commands run unconfined; choose -s workspace-write or read-only unless an outer sandbox contains gocodex.")
	case r.Err != nil:
		c.detail("error", r.Err.Error())
		c.set(StatusFail, "the sandbox policy cannot be enforced here", sandboxFix(runtime.GOOS))
	default:
		c.set(StatusOK, r.Message(), "")
	}
}

func checkState(c *DoctorCheck, cfg *config.Config, getenv func(string) string) {
	c.ID, c.Category = "state.paths", "state"
	var home string
	if cfg != nil {
		home = cfg.CodexHome
	} else if h, err := config.CodexHome(getenv); err == nil {
		home = h
	} else {
		c.detail("error", err.Error())
		c.set(StatusFail, "CODEX_HOME is unusable", "Point CODEX_HOME at an existing directory, or unset it to use ~/.codex.")
		return
	}
	c.detail("CODEX_HOME", home)
	if _, err := os.Stat(home); errors.Is(err, os.ErrNotExist) {
		c.set(StatusOK, "CODEX_HOME does not exist yet (created on first use)", "")
		return
	}
	probe, err := os.CreateTemp(home, ".doctor-*")
	if err != nil {
		c.detail("error", err.Error())
		c.set(StatusFail, "CODEX_HOME is not writable", "Make "+home+" writable: sessions, logs and sign-in are saved there.")
		return
	}
	probe.Close()
	os.Remove(probe.Name())
	for _, d := range []struct{ key, dir string }{{"active rollouts", "sessions"}, {"archived rollouts", "archived_sessions"}} {
		n := 0
		_ = filepath.WalkDir(filepath.Join(home, d.dir), func(p string, e os.DirEntry, err error) error {
			if err == nil && !e.IsDir() && strings.HasPrefix(e.Name(), "rollout-") && strings.HasSuffix(e.Name(), ".jsonl") {
				n++
			}
			return nil
		})
		c.detail(d.key, fmt.Sprintf("%d files", n))
	}
	c.set(StatusOK, "CODEX_HOME is writable", "")
}

func checkGit(c *DoctorCheck, cfg *config.Config) {
	c.ID, c.Category = "git.environment", "git"
	path, err := exec.LookPath("git")
	if err != nil {
		c.set(StatusWarning, "git executable not found", "Install git: /diff, reviews and the git details of sessions need it.")
		return
	}
	c.detail("selected git", path)
	if cfg != nil {
		c.detail("cwd", cfg.Cwd)
		c.detail("repo detected", fmt.Sprint(inGitWorkTree(cfg.Cwd)))
	}
	c.set(StatusOK, "git executable found", "")
}

// inGitWorkTree says whether dir is inside a git work tree (a .git entry in it or above).
func inGitWorkTree(dir string) bool {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return true
		}
		if filepath.Dir(d) == d {
			return false
		}
	}
}

func checkMCP(c *DoctorCheck, cfg *config.Config) {
	c.ID, c.Category = "mcp.config", "mcp"
	if len(cfg.McpServers) == 0 {
		c.set(StatusOK, "no MCP servers configured", "")
		return
	}
	var missing []string
	for _, name := range sortedKeys(cfg.McpServers) {
		s := cfg.McpServers[name]
		switch {
		case s.Enabled != nil && !*s.Enabled:
			c.detail(name, "disabled")
		case s.URL != "":
			c.detail(name, "streamable HTTP "+redactURL(s.URL))
		default:
			if _, err := exec.LookPath(s.Command); err != nil && !filepath.IsAbs(s.Command) {
				c.detail(name, s.Command+" (not found in PATH)")
				missing = append(missing, name)
			} else {
				c.detail(name, "stdio "+s.Command)
			}
		}
	}
	if len(missing) > 0 {
		c.set(StatusWarning, fmt.Sprintf("%d MCP server command(s) not found: %s", len(missing), strings.Join(missing, ", ")),
			"Install the missing commands or fix their `command` in config.toml (servers are not started by doctor).")
		return
	}
	c.set(StatusOK, fmt.Sprintf("%d MCP server(s) configured (not started)", len(cfg.McpServers)), "")
}

// proxyVars are the variables that route gocodex's HTTP through a proxy.
var proxyVars = []string{"HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy", "NO_PROXY", "no_proxy"}

func checkProxyEnv(c *DoctorCheck, getenv func(string) string) {
	c.ID, c.Category = "network.env", "network"
	var set []string
	for _, k := range proxyVars {
		if getenv(k) != "" {
			set = append(set, k)
		}
	}
	if len(set) == 0 {
		c.detail("proxy env vars", "none")
		c.set(StatusOK, "no proxy env vars", "")
		return
	}
	c.detail("proxy env vars", strings.Join(set, ", "))
	c.set(StatusOK, "proxy env vars set: "+strings.Join(set, ", "), "")
}

// checkReachability asks the provider's model list route, with the provider's credentials
// and a short deadline. Any answer but 404 shows the base URL and the network are right
// (401 and 403 are the auth check's business); a 404 means the base URL's prefix is wrong.
func checkReachability(ctx context.Context, c *DoctorCheck, cfg *config.Config, o DoctorOptions) {
	c.ID, c.Category = "network.provider_reachability", "reachability"
	p := cfg.ModelProvider
	c.detail("model provider", cfg.ModelProviderID)
	if p.Capabilities().ModelsPath == "" {
		c.set(StatusOK, "the provider's wire ("+p.Wire()+") has no route to probe", "")
		return
	}
	key, err := model.ResolveAPIKey(p, model.AuthOptions{Getenv: o.Getenv, CodexHome: cfg.CodexHome})
	if err != nil {
		key = "" // the auth check reports it; the route is probed without a key
	}
	// The wire's model list route, authorized as the wire authorizes every request.
	req, err := model.NewModelsRequest(ctx, p, key)
	target := p.EndpointURL(p.Capabilities().ModelsPath)
	c.detail("route probe", "GET "+redactURL(target))
	if err != nil {
		c.detail("error", redactErr(err.Error(), target))
		c.set(StatusFail, "the provider base URL is not a URL", "Set base_url to the provider API root, for example https://api.openai.com/v1")
		return
	}
	hc, err := auth.HTTPClient(o.Getenv)
	if err != nil {
		c.detail("error", err.Error())
		c.set(StatusFail, "the HTTP client cannot be set up", "Check SSL_CERT_FILE and the custom CA configuration.")
		return
	}
	if hc == nil { // no custom CA: the default transport (which honours the proxy variables)
		hc = &http.Client{}
	}
	ctx, cancel := context.WithTimeout(ctx, o.ReachTimeout)
	defer cancel()
	req = req.WithContext(ctx)
	resp, err := hc.Do(req)
	if err != nil {
		reason := err.Error()
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			reason = fmt.Sprintf("no answer within %s", o.ReachTimeout)
		}
		c.detail("error", redactErr(reason, target))
		c.set(StatusFail, "one or more required provider endpoints are unreachable over HTTP", "Check proxy, VPN, firewall, DNS, and custom CA configuration.")
		return
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	resp.Body.Close()
	c.detail("route status", fmt.Sprintf("HTTP %d", resp.StatusCode))
	switch {
	case resp.StatusCode == http.StatusNotFound:
		c.set(StatusFail, "provider base URL route returned 404 - verify the configured API prefix", "Set base_url to the provider API root, for example https://api.openai.com/v1")
	case resp.StatusCode >= 500:
		c.set(StatusWarning, fmt.Sprintf("the provider answered HTTP %d", resp.StatusCode), "The provider reports a server error; retry later.")
	default:
		c.set(StatusOK, "active provider endpoints are reachable over HTTP", "")
	}
}

// redactURL keeps a URL's scheme, host and path: query parameters may carry keys.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "<unparsable URL>"
	}
	u.RawQuery, u.User, u.Fragment = "", nil, ""
	return u.String()
}

func redactErr(msg, target string) string {
	return strings.ReplaceAll(msg, target, redactURL(target))
}

// sandboxFix is what to do on goos when the sandbox cannot be applied.
func sandboxFix(goos string) string {
	switch goos {
	case "windows":
		return "Windows has no gocodex sandbox: approve every command with --sandbox danger-full-access -a untrusted, or run gocodex inside WSL."
	case "darwin":
		return "/usr/bin/sandbox-exec is missing or not executable; restore it, or run inside an outer sandbox with -s danger-full-access."
	}
	return "Enable Landlock or unprivileged user namespaces, or run inside a container with -s danger-full-access."
}
