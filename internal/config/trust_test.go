package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gocodex/gocodex/internal/writejournal"
)

// gitRepo makes dir a repository as git sees it (a .git folder with a HEAD).
func (f *fixture) gitRepo(dir string) {
	f.write(filepath.Join(dir, ".git", "HEAD"), "ref: refs/heads/main\n")
}

// linkedWorktree makes wt a linked worktree of the repository main, as `git worktree add`
// leaves it: wt/.git points at main/.git/worktrees/<name>, which points back.
func (f *fixture) linkedWorktree(main, wt string) {
	admin := filepath.Join(main, ".git", "worktrees", filepath.Base(wt))
	f.write(filepath.Join(admin, "HEAD"), "ref: refs/heads/wt\n")
	f.write(filepath.Join(admin, "gitdir"), filepath.Join(wt, ".git")+"\n")
	f.write(filepath.Join(wt, ".git"), "gitdir: "+admin+"\n")
}

func (f *fixture) trustOf(dir, level string) string {
	return "[projects." + quoteString(dir) + "]\ntrust_level = \"" + level + "\"\n"
}

// The session's trust, and which .codex folders load, for the layouts observed with Codex
// 0.169 and 0.171 (e2e/testdata/codex-0.169-project-trust.json has the same cases run
// through both binaries).
func TestTrustDecisions(t *testing.T) {
	type want struct {
		session string   // TrustLevel
		loaded  []string // the .codex folders that load, relative to the fixture's repo
	}
	cases := []struct {
		name  string
		setup func(f *fixture) (cwd string)
		want  want
	}{
		{"no decision", func(f *fixture) string {
			f.userConfig("")
			return f.project
		}, want{"", nil}},
		{"untrusted", func(f *fixture) string {
			f.userConfig(f.trustOf(f.project, "untrusted"))
			return f.project
		}, want{"untrusted", nil}},
		{"trusted", func(f *fixture) string {
			f.userConfig(f.trust())
			return f.project
		}, want{"trusted", []string{"."}}},
		{"sub-folder of a trusted repository", func(f *fixture) string {
			f.userConfig(f.trust())
			return filepath.Join(f.project, "sub")
		}, want{"trusted", []string{".", "sub"}}},
		{"empty .git file planted in a trusted repository", func(f *fixture) string {
			f.userConfig(f.trust())
			f.write(filepath.Join(f.project, "sub", ".git"), "")
			return filepath.Join(f.project, "sub")
		}, want{"", nil}},
		{"repository made inside a trusted repository", func(f *fixture) string {
			f.userConfig(f.trust())
			f.gitRepo(filepath.Join(f.project, "sub"))
			return filepath.Join(f.project, "sub")
		}, want{"", nil}},
		{"empty .git folder inside a trusted repository (git passes it by)", func(f *fixture) string {
			f.userConfig(f.trust())
			if err := os.MkdirAll(filepath.Join(f.project, "sub", ".git"), 0o755); err != nil {
				t.Fatal(err)
			}
			return filepath.Join(f.project, "sub")
		}, want{"trusted", []string{"sub"}}},
		{"only the sub-folder trusted", func(f *fixture) string {
			f.userConfig(f.trustOf(filepath.Join(f.project, "sub"), "trusted"))
			return filepath.Join(f.project, "sub")
		}, want{"trusted", []string{"sub"}}},
		{"parent of the repository trusted", func(f *fixture) string {
			f.userConfig(f.trustOf(filepath.Dir(f.project), "trusted"))
			return f.project
		}, want{"", nil}},
		{"linked worktree of a trusted repository", func(f *fixture) string {
			f.userConfig(f.trust())
			wt := filepath.Join(f.project, "sub")
			f.linkedWorktree(f.project, wt)
			return wt
		}, want{"trusted", []string{"sub"}}},
		{"worktree pointer the repository did not write", func(f *fixture) string {
			f.userConfig(f.trust())
			other := filepath.Join(filepath.Dir(f.project), "other")
			f.linkedWorktree(f.project, other)
			// sub borrows other's admin folder, which points back at other, not sub.
			f.write(filepath.Join(f.project, "sub", ".git"), "gitdir: "+filepath.Join(f.project, ".git", "worktrees", "other")+"\n")
			return filepath.Join(f.project, "sub")
		}, want{"", nil}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			cwd := tc.setup(f)
			for _, d := range []string{f.project, filepath.Join(f.project, "sub")} {
				f.write(filepath.Join(d, ".codex", "rules", "x.rules"), `prefix_rule(pattern=["touch"], decision="allow")`+"\n")
			}
			o := f.opts()
			o.Cwd = cwd
			cfg, _ := f.load(o)
			var loaded []string
			for _, d := range cfg.TrustedProjectFolders() {
				rel, _ := filepath.Rel(f.project, filepath.Dir(d))
				loaded = append(loaded, rel)
			}
			if cfg.TrustLevel != tc.want.session || strings.Join(loaded, ",") != strings.Join(tc.want.loaded, ",") {
				t.Errorf("session %q, loaded %v; want %q, %v", cfg.TrustLevel, loaded, tc.want.session, tc.want.loaded)
			}
			for _, d := range cfg.ProjectFolders {
				rules := filepath.Join(d.Dir, "rules", "x.rules")
				if refused := cfg.ProjectFileRefused(rules) != ""; refused == d.Trusted() {
					t.Errorf("%s: trusted %v, refused %q", rules, d.Trusted(), cfg.ProjectFileRefused(rules))
				}
			}
		})
	}
}

