package logging_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gocodex/gocodex/internal/logging"
)

// A face opens its log once at start-up, shows any error as a warning, and carries on.
func ExampleOpen() {
	home, _ := os.MkdirTemp("", "codex-home")
	defer os.RemoveAll(home)

	log, err := logging.Open(logging.Options{Dir: filepath.Join(home, "log"), Face: "exec", Getenv: func(string) string { return "" }})
	if err != nil {
		fmt.Fprintln(os.Stderr, "warning:", err)
	}
	log.Logger().Info("model request", "authorization", "Bearer abc123", "model", "gpt-5.5")
	log.Close()

	b, _ := os.ReadFile(log.Path())
	line := string(b)
	fmt.Println(filepath.Base(log.Path()))
	fmt.Println(line[strings.Index(line, "level="):strings.Index(line, " face=")], line[strings.Index(line, "authorization="):])
	// Output:
	// gocodex-exec.log
	// level=INFO msg="model request" authorization=[REDACTED] model=gpt-5.5
}
