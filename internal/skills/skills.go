// Package skills finds the SKILL.md folders Codex 0.169 reads, lists them to the model in a
// <skills_instructions> block, and expands the skills a user mentions (`$name`) into the
// `<skill>` messages Codex adds after the user's message.
//
// Codex also ships bundled "system" skills that it writes under $CODEX_HOME/skills/.system at
// every start; gocodex ships none and does not read that folder, so the system scope is
// always empty here.
package skills

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf8"
)

// Scope is where a skill comes from, as the app-server reports it.
type Scope string

// The scopes, in the order the model sees them (system first).
const (
	ScopeSystem Scope = "system"
	ScopeRepo   Scope = "repo"
	ScopeUser   Scope = "user"
)

func (s Scope) rank() int {
	switch s {
	case ScopeSystem:
		return 0
	case ScopeRepo:
		return 1
	}
	return 2
}

// FileName is the file that makes a folder a skill.
const FileName = "SKILL.md"

// Skill is one loaded SKILL.md.
type Skill struct {
	Name        string
	Description string
	// Path is the absolute path of the SKILL.md file; Root the skill root it was found under.
	Path  string
	Root  string
	Scope Scope
	// Hidden skills (agents/openai.yaml: allow_implicit_invocation: false) are left out of
	// the model's list but load when named.
	Hidden bool
}

// LoadError is a SKILL.md that could not be loaded; the other skills still are.
type LoadError struct {
	Path    string
	Message string
}

func (e LoadError) Error() string { return "failed to load skill " + e.Path + ": " + e.Message }

// Options say where to look.
type Options struct {
	// Cwd is the session's working directory (absolute).
	Cwd string
	// ProjectRoot is the project's root (the git root); "" finds it from Cwd by the .git
	// marker, and Cwd is used without one.
	ProjectRoot string
	// CodexHome is $CODEX_HOME; Home is $HOME ("" skips the folder that needs it).
	CodexHome string
	Home      string
	// ExtraRoots are further folders searched as user skills (skills/extraRoots/set), after
	// the user's own.
	ExtraRoots []string
	// Rules are the [[skills.config]] entries that turn skills off (or back on); see Rule.
	Rules []Rule
}

// Catalog is the result of one discovery.
type Catalog struct {
	// Skills in the order the model sees them: system, then repository skills by name, then
	// user skills by name.
	Skills []Skill
	// Roots are the skill roots in Codex's alias order (r0, r1, ...), only those with a skill
	// the model sees.
	Roots  []string
	Errors []LoadError
	// Disabled are the skills a Rule turned off: listed to clients, never to the model.
	Disabled []Skill
}

// root is one folder searched for skills.
type root struct {
	dir   string
	scope Scope
}

// roots lists the folders in the order Codex numbers them: the repository's .codex/skills,
// $CODEX_HOME/skills, $HOME/.agents/skills, (the bundled system folder, not shipped), then
// .agents/skills in every directory from the project root down to the cwd.
func (o Options) roots() []root {
	cwd := filepath.Clean(o.Cwd)
	proj := o.ProjectRoot
	if proj == "" {
		proj = gitRoot(cwd)
	}
	proj = filepath.Clean(proj)
	var out []root
	out = append(out, root{filepath.Join(proj, ".codex", "skills"), ScopeRepo})
	if o.CodexHome != "" {
		out = append(out, root{filepath.Join(o.CodexHome, "skills"), ScopeUser})
	}
	if o.Home != "" {
		out = append(out, root{filepath.Join(o.Home, ".agents", "skills"), ScopeUser})
	}
	for _, dir := range o.ExtraRoots {
		out = append(out, root{filepath.Clean(dir), ScopeUser})
	}
	var chain []string
	for dir := cwd; ; dir = filepath.Dir(dir) {
		chain = append(chain, dir)
		if dir == proj || dir == filepath.Dir(dir) {
			break
		}
	}
	if chain[len(chain)-1] != proj {
		chain = []string{cwd} // cwd is not under the project root: only its own folder.
	}
	for i := len(chain) - 1; i >= 0; i-- {
		out = append(out, root{filepath.Join(chain[i], ".agents", "skills"), ScopeRepo})
	}
	// One folder reached twice (HOME inside the project) is searched once, at its first place.
	seen := map[string]bool{}
	uniq := out[:0]
	for _, r := range out {
		if !seen[r.dir] {
			seen[r.dir] = true
			uniq = append(uniq, r)
		}
	}
	return uniq
}

// gitRoot is the nearest ancestor of dir holding .git, or dir itself.
func gitRoot(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		if d == filepath.Dir(d) {
			return dir
		}
	}
}

// maxDepth bounds the search below a root, so a huge tree under a skills folder cannot stall
// the start of a session.
const maxDepth = 6

