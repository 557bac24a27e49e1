package lsp

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/gocodex/gocodex/internal/sandbox"
	"github.com/gocodex/gocodex/protocol"
)

// SandboxOptions say how a session's servers are confined.
type SandboxOptions struct {
	// Cwd is the session's working directory, which the policy's workspace means.
	Cwd string
	// CacheDir holds a private writable folder per server (its HOME, XDG and Go caches,
	// TMPDIR), outside the workspace, so that a server works under read-only too.
	CacheDir string
	// Environ is the environment servers start from, the session's environment policy
	// already applied.
	Environ []string
	Sandbox sandbox.Options
}

// SandboxSpawner runs servers under the sandbox policy of the turn that starts them, as
// commands run, with the server's cache folder writable: added to the workspace's roots
// under workspace-write, and the only writable place under read-only.
func SandboxSpawner(o SandboxOptions) SpawnFunc {
	var probeOnce sync.Once
	var probe sandbox.ProbeResult
	return func(ctx context.Context, policy protocol.SandboxPolicy, s Server, root string, argv []string) (*exec.Cmd, error) {
		cache := filepath.Join(o.CacheDir, s.ID)
		env, err := serverEnv(o.Environ, cache, s.Env)
		if err != nil {
			return nil, err
		}
		req := sandbox.Request{Cwd: root, Argv: argv, Env: env, Options: o.Sandbox}
		switch policy.EffectiveMode() {
		case protocol.SandboxDangerFullAccess:
			req.Policy = policy
		case protocol.SandboxWorkspaceWrite:
			req.Policy = policy
			req.Policy.WritableRoots = append(append([]string(nil), policy.WritableRoots...), cache)
			req.PolicyCwd = o.Cwd
		default:
			// Read-only: the cache folder plays the workspace, the only root written.
			req.Policy = protocol.SandboxPolicy{Mode: protocol.SandboxWorkspaceWrite, ExcludeTmpdirEnvVar: true, ExcludeSlashTmp: true}
			req.PolicyCwd = cache
		}
		if !req.Policy.HasFullDiskWriteAccess() {
			probeOnce.Do(func() { probe = sandbox.Probe(ctx, o.Sandbox) })
			p := probe
			req.Probe = &p
		}
		// The server lives as long as the session, not as long as ctx.
		return sandbox.Command(context.Background(), req)
	}
}

// serverEnv is base with the server's private folders in place of the user's (HOME, the XDG
// folders, TMPDIR, GOCACHE; GOMODCACHE stays the user's, readable, so modules already
// downloaded resolve), then the server's own variables.
func serverEnv(base []string, cache string, extra map[string]string) ([]string, error) {
	vars := map[string]string{}
	for _, kv := range base {
		if k, v, ok := strings.Cut(kv, "="); ok {
			vars[k] = v
		}
	}
	if vars["GOMODCACHE"] == "" {
		gopath, _, _ := strings.Cut(vars["GOPATH"], string(os.PathListSeparator))
		if gopath == "" && vars["HOME"] != "" {
			gopath = filepath.Join(vars["HOME"], "go")
		}
		if gopath != "" {
			vars["GOMODCACHE"] = filepath.Join(gopath, "pkg", "mod")
		}
	}
	private := map[string]string{
		"HOME": "home", "XDG_CACHE_HOME": "xdg-cache", "XDG_CONFIG_HOME": "xdg-config",
		"XDG_DATA_HOME": "xdg-data", "XDG_STATE_HOME": "xdg-state", "TMPDIR": "tmp", "GOCACHE": "go-build",
	}
	for k, dir := range private {
		p := filepath.Join(cache, dir)
		if err := os.MkdirAll(p, 0o700); err != nil {
			return nil, err
		}
		vars[k] = p
	}
	// Go's telemetry child (gopls starts one) leaves the server's process group; with the
	// telemetry off in the server's private config folder it does not start.
	for _, dir := range []string{filepath.Join(vars["XDG_CONFIG_HOME"], "go", "telemetry"), filepath.Join(vars["HOME"], "Library", "Application Support", "go", "telemetry")} {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, "mode"), []byte("off"), 0o600); err != nil {
			return nil, err
		}
	}
	for k, v := range extra {
		vars[k] = v
	}
	out := make([]string, 0, len(vars))
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out, nil
}

// CacheDir is the default folder of the servers' private caches: gocodex/lsp under the
// user's cache folder ($XDG_CACHE_HOME, else ~/.cache).
func CacheDir(getenv func(string) string) string {
	if d := getenv("XDG_CACHE_HOME"); d != "" {
		return filepath.Join(d, "gocodex", "lsp")
	}
	if home := getenv("HOME"); home != "" {
		return filepath.Join(home, ".cache", "gocodex", "lsp")
	}
	return filepath.Join(os.TempDir(), "gocodex-lsp")
}
