package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func writeSkill(t *testing.T, dir, content string) string {
	return mustWrite(t, dir, content)
}

func mustWrite(t testing.TB, dir, content string) string {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, FileName)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func skillText(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\nbody of " + name + "\n"
}

// world is a repository with a sub-directory cwd, a CODEX_HOME and a HOME.
type world struct{ repo, sub, codexHome, home string }

func newWorld(t *testing.T) world {
	base := t.TempDir()
	w := world{repo: filepath.Join(base, "repo"), codexHome: filepath.Join(base, "codex"), home: filepath.Join(base, "home")}
	w.sub = filepath.Join(w.repo, "sub")
	for _, d := range []string{filepath.Join(w.repo, ".git"), w.sub, w.codexHome, w.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return w
}

func (w world) opts() Options { return Options{Cwd: w.sub, CodexHome: w.codexHome, Home: w.home} }

func TestDiscoverOrdersRootsAndSkillsAsCodex(t *testing.T) {
	w := newWorld(t)
	writeSkill(t, filepath.Join(w.repo, ".agents/skills/zeta"), skillText("Zeta", "Zeta root."))
	writeSkill(t, filepath.Join(w.sub, ".agents/skills/subby"), skillText("subby", "Sub skill."))
	writeSkill(t, filepath.Join(w.repo, ".agents/skills/group/inner"), skillText("inner", "Inner."))
	writeSkill(t, filepath.Join(w.repo, ".agents/skills/noname"), "---\ndescription: >\n  folded\n  text here\n---\nNONAME\n")
	writeSkill(t, filepath.Join(w.repo, ".codex/skills/beta"), skillText("beta", "Beta skill."))
	writeSkill(t, filepath.Join(w.home, ".agents/skills/homey"), skillText("homey", `"Home quoted: yes"`))
	writeSkill(t, filepath.Join(w.codexHome, "skills/apple"), skillText("apple", "Apple user."))
	// Codex's bundled folder is not ours to read.
	writeSkill(t, filepath.Join(w.codexHome, "skills/.system/imagegen"), skillText("imagegen", "Bundled."))

	c := Discover(w.opts())
	if len(c.Errors) != 0 {
		t.Fatalf("errors: %v", c.Errors)
	}
	wantRoots := []string{
		filepath.Join(w.repo, ".codex/skills"),
		filepath.Join(w.codexHome, "skills"),
		filepath.Join(w.home, ".agents/skills"),
		filepath.Join(w.repo, ".agents/skills"),
		filepath.Join(w.sub, ".agents/skills"),
	}
	if diff := cmp.Diff(wantRoots, c.Roots); diff != "" {
		t.Errorf("roots (-want +got):\n%s", diff)
	}
	var got []string
	for _, s := range c.Skills {
		got = append(got, string(s.Scope)+" "+s.Name+": "+s.Description)
	}
	want := []string{
		"repo Zeta: Zeta root.", "repo beta: Beta skill.", "repo inner: Inner.", "repo noname: folded text here",
		"repo subby: Sub skill.", "user apple: Apple user.", "user homey: Home quoted: yes",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	text := c.Instructions()
	for _, line := range []string{
		"- `r0` = `" + wantRoots[0] + "`\n",
		"- `r4` = `" + wantRoots[4] + "`\n",
		"- inner: Inner. (file: r3/group/inner/SKILL.md)\n",
		"- beta: Beta skill. (file: r0/beta/SKILL.md)\n",
		"- homey: Home quoted: yes (file: r2/homey/SKILL.md)\n",
	} {
		if !strings.Contains(text, line) {
			t.Errorf("instructions lack %q:\n%s", line, text)
		}
	}
	if !strings.HasPrefix(text, "<skills_instructions>\n## Skills\n") || !strings.HasSuffix(text, "\n</skills_instructions>") {
		t.Errorf("instructions are not wrapped as Codex wraps them:\n%s", text)
	}
}

func TestNoSkillsNoInstructions(t *testing.T) {
	w := newWorld(t)
	c := Discover(w.opts())
	if c.Instructions() != "" || len(c.Skills) != 0 || len(c.Roots) != 0 {
		t.Fatalf("empty world gave %+v", c)
	}
}

func TestBadSkillsAreReportedAndTheOthersLoad(t *testing.T) {
	w := newWorld(t)
	root := filepath.Join(w.repo, ".agents/skills")
	good := writeSkill(t, filepath.Join(root, "good"), skillText("good", "Fine."))
	noFM := writeSkill(t, filepath.Join(root, "nofm"), "no front matter")
	noDesc := writeSkill(t, filepath.Join(root, "nodesc"), "---\nname: nodesc\n---\n")
	binary := writeSkill(t, filepath.Join(root, "binary"), "---\nname: bin\ndescription: x\xff\xfe\n---\n")
	badYAML := writeSkill(t, filepath.Join(root, "badyaml"), "---\nname: \"unterminated\ndescription: y\n---\n")
	emptyDesc := writeSkill(t, filepath.Join(root, "emptydesc"), "---\nname: emptydesc\ndescription: \"\"\n---\n")
	longName := writeSkill(t, filepath.Join(root, "longname"), "---\nname: "+strings.Repeat("n", 65)+"\ndescription: x\n---\n")
	writeSkill(t, filepath.Join(root, "multi"), "---\nname: multi\ndescription: |\n  line one\n  line two\n---\n")
	c := Discover(w.opts())
	if len(c.Skills) != 2 || c.Skills[0].Path != good || c.Skills[1].Description != "line one line two" {
		t.Fatalf("skills = %+v, want %s and multi (its lines joined)", c.Skills, good)
	}
	msgs := map[string]string{}
	for _, e := range c.Errors {
		msgs[e.Path] = e.Message
		if !strings.HasPrefix(e.Error(), "failed to load skill "+e.Path+": ") {
			t.Errorf("error does not name the file: %q", e.Error())
		}
	}
	for path, want := range map[string]string{
		noFM:      "missing YAML frontmatter delimited by ---",
		noDesc:    "missing field `description`",
		binary:    "failed to read file: invalid utf-8 sequence of 1 bytes from index 28",
		badYAML:   "invalid YAML frontmatter: line 2: name: bad double-quoted string",
		emptyDesc: "missing field `description`",
		longName:  "invalid name: exceeds maximum length of 64 characters",
	} {
		if msgs[path] != want {
			t.Errorf("%s: error %q, want %q", path, msgs[path], want)
		}
	}
}

func TestDuplicateNamesAreListedAndAmbiguousMentionsLoadNothing(t *testing.T) {
	w := newWorld(t)
	root := filepath.Join(w.repo, ".agents/skills")
	writeSkill(t, filepath.Join(root, "alpha"), skillText("alpha", "Alpha skill."))
	writeSkill(t, filepath.Join(root, "dup"), skillText("alpha", "Alpha duplicate."))
	beta := writeSkill(t, filepath.Join(w.repo, ".codex/skills/beta"), skillText("beta", "Beta skill."))
	c := Discover(w.opts())
	if len(c.Skills) != 3 {
		t.Fatalf("skills = %+v", c.Skills)
	}
	got := c.Mentioned("please use $alpha and $beta now")
	if len(got) != 1 || got[0].Path != beta {
		t.Fatalf("mentioned = %+v, want beta only", got)
	}
}

func TestMentionSyntax(t *testing.T) {
	w := newWorld(t)
	root := filepath.Join(w.repo, ".agents/skills")
	for _, n := range []string{"subby", "homey", "inner", "noname", "Zeta"} {
		writeSkill(t, filepath.Join(root, n), skillText(n, n+"."))
	}
	c := Discover(w.opts())
	var got []string
	for _, s := range c.Mentioned("use $subby, $homey. and $inner-x and $noname; not zeta or $zeta") {
		got = append(got, s.Name)
	}
	// List order, not mention order; `$inner-x` names another skill; names are case-sensitive.
	if diff := cmp.Diff([]string{"homey", "noname", "subby"}, got); diff != "" {
		t.Errorf("mentioned (-want +got):\n%s", diff)
	}
}

func TestMessageCarriesTheFileAsItIsNow(t *testing.T) {
	w := newWorld(t)
	p := writeSkill(t, filepath.Join(w.repo, ".codex/skills/beta"), skillText("beta", "Beta skill."))
	c := Discover(w.opts())
	if err := os.WriteFile(p, []byte(skillText("beta", "Beta skill.")+"edited\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := Message(c.Skills[0])
	if err != nil {
		t.Fatal(err)
	}
	want := "<skill>\n<name>beta</name>\n<path>" + p + "</path>\n---\nname: beta\ndescription: Beta skill.\n---\nbody of beta\nedited\n\n</skill>"
	if got != want {
		t.Errorf("message:\n%q\nwant\n%q", got, want)
	}
	os.Remove(p)
	if _, err := Message(c.Skills[0]); err == nil {
		t.Error("a removed SKILL.md gave no error")
	}
}

// Without a repository the cwd is the project root: folders above it are not searched.
func TestProjectRootBoundsTheSearch(t *testing.T) {
	base := t.TempDir()
	outer := filepath.Join(base, "outer")
	cwd := filepath.Join(outer, "inner")
	writeSkill(t, filepath.Join(outer, ".agents/skills/up"), skillText("up", "Above the cwd."))
	writeSkill(t, filepath.Join(cwd, ".agents/skills/here"), skillText("here", "In the cwd."))
	c := Discover(Options{Cwd: cwd, ProjectRoot: cwd})
	if len(c.Skills) != 1 || c.Skills[0].Name != "here" {
		t.Fatalf("skills = %+v, want only the cwd's", c.Skills)
	}
}

func TestFrontMatterScalars(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"description: plain text # comment\n", "plain text"},
		{"description: 'it''s quoted'\n", "it's quoted"},
		{"description: \"tab\\tescape\"\n", "tab\tescape"},
		{"description: first\n  continued line\n", "first continued line"},
		{"description: |\n  line one\n  line two\n", "line one\nline two\n"},
		{"description: >-\n  a\n  b\n\n  c\n", "a b\nc"},
		{"metadata:\n  short-description: x\ndescription: after nested\n", "after nested"},
	} {
		fm, err := parseFrontMatter("---\n" + tc.in + "---\nbody")
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		if fm.Description != tc.want {
			t.Errorf("%q: description %q, want %q", tc.in, fm.Description, tc.want)
		}
	}
	if _, err := parseFrontMatter("---\ndescription: [a, b]\n---\n"); err == nil {
		t.Error("a flow list as description was accepted")
	}
	if _, err := parseFrontMatter("---\ndescription: never closed\n"); err != errNoFrontMatter {
		t.Errorf("unclosed front matter: %v", err)
	}
}

func TestFingerprintFollowsSkillFiles(t *testing.T) {
	w := newWorld(t)
	o := w.opts()
	empty := Fingerprint(o)
	if Fingerprint(o) != empty {
		t.Fatal("the fingerprint of unchanged folders changed")
	}
	p := writeSkill(t, filepath.Join(w.repo, ".agents/skills/a"), skillText("a", "A."))
	added := Fingerprint(o)
	if added == empty {
		t.Fatal("a new skill did not change the fingerprint")
	}
	if err := os.WriteFile(p, []byte(skillText("a", "A, longer.")), 0o644); err != nil {
		t.Fatal(err)
	}
	if Fingerprint(o) == added {
		t.Error("an edited skill did not change the fingerprint")
	}
	// Files beside SKILL.md (scripts, references) are not skills.
	before := Fingerprint(o)
	if err := os.WriteFile(filepath.Join(w.repo, ".agents/skills/a/notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if Fingerprint(o) != before {
		t.Error("a file that is not SKILL.md changed the fingerprint")
	}
}

func TestSkillsWithoutImplicitInvocationAreNotListedButLoadWhenNamed(t *testing.T) {
	w := newWorld(t)
	root := filepath.Join(w.repo, ".agents/skills")
	writeSkill(t, filepath.Join(root, "quiet"), skillText("quiet", "Only on request."))
	if err := os.MkdirAll(filepath.Join(root, "quiet/agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	yaml := "interface:\n  display_name: \"Quiet\"\npolicy:\n  allow_implicit_invocation: false\n"
	if err := os.WriteFile(filepath.Join(root, "quiet/agents/openai.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	c := Discover(w.opts())
	if len(c.Skills) != 1 || !c.Skills[0].Hidden {
		t.Fatalf("skills = %+v", c.Skills)
	}
	if text := c.Instructions(); text != "" {
		t.Errorf("a hidden skill alone gave instructions:\n%s", text)
	}
	writeSkill(t, filepath.Join(root, "loud"), skillText("loud", "Listed."))
	c = Discover(w.opts())
	if text := c.Instructions(); strings.Contains(text, "quiet") || !strings.Contains(text, "- loud: Listed.") {
		t.Errorf("instructions:\n%s", text)
	}
	if got := c.Mentioned("use $quiet"); len(got) != 1 || got[0].Name != "quiet" {
		t.Errorf("a named hidden skill did not load: %+v", got)
	}
}

func TestUTF8ProblemWordsAsCodex(t *testing.T) {
	for in, want := range map[string]string{
		"ab\xffcd":    "invalid utf-8 sequence of 1 bytes from index 2",
		"a\xe2\x82x":  "invalid utf-8 sequence of 2 bytes from index 1",
		"abc\xe2\x82": "incomplete utf-8 byte sequence from index 3",
	} {
		if got := utf8Problem([]byte(in)); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
}

// Codex follows links to skill folders (the path keeps the link) and looks inside skill
// folders too; a link loop is searched once.
func TestDiscoverFollowsLinksAndNestedSkills(t *testing.T) {
	w := newWorld(t)
	root := filepath.Join(w.repo, ".agents/skills")
	ext := t.TempDir()
	writeSkill(t, filepath.Join(ext, "linked"), skillText("linked", "Via a link."))
	writeSkill(t, filepath.Join(root, "real"), skillText("real", "Real."))
	writeSkill(t, filepath.Join(root, "real/sub/deeper"), skillText("nested-in-skill", "Inside another skill."))
	if err := os.Symlink(filepath.Join(ext, "linked"), filepath.Join(root, "linked")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(root, filepath.Join(root, "real/loop")); err != nil {
		t.Fatal(err)
	}
	c := Discover(w.opts())
	var got []string
	for _, s := range c.Skills {
		rel, _ := filepath.Rel(root, s.Path)
		got = append(got, s.Name+" "+rel)
	}
	want := []string{"linked linked/SKILL.md", "nested-in-skill real/sub/deeper/SKILL.md", "real real/SKILL.md"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
}

func TestByPathAcceptsTheLinkAndItsTarget(t *testing.T) {
	w := newWorld(t)
	root := filepath.Join(w.repo, ".agents/skills")
	ext := t.TempDir()
	target := writeSkill(t, filepath.Join(ext, "linked"), skillText("linked", "Via a link."))
	if err := os.MkdirAll(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(ext, "linked"), filepath.Join(root, "linked")); err != nil {
		t.Fatal(err)
	}
	c := Discover(w.opts())
	for _, p := range []string{filepath.Join(root, "linked", FileName), target} {
		if s, ok := c.ByPath(p); !ok || s.Name != "linked" {
			t.Errorf("ByPath(%s) = %+v, %v", p, s, ok)
		}
	}
	if _, ok := c.ByPath(filepath.Join(root, "other", FileName)); ok {
		t.Error("an unknown path was found")
	}
	msg, err := Message(c.Skills[0])
	if err != nil || !strings.Contains(msg, "<path>"+target+"</path>") {
		t.Errorf("message names %q, want the link's target %s (%v)", msg, target, err)
	}
}