// A folder that does not load is said once, naming its files and how to trust the project;
// "untrusted" and no decision are told apart.
func TestUntrustedFolderWarning(t *testing.T) {
	f := newFixture(t)
	rules := f.write(filepath.Join(f.project, ".codex", "rules", "x.rules"), "")
	prompt := f.write(filepath.Join(f.project, ".codex", "prompts", "review.md"), "")
	hooks := f.write(filepath.Join(f.project, ".codex", "hooks.json"), "{}")
	f.write(filepath.Join(f.project, ".codex", "skills", "s", "SKILL.md"), "") // skills load anyway
	userConfig := f.userConfig("")
	_, warns := f.load(f.opts())
	if len(warns) != 1 {
		t.Fatalf("warnings: %v", warns)
	}
	for _, s := range []string{rules, prompt, hooks, "is not a trusted project", "[projects." + quoteKey(f.project) + `] trust_level = "trusted"`, userConfig} {
		if !strings.Contains(warns[0].Message, s) {
			t.Errorf("warning %q lacks %q", warns[0].Message, s)
		}
	}
	f.userConfig(f.trustOf(f.project, "untrusted"))
	_, warns = f.load(f.opts())
	if len(warns) != 1 || !strings.Contains(warns[0].Message, "is marked untrusted in "+userConfig) {
		t.Errorf("untrusted: %v", warns)
	}
	// An empty .codex (or one with only skills) is not worth a word.
	if err := os.RemoveAll(filepath.Join(f.project, ".codex")); err != nil {
		t.Fatal(err)
	}
	f.write(filepath.Join(f.project, ".codex", "skills", "s", "SKILL.md"), "")
	if _, warns = f.load(f.opts()); len(warns) != 0 {
		t.Errorf("skills only: %v", warns)
	}
}

// A file a session of an untrusted project could have written does not load once the
// project is trusted; touched again by the person, it does.
func TestFileWrittenDuringAnUntrustedSessionIsRefused(t *testing.T) {
	f := newFixture(t)
	w, err := writejournal.Open(f.home).Begin([]string{f.project}, false)
	if err != nil {
		t.Fatal(err)
	}
	cfgPath := f.write(filepath.Join(f.project, "sub", ".codex", "config.toml"), "model = \"planted\"\n")
	rules := f.write(filepath.Join(f.project, "sub", ".codex", "rules", "x.rules"), "")
	if err := w.End(); err != nil {
		t.Fatal(err)
	}
	f.userConfig("model = \"user\"\n" + f.trust())
	o := f.opts()
	o.Cwd = filepath.Join(f.project, "sub")
	cfg, warns := f.load(o)
	if cfg.Model != "user" {
		t.Errorf("planted config.toml loaded: model %q", cfg.Model)
	}
	if why := cfg.ProjectFileRefused(rules); !strings.Contains(why, "not trusted") || !strings.Contains(why, "touch") {
		t.Errorf("planted rules: refused %q", why)
	}
	if len(warns) != 2 || !strings.Contains(warns[0].Message, "project file not loaded") {
		// the .codex folder itself was made in the window: each file is refused for it
		t.Errorf("warnings: %v", warns)
	}

	// The person reviews and touches what they keep: the folder and the config file. (The
	// pause outlasts the coarse clock's tick the kernel stamps change times with.)
	time.Sleep(50 * time.Millisecond)
	for _, p := range []string{filepath.Dir(cfgPath), cfgPath} {
		if err := os.Chtimes(p, time.Now(), time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	cfg, _ = f.load(o)
	if cfg.Model != "planted" {
		t.Errorf("touched config.toml not loaded: model %q", cfg.Model)
	}
	if cfg.ProjectFileRefused(rules) == "" {
		t.Error("the untouched rules file loads")
	}
}