// walkRoot calls skill for every SKILL.md under root, as Codex searches: into every folder
// (a skill's own sub-folders too), through symbolic links to folders (paths keep the link's
// name), past hidden folders (Codex's bundled .system among them), maxDepth levels deep,
// each real folder once. A folder that cannot be read is reported to dirErr; a missing
// root is no error.
func walkRoot(root string, skill func(file string), dirErr func(dir string, err error)) {
	seen := map[string]bool{}
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		real, err := filepath.EvalSymlinks(dir)
		if err != nil || seen[real] {
			return
		}
		seen[real] = true
		entries, err := os.ReadDir(dir)
		if err != nil {
			if dir != root {
				dirErr(dir, err)
			}
			return
		}
		var subdirs []string
		for _, e := range entries {
			path := filepath.Join(dir, e.Name())
			isDir := e.IsDir()
			if e.Type()&fs.ModeSymlink != 0 {
				info, err := os.Stat(path)
				if err != nil {
					continue // a dangling link
				}
				isDir = info.IsDir()
			}
			switch {
			case isDir && !strings.HasPrefix(e.Name(), "."):
				subdirs = append(subdirs, path)
			case !isDir && e.Name() == FileName:
				skill(path)
			}
		}
		if depth < maxDepth {
			for _, d := range subdirs {
				walk(d, depth+1)
			}
		}
	}
	walk(root, 0)
}

// Discover loads every skill under the roots. Missing folders are not errors; unreadable or
// malformed SKILL.md files are reported in Errors and left out. Two skills may share a name:
// Codex lists both, and a `$name` mention of such a name loads neither.
func Discover(o Options) Catalog {
	var c Catalog
	for _, r := range o.roots() {
		info, err := os.Stat(r.dir)
		if err != nil || !info.IsDir() {
			continue
		}
		found := false
		walkRoot(r.dir, func(file string) {
			dir := filepath.Dir(file)
			s, lerr := load(file, filepath.Base(dir))
			if lerr != nil {
				c.Errors = append(c.Errors, *lerr)
				return
			}
			s.Root, s.Scope, s.Hidden = r.dir, r.scope, !implicitAllowed(dir)
			if !Enabled(o.Rules, s) {
				c.Disabled = append(c.Disabled, s)
				return
			}
			c.Skills = append(c.Skills, s)
			found = found || !s.Hidden
		}, func(dir string, err error) {
			c.Errors = append(c.Errors, LoadError{Path: dir, Message: "failed to read directory: " + err.Error()})
		})
		if found {
			c.Roots = append(c.Roots, r.dir)
		}
	}
	sortSkills(c.Skills)
	sortSkills(c.Disabled)
	return c
}

// sortSkills orders skills as the model sees them: by scope, then name, then path.
func sortSkills(list []Skill) {
	sort.SliceStable(list, func(i, j int) bool {
		a, b := list[i], list[j]
		if a.Scope.rank() != b.Scope.rank() {
			return a.Scope.rank() < b.Scope.rank()
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		return a.Path < b.Path
	})
}

// Listed is every skill found, those turned off too, in the model's order.
func (c Catalog) Listed() []Skill {
	out := append(append([]Skill(nil), c.Skills...), c.Disabled...)
	sortSkills(out)
	return out
}

// maxNameChars is Codex's limit on a skill's name.
const maxNameChars = 64

// maxFileBytes caps a SKILL.md; a bigger one is refused rather than read into every prompt.
const maxFileBytes = 1 << 20

// load reads one SKILL.md; dirName names the skill when the front matter does not.
func load(path, dirName string) (Skill, *LoadError) {
	fail := func(msg string) (Skill, *LoadError) { return Skill{}, &LoadError{Path: path, Message: msg} }
	data, err := readCapped(path)
	if err != nil {
		return fail("failed to read file: " + err.Error())
	}
	if !utf8.Valid(data) {
		return fail("failed to read file: " + utf8Problem(data))
	}
	fm, err := parseFrontMatter(string(data))
	if err != nil {
		return fail(err.Error())
	}
	if !fm.HasDesc {
		return fail("missing field `description`")
	}
	name := strings.TrimSpace(fm.Name)
	if name == "" {
		name = dirName
	}
	if utf8.RuneCountInString(name) > maxNameChars {
		return fail(fmt.Sprintf("invalid name: exceeds maximum length of %d characters", maxNameChars))
	}
	// The list gives each skill one line: Codex joins a multi-line description with spaces.
	desc := strings.Join(strings.Fields(fm.Description), " ")
	if desc == "" {
		return fail("missing field `description`")
	}
	return Skill{Name: name, Description: desc, Path: path}, nil
}

// utf8Problem describes the first invalid UTF-8 sequence in data as Codex reports it.
func utf8Problem(data []byte) string {
	for i := 0; i < len(data); {
		r, size := utf8.DecodeRune(data[i:])
		if r != utf8.RuneError || size != 1 {
			i += size
			continue
		}
		// The length of the bad sequence: the lead byte and the continuation bytes it took.
		n := 1
		if need := seqLen(data[i]); need > 1 {
			for n < need && i+n < len(data) && data[i+n]&0xC0 == 0x80 {
				n++
			}
			if i+n == len(data) && n < need {
				return fmt.Sprintf("incomplete utf-8 byte sequence from index %d", i)
			}
		}
		return fmt.Sprintf("invalid utf-8 sequence of %d bytes from index %d", n, i)
	}
	return "invalid utf-8"
}

// seqLen is the length a UTF-8 sequence starting with b claims (1 for an invalid lead).
func seqLen(b byte) int {
	switch {
	case b >= 0xC2 && b <= 0xDF:
		return 2
	case b >= 0xE0 && b <= 0xEF:
		return 3
	case b >= 0xF0 && b <= 0xF4:
		return 4
	}
	return 1
}

func readCapped(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxFileBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > maxFileBytes {
		return nil, fmt.Errorf("the file is over the %d byte limit", maxFileBytes)
	}
	return data, nil
}
