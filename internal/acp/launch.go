package acp

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/gocodex/gocodex/internal/app"
	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/host/threads"
	"github.com/gocodex/gocodex/internal/jsonrpc"
	"github.com/gocodex/gocodex/internal/version"
)

// LaunchOptions are what the acp command hands the face: its flags over config.toml.
type LaunchOptions struct {
	Flags faceopts.Flags
}

// Launch runs `gocodex acp` over the process's stdio on the factory's host: each session a
// thread started (or resumed) with the session's cwd and MCP servers over the flags.
func Launch(ctx context.Context, fac *faceopts.Factory, o LaunchOptions) error {
	s := fac.IO
	base, err := o.Flags.LoadOptions(nil, faceopts.FullAutoAsksOnRequest)
	if err != nil {
		return err
	}
	cfg, warnings, err := fac.Config(base)
	if err != nil {
		return err
	}
	// stdout is the wire: warnings go to stderr, which editors show in their agent log.
	for _, w := range warnings {
		fmt.Fprintln(s.ErrOut, "warning: "+w.String())
	}
	log := fac.Logger(cfg, "acp", slog.LevelWarn)
	// An editor starts the agent before any sign-in and may sign in through it
	// (authenticate): threads start without credentials, and each request looks for them.
	host, err := fac.Host(app.Options{Config: cfg, DeferCredentials: true})
	if err != nil {
		log.Error("start", "err", err)
		return err
	}
	start := func(ctx context.Context, spec threadSpec) (startedThread, error) {
		cwd := spec.Cwd
		ov := faceopts.ThreadOverrides{Cwd: &cwd, Config: mcpOverrides(spec.McpServers)}
		cfg, warnings, err := fac.Config(ov.Apply(base))
		if err != nil {
			return startedThread{}, err
		}
		for _, w := range warnings {
			log.Warn("config", "warning", w.String())
		}
		to := app.ThreadOptions{Config: cfg}
		var history []replayStep
		if spec.ResumeID != "" {
			ro, err := app.OpenRollout(cfg, app.Open{ResumeID: spec.ResumeID})
			if err != nil {
				return startedThread{}, err
			}
			if ro == nil {
				return startedThread{}, fmt.Errorf("no saved session %s", spec.ResumeID)
			}
			to.Resume, history = ro, replayOf(ro)
		}
		th, err := host.StartThread(ctx, to)
		if err != nil {
			return startedThread{}, err
		}
		return startedThread{Thread: th, History: history}, nil
	}
	var models []modelInfo
	for _, m := range app.ListedModels() {
		models = append(models, modelInfo{ModelID: m.Slug, Name: m.DisplayName, Description: m.Description})
	}
	// os.Stdin cannot be interrupted: the framer reads a pipe it can close when a signal ends
	// ctx. The copier ends with the process.
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, s.In)
		pw.CloseWithError(err)
	}()
	framer := jsonrpc.NewLineFramer(pr, s.Out, pr, jsonrpc.DefaultMaxFrame)
	list := func(cwd, cursor string) (listSessionsResult, error) {
		page, err := threads.New(cfg.CodexHome).List(threads.ListOptions{Cwd: cwd, Cursor: cursor, ByUpdated: true})
		if err != nil {
			return listSessionsResult{}, err
		}
		r := listSessionsResult{Sessions: []sessionInfo{}, NextCursor: page.NextCursor}
		for _, th := range page.Threads {
			r.Sessions = append(r.Sessions, sessionInfo{SessionID: th.ID, Cwd: th.Cwd, Title: th.Preview,
				UpdatedAt: th.UpdatedAt.UTC().Format(time.RFC3339)})
		}
		return r, nil
	}
	signIn := func(ctx context.Context) error {
		// `gocodex login` of this very binary: it opens the browser, waits on its local
		// callback and stores the tokens where every thread's requests look for them.
		self, err := os.Executable()
		if err != nil {
			return err
		}
		cmd := exec.CommandContext(ctx, self, "login")
		cmd.Stdout, cmd.Stderr = s.ErrOut, s.ErrOut // the wire is stdout; the editor logs stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("gocodex login: %w", err)
		}
		host.ForgetClients()
		return nil
	}
	return Serve(ctx, framer, Options{Start: start, List: list, SignIn: signIn, Models: models, Getenv: fac.Getenv, Logger: log, Version: version.Version})
}

// mcpOverrides are the client's MCP servers for one session, as config.toml's mcp_servers
// entries.
func mcpOverrides(servers []mcpServer) map[string]any {
	if len(servers) == 0 {
		return nil
	}
	out := map[string]any{}
	for _, m := range servers {
		entry := map[string]any{}
		if m.Type == "http" || m.Type == "sse" {
			entry["url"] = m.URL
			if len(m.Headers) > 0 {
				entry["http_headers"] = pairs(m.Headers)
			}
		} else {
			entry["command"] = m.Command
			entry["args"] = append([]string{}, m.Args...)
			if len(m.Env) > 0 {
				entry["env"] = pairs(m.Env)
			}
		}
		out["mcp_servers."+m.Name] = entry
	}
	return out
}

func pairs(nv []nameValue) map[string]any {
	out := make(map[string]any, len(nv))
	for _, p := range nv {
		out[p.Name] = p.Value
	}
	return out
}

// validServerName: the name becomes a config key, so it may not split it.
func validServerName(name string) bool {
	return name != "" && !strings.ContainsAny(name, ".\"[] ")
}

// replayOf reads a saved thread's lines for the replay (see replayStep). Each event line is
// decoded as the thread service decodes the history (Codex 0.171's item form included).
func replayOf(ro *threads.Rollout) []replayStep {
	var out []replayStep
	for i, l := range ro.Lines {
		switch l.Type {
		case "event_msg":
			for _, m := range (&threads.Rollout{Lines: ro.Lines[i : i+1]}).InitialMessages() {
				out = append(out, replayStep{Event: m})
			}
		case "response_item":
			out = append(out, replayStep{Item: l.Payload})
		}
	}
	return out
}
