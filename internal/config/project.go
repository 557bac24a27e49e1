package config

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gocodex/gocodex/internal/writejournal"
)

// loadProjects finds the project root, decides trust, and loads the
// .codex/config.toml files between the root and cwd that may load (trusted, and not
// written by a session of a project that was not trusted). Every .codex folder that does not
// load is said once, naming what it holds.
func (l *loader) loadProjects(merged map[string]any) error {
	markers := []string{".git"}
	if raw, ok := merged["project_root_markers"].([]any); ok {
		markers = markers[:0]
		for _, m := range raw {
			if s, ok := m.(string); ok && s != "" {
				markers = append(markers, s)
			}
		}
	}
	l.projectRoot = findProjectRoot(l.cwd, markers)
	tc := newTrustContext(merged, l.cwd, l.projectRoot, l.env)
	l.trust = tc.decide(l.cwd, tc.repoRoot).level
	l.trustRoot = tc.target()

	var dirs []string
	for dir := l.cwd; ; dir = filepath.Dir(dir) {
		dirs = append(dirs, dir)
		if dir == l.projectRoot || dir == filepath.Dir(dir) {
			break
		}
	}
	userConfig := filepath.Join(l.home, "config.toml")
	for i := len(dirs) - 1; i >= 0; i-- {
		codexDir := filepath.Join(dirs[i], ".codex")
		if fi, err := os.Stat(codexDir); err != nil || !fi.IsDir() || sameDir(codexDir, l.home) {
			continue // none, or the user layer, already loaded
		}
		e := tc.decide(dirs[i], l.projectRoot, tc.repoRoot)
		folder := ProjectFolder{Dir: codexDir, Level: e.level, Key: e.key}
		if folder.Key == "" {
			folder.Key = tc.target()
		}
		l.projectFolders = append(l.projectFolders, folder)
		if !folder.Trusted() {
			if files := injectableFiles(codexDir); len(files) > 0 {
				l.warnings = append(l.warnings, Warning{File: codexDir, Message: fmt.Sprintf(
					"project files not loaded (%s): %s", strings.Join(files, ", "), folder.notTrustedReason(userConfig))})
			}
			continue
		}
		path := filepath.Join(codexDir, ProjectConfigFile)
		load := false
		for _, f := range injectableFiles(codexDir) {
			why := refusedWrite(l.journal, folder, f)
			if why != "" {
				l.warnings = append(l.warnings, Warning{File: f, Message: "project file not loaded: " + why})
			}
			load = load || (f == path && why == "")
		}
		if !load {
			continue
		}
		layer, err := l.readFileLayer(SourceProject, path)
		if err != nil {
			return err
		}
		if layer != nil {
			l.layers = append(l.layers, layer)
		}
	}
	return nil
}

// refusedWrite says why path, a file of a trusted folder, must not load because a session of
// a project that was not trusted could have written it ("" when none could).
func refusedWrite(j *writejournal.Journal, folder ProjectFolder, path string) string {
	windows, err := j.Read()
	if err != nil {
		return fmt.Sprintf("%s cannot be told from a file a session of an untrusted project wrote: %v", path, err)
	}
	// The file, and every folder on its way from the .codex folder: a folder renamed into
	// place keeps its files' old change times, not its own.
	rel, err := filepath.Rel(folder.Dir, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return path + " is not in the project folder " + folder.Dir
	}
	step := folder.Dir
	parts := append([]string{"."}, strings.Split(rel, string(filepath.Separator))...)
	for _, p := range parts {
		step = filepath.Join(step, p)
		c, ok, err := windows.ChangedIn(step, true)
		if err != nil {
			return fmt.Sprintf("%s cannot be checked: %v", step, err)
		}
		if ok {
			return c.String() + "; review it, then `touch " + step + "` to load it"
		}
	}
	return ""
}

// findProjectRoot walks up from cwd to the nearest directory holding one of
// the markers; with none found (or no markers) cwd is its own root.
func findProjectRoot(cwd string, markers []string) string {
	if len(markers) == 0 {
		return cwd
	}
	for dir := cwd; ; dir = filepath.Dir(dir) {
		for _, m := range markers {
			if _, err := os.Lstat(filepath.Join(dir, m)); err == nil {
				return dir
			}
		}
		if dir == filepath.Dir(dir) {
			return cwd
		}
	}
}

func canonical(p string) string {
	p = absClean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}

func sameDir(a, b string) bool {
	if canonical(a) == canonical(b) {
		return true
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}
