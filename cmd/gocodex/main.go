// Command gocodex is the one binary: the agent's faces (exec, proto, app-server, mcp-server),
// and, chosen by argv[0] or a hidden first argument, the sandbox helper and apply_patch.
package main

import (
	"context"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/gocodex/gocodex/internal/faceopts"
	"github.com/gocodex/gocodex/internal/iostreams"
	"github.com/gocodex/gocodex/internal/patch"
	"github.com/gocodex/gocodex/internal/sandbox"
	"github.com/gocodex/gocodex/internal/version"
)

// The names under which the binary acts as one of its embedded programs. The sandbox package
// re-executes the binary with sandboxHelperFlag; the apply_patch tool applies patches inside
// the sandbox with patch.RunAsApplyPatchArg.
const (
	sandboxHelperArg0 = "gocodex-linux-sandbox"
	sandboxHelperFlag = "--gocodex-sandbox-helper"
)

func main() {
	os.Exit(run(os.Args))
}

func run(args []string) int {
	if code, handled := dispatchArg0(args); handled {
		return code
	}
	// `gocodex --version` alone answers before the command tree is built: launchers and
	// editors run it to probe the binary, and it is the start-up benchmark.
	if len(args) == 2 && (args[1] == "--version" || args[1] == "-V" || args[1] == "-v") {
		os.Stdout.WriteString(version.Full() + "\n")
		return 0
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	// The one factory of the process: the host and the configuration are built on first use,
	// by the commands that need them, and ended when the command returns.
	fac := faceopts.NewFactory(iostreams.System())
	defer fac.Close(context.WithoutCancel(ctx))
	root := newRootCommand(fac)
	root.SetArgs(args[1:])
	if err := root.ExecuteContext(ctx); err != nil {
		if code, ok := exitCodeOf(err); ok {
			return code
		}
		if ue, ok := asUsageError(err); ok {
			root.PrintErrln("Error:", ue)
			root.PrintErrln("\nFor more information, try '--help'.")
			return usageExitCode
		}
		root.PrintErrln("Error:", err)
		return 1
	}
	return 0
}

// dispatchArg0 runs the embedded programs the binary also is: apply_patch (when invoked under
// that name, as Codex's models expect on PATH) and the sandbox helper (re-exec'd by the engine).
func dispatchArg0(args []string) (int, bool) {
	switch filepath.Base(args[0]) {
	case "apply_patch", "applypatch":
		return patch.RunStandalone(args, os.Stdin, os.Stdout, os.Stderr), true
	case sandboxHelperArg0:
		return sandbox.HelperMain(args[1:]), true
	}
	if len(args) > 1 && args[1] == sandboxHelperFlag {
		return sandbox.HelperMain(args[2:]), true
	}
	return patch.DispatchStandalone(args, os.Stdin, os.Stdout, os.Stderr)
}
