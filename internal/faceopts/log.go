package faceopts

import (
	"fmt"
	"io"
	"log/slog"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/internal/logging"
)

// OpenLog opens the face's log under the configuration's log_dir (CODEX_HOME/log by default).
// A log that cannot be opened is a warning on stderr, never a failure. Lines at stderrLevel and
// above also go to stderr (the servers' warnings); NoStderr copies nothing.
func OpenLog(cfg *config.Config, face string, stderr io.Writer, stderrLevel slog.Level) *logging.Log {
	o := logging.Options{Dir: cfg.LogDir, Face: face, StderrLevel: stderrLevel}
	if stderrLevel != NoStderr {
		o.Stderr = stderr
	}
	l, err := logging.Open(o)
	if err != nil && stderr != nil {
		fmt.Fprintf(stderr, "warning: %v\n", err)
	}
	return l
}

// NoStderr keeps a face's log off its stderr (exec, TUI and proto own their output).
const NoStderr = slog.Level(-100)
