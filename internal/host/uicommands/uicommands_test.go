package uicommands

import (
	"archive/zip"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gocodex/gocodex/internal/config"
)

func load(t *testing.T, home string) *config.Config {
	t.Helper()
	cfg, warnings, err := config.Load(config.LoadOptions{CodexHome: home, Cwd: t.TempDir(), Env: func(string) string { return "" }})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range warnings {
		t.Errorf("warning: %s", w)
	}
	return cfg
}

// What the commands save reads back through a config load, under Codex's keys, and the
// rest of config.toml is kept.
func TestPrefsRoundTrip(t *testing.T) {
	home := t.TempDir()
	path := filepath.Join(home, "config.toml")
	if err := os.WriteFile(path, []byte("# mine\nmodel = \"gpt-5.5\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if p := ReadPrefs(load(t, home)); p.StatusLine != nil || p.TerminalTitle != nil || !p.StatusLineUseColors {
		t.Fatalf("defaults: %+v", p)
	}
	must(t, SaveStatusLine(home, []string{"model", "current-dir"}, false))
	must(t, SaveTerminalTitle(home, []string{}))
	must(t, SaveServiceTier(home, "fast"))
	must(t, SavePreset(home, "1", Preset{Input: "summarize the repo"}))
	must(t, SavePreset(home, "2", Preset{Input: "/review", Label: "review"}))
	must(t, SavePreset(home, "2", Preset{}))
	p := ReadPrefs(load(t, home))
	if !slices.Equal(p.StatusLine, []string{"model", "current-dir"}) || p.StatusLineUseColors ||
		p.TerminalTitle == nil || len(p.TerminalTitle) != 0 || p.ServiceTier != "fast" {
		t.Errorf("read back %+v", p)
	}
	if len(p.Presets) != 1 || p.Presets["1"].Input != "summarize the repo" {
		t.Errorf("presets %+v", p.Presets)
	}
	data, _ := os.ReadFile(path)
	for _, want := range []string{"# mine", `status_line = ["model", "current-dir"]`, "status_line_use_colors = false", "terminal_title = []", `service_tier = "fast"`, "[tui.presets.1]"} {
		if !strings.Contains(string(data), want) {
			t.Errorf("config.toml lacks %q:\n%s", want, data)
		}
	}
}

// The feedback ZIP holds the report and, with logs, the log files; nothing is left half
// written in the folder.
func TestSaveFeedbackZIP(t *testing.T) {
	home := t.TempDir()
	logDir := filepath.Join(home, "log")
	must(t, os.MkdirAll(logDir, 0o700))
	must(t, os.WriteFile(filepath.Join(logDir, "gocodex-tui.log"), []byte("a log line\n"), 0o600))
	now := time.Date(2026, 12, 7, 23, 14, 35, 0, time.UTC)
	path, err := SaveFeedbackZIP(Feedback{CodexHome: home, LogDir: logDir, ThreadID: "t-1", Classification: "bug",
		Note: "it broke", Version: "0.1.0", IncludeLogs: true, Now: now})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(filepath.Base(path), "codex-diagnostics-2026-12-07T23-14-35Z-") {
		t.Errorf("name %s", path)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Errorf("feedback folder holds %d files", len(entries))
	}
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	got := map[string]string{}
	for _, f := range zr.File {
		rc, _ := f.Open()
		b, _ := io.ReadAll(rc)
		rc.Close()
		got[f.Name] = string(b)
	}
	if !strings.Contains(got["report.json"], `"reason":"it broke"`) || got["attachments/0000/gocodex-tui.log"] != "a log line\n" ||
		!strings.Contains(got["manifest.json"], "gocodex-tui.log") {
		t.Errorf("ZIP: %v", got)
	}
}

func TestFastTier(t *testing.T) {
	if _, ok := FastTier("gpt-5.5"); !ok {
		t.Error("gpt-5.5 has a Fast tier in the catalog")
	}
	if _, ok := FastTier("local-llama"); ok {
		t.Error("an unknown model has no Fast tier")
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
