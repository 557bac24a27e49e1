package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	tk "github.com/gocodex/gocodex/internal/testkit"
)

// skillWorld lays out skills where Codex 0.169 finds them: the repository's .agents/skills
// (root and the sub-directory the session runs in) and .codex/skills, $CODEX_HOME/skills
// and $HOME/.agents/skills, plus broken SKILL.md files, two skills sharing a name, one the
// model is not told about (agents/openai.yaml), one inside another skill's folder and one
// reached through a symbolic link.
func skillWorld(t *testing.T, e *env) (sub string) {
	t.Helper()
	home := t.TempDir()
	e.ExtraEnv = append(e.ExtraEnv, "HOME="+home)
	write := func(dir, content string) {
		t.Helper()
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "SKILL.md"), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	skill := func(name, desc string) string {
		return "---\nname: " + name + "\ndescription: " + desc + "\n---\nInstructions of " + name + ".\n"
	}
	write(filepath.Join(e.Workdir, ".agents/skills/beta"), skill("beta", "Beta skill in the repository."))
	write(filepath.Join(e.Workdir, ".agents/skills/group/inner"), skill("inner", "Nested one level down."))
	write(filepath.Join(e.Workdir, ".agents/skills/noname"), "---\ndescription: >\n  folded\n  description\n---\nNo name.\n")
	write(filepath.Join(e.Workdir, ".agents/skills/twin-a"), skill("twin", "First twin."))
	write(filepath.Join(e.Workdir, ".agents/skills/twin-b"), skill("twin", "Second twin."))
	write(filepath.Join(e.Workdir, ".agents/skills/quiet"), skill("quiet", "Loaded only when named."))
	if err := os.MkdirAll(filepath.Join(e.Workdir, ".agents/skills/quiet/agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.Workdir, ".agents/skills/quiet/agents/openai.yaml"), []byte("policy:\n  allow_implicit_invocation: false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(e.Workdir, ".agents/skills/beta/examples/nested"), skill("nested", "Inside another skill's folder."))
	ext := t.TempDir()
	write(filepath.Join(ext, "linked"), skill("linked", "Reached through a symbolic link."))
	if err := os.Symlink(filepath.Join(ext, "linked"), filepath.Join(e.Workdir, ".agents/skills/linked")); err != nil {
		t.Fatal(err)
	}
	write(filepath.Join(e.Workdir, ".agents/skills/multi"), "---\nname: multi\ndescription: |\n  line one\n  line two\n---\n")
	write(filepath.Join(e.Workdir, ".agents/skills/emptydesc"), "---\nname: emptydesc\ndescription: \"\"\n---\n")
	write(filepath.Join(e.Workdir, ".agents/skills/longname"), "---\nname: "+strings.Repeat("n", 65)+"\ndescription: Too long a name.\n---\n")
	write(filepath.Join(e.Workdir, ".agents/skills/broken"), "no front matter here")
	write(filepath.Join(e.Workdir, ".agents/skills/nodesc"), "---\nname: nodesc\n---\n")
	write(filepath.Join(e.Workdir, ".agents/skills/latin1"), "---\nname: latin1\ndescription: caf\xe9\n---\n")
	write(filepath.Join(e.Workdir, ".codex/skills/gamma"), skill("gamma", `"Quoted: in .codex/skills"`))
	write(filepath.Join(e.Workdir, "sub/.agents/skills/subby"), skill("subby", "Only below sub."))
	write(filepath.Join(e.CodexHome, "skills/apple"), skill("apple", "From CODEX_HOME."))
	write(filepath.Join(home, ".agents/skills/homey"), skill("homey", "From HOME."))
	return filepath.Join(e.Workdir, "sub")
}

// developerTexts returns the input_text parts of the request's developer messages.
func developerTexts(t *testing.T, req tk.Request) [][]string {
	t.Helper()
	var out [][]string
	for _, it := range req.Input() {
		if it["type"] != "message" || it["role"] != "developer" {
			continue
		}
		var texts []string
		for _, c := range it["content"].([]any) {
			texts = append(texts, c.(map[string]any)["text"].(string))
		}
		out = append(out, texts)
	}
	return out
}

func skillsBlock(t *testing.T, req tk.Request) string {
	t.Helper()
	for _, msg := range developerTexts(t, req) {
		for _, text := range msg {
			if strings.HasPrefix(text, "<skills_instructions>") {
				return text
			}
		}
	}
	t.Fatalf("no <skills_instructions> in the request")
	return ""
}

// skillMessages are the user messages that carry a loaded skill.
func skillMessages(req tk.Request) []string {
	var out []string
	for _, text := range req.MessageTexts("user") {
		if strings.HasPrefix(text, "<skill>") {
			out = append(out, text)
		}
	}
	return out
}

func TestSkillsListedToTheModelAndLoadedWhenMentioned(t *testing.T) {
	e := newEnv(t)
	sub := skillWorld(t, e)
	e.Workdir = sub
	e.Model.Enqueue(answer("ok"))
	r := e.run("", "exec", "--skip-git-repo-check", "use $beta and $homey, not $twin or $missing")
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	for _, want := range []string{"broken/SKILL.md: missing YAML frontmatter delimited by ---", "nodesc/SKILL.md: missing field `description`"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("stderr does not warn %q:\n%s", want, r.Stderr)
		}
	}
	req := e.Model.Requests()[0]
	dev := developerTexts(t, req)
	if len(dev) < 2 || !strings.HasPrefix(dev[1][0], "<skills_instructions>") {
		t.Fatalf("the skills block is not the first part of the second developer message: %q", dev)
	}
	repo := filepath.Dir(sub)
	block := skillsBlock(t, req)
	for _, line := range []string{
		"- `r0` = `" + filepath.Join(repo, ".codex/skills") + "`",
		"- `r1` = `" + filepath.Join(e.CodexHome, "skills") + "`",
		"- `r3` = `" + filepath.Join(repo, ".agents/skills") + "`",
		"- `r4` = `" + filepath.Join(sub, ".agents/skills") + "`",
		"- beta: Beta skill in the repository. (file: r3/beta/SKILL.md)",
		"- gamma: Quoted: in .codex/skills (file: r0/gamma/SKILL.md)",
		"- inner: Nested one level down. (file: r3/group/inner/SKILL.md)",
		"- noname: folded description (file: r3/noname/SKILL.md)",
		"- twin: First twin. (file: r3/twin-a/SKILL.md)",
		"- twin: Second twin. (file: r3/twin-b/SKILL.md)",
		"- subby: Only below sub. (file: r4/subby/SKILL.md)",
		"- apple: From CODEX_HOME. (file: r1/apple/SKILL.md)",
	} {
		if !strings.Contains(block, line+"\n") {
			t.Errorf("skills block lacks %q:\n%s", line, block)
		}
	}
	if strings.Contains(block, "quiet") {
		t.Errorf("a skill without implicit invocation is listed to the model:\n%s", block)
	}
	got := skillMessages(req)
	want := []string{
		"<skill>\n<name>beta</name>\n<path>" + filepath.Join(repo, ".agents/skills/beta/SKILL.md") + "</path>\n---\nname: beta\ndescription: Beta skill in the repository.\n---\nInstructions of beta.\n\n</skill>",
		"<skill>\n<name>homey</name>\n<path>" + filepath.Join(strings.TrimPrefix(e.ExtraEnv[len(e.ExtraEnv)-1], "HOME="), ".agents/skills/homey/SKILL.md") + "</path>\n---\nname: homey\ndescription: From HOME.\n---\nInstructions of homey.\n\n</skill>",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("loaded skills (-want +got):\n%s", diff)
	}
}

// A skill the model picks itself is read with a command, as the instructions tell it.
func TestSkillChosenByTheModelIsReadWithACommand(t *testing.T) {
	e := newEnv(t)
	skillWorld(t, e)
	path := filepath.Join(e.Workdir, ".agents/skills/beta/SKILL.md")
	args, _ := json.Marshal(map[string]string{"cmd": "cat " + path})
	e.Model.Enqueue(
		tk.SSE(tk.Created(), tk.FunctionCall("call_1", "exec_command", string(args)), tk.Completed(tk.Usage{Input: 10, Output: 3, Total: 13})),
		answer("done"))
	r := e.run("", "exec", "--json", "--skip-git-repo-check", "do the beta thing")
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s", r.Code, r.Stderr)
	}
	reqs := e.Model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d requests", len(reqs))
	}
	if msgs := skillMessages(reqs[0]); len(msgs) != 0 {
		t.Errorf("a skill was loaded without a mention: %q", msgs)
	}
	out, ok := reqs[1].ToolOutput("call_1")
	if !ok || !strings.Contains(toString(out), "Instructions of beta.") {
		t.Errorf("the command did not read the skill: %v", out)
	}
}

func toString(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestSkillsMatchReference runs the reference Codex and gocodex on the same skill folders and
// compares the skills block (roots in order, every skill line with its path expanded, the
// headings; the guidance prose is our own) and the skills loaded for the same mentions.
func TestSkillsMatchReference(t *testing.T) {
	ref := referenceBinary(t)
	run := func(bin string) tk.Request {
		e := newEnv(t)
		e.Workdir = skillWorld(t, e)
		e.Model.Enqueue(answer("ok"))
		r := e.runBin(bin, "", "exec", "--json", "--skip-git-repo-check", "use $beta, $subby. $twin and $noname $quiet $linked")
		if r.Code != 0 {
			t.Fatalf("%s exit %d\n%s", bin, r.Code, r.Stderr)
		}
		return e.Model.Requests()[0]
	}
	ours, theirs := run(binary), run(ref)
	normal := func(req tk.Request) (headings, roots, skills, loaded []string) {
		block := skillsBlock(t, req)
		base := regexp.MustCompile(`/tmp/[^/]+/\d+`) // each run has its own temporary folders
		alias := map[string]string{}
		for _, line := range strings.Split(block, "\n") {
			if strings.HasPrefix(line, "#") {
				headings = append(headings, line)
			}
			if m := regexp.MustCompile("^- `(r\\d+)` = `(.*)`$").FindStringSubmatch(line); m != nil {
				alias[m[1]] = m[2]
				if !strings.HasSuffix(m[2], "/.system") { // Codex's bundled skills; gocodex ships none
					roots = append(roots, base.ReplaceAllString(m[2], "<tmp>"))
				}
			}
			if m := regexp.MustCompile(`^- (.*) \(file: (r\d+)/(.*)\)$`).FindStringSubmatch(line); m != nil {
				if strings.HasSuffix(alias[m[2]], "/.system") {
					continue
				}
				skills = append(skills, m[1]+" @ "+base.ReplaceAllString(alias[m[2]], "<tmp>")+"/"+m[3])
			}
		}
		for _, msg := range skillMessages(req) {
			loaded = append(loaded, base.ReplaceAllString(msg, "<tmp>"))
		}
		return
	}
	oh, or, os_, ol := normal(ours)
	th, tr, ts, tl := normal(theirs)
	if len(ts) < 10 || len(tl) < 3 || len(tr) < 5 {
		t.Fatalf("the reference listed too little to compare: roots %q skills %q loaded %q", tr, ts, tl)
	}
	t.Logf("compared %d roots, %d skills, %d loaded skills", len(tr), len(ts), len(tl))
	for _, c := range []struct {
		what        string
		ours, their []string
	}{{"headings", oh, th}, {"roots", or, tr}, {"skills", os_, ts}, {"loaded skills", ol, tl}} {
		if diff := cmp.Diff(c.their, c.ours); diff != "" {
			t.Errorf("%s differ (-reference +ours):\n%s", c.what, diff)
		}
	}
	// The block sits where Codex puts it: first part of the second developer message.
	for name, req := range map[string]tk.Request{"ours": ours, "reference": theirs} {
		if dev := developerTexts(t, req); len(dev) < 2 || !strings.HasPrefix(dev[1][0], "<skills_instructions>") {
			t.Errorf("%s: skills block is not the first part of the second developer message", name)
		}
	}
}

// skills/list answers per cwd as Codex 0.169 does (skills in the model's order, the files
// that did not load), and a turn/start `skill` item loads that skill; the traffic is
// checked against the reference schema.
func TestAppServerSkillsListAndSkillInput(t *testing.T) {
	e := appServerEnv(t, "never")
	sub := skillWorld(t, e)
	e.Workdir = sub
	repo := filepath.Dir(sub)
	c, _ := e.startAppServer()

	type entry struct {
		Cwd    string `json:"cwd"`
		Skills []struct {
			Name, Description, Path, Scope string
			Enabled                        bool
		} `json:"skills"`
		Errors []struct{ Path, Message string } `json:"errors"`
	}
	list := func(params map[string]any) []entry {
		t.Helper()
		var res struct {
			Data []entry `json:"data"`
		}
		c.mustCall("skills/list", params, &res)
		return res.Data
	}
	home := strings.TrimPrefix(e.ExtraEnv[len(e.ExtraEnv)-1], "HOME=")
	target, _ := filepath.EvalSymlinks(filepath.Join(repo, ".agents/skills/linked"))
	short := strings.NewReplacer(repo, "<repo>", e.CodexHome, "<codex>", home, "<home>", filepath.Dir(target), "<link target>")
	data := list(map[string]any{})
	if len(data) != 1 || data[0].Cwd != sub {
		t.Fatalf("default cwd: %+v", data)
	}
	var skills, errs []string
	for _, s := range data[0].Skills {
		skills = append(skills, fmt.Sprintf("%s %s %s: %s enabled=%v", s.Scope, s.Name, short.Replace(s.Path), s.Description, s.Enabled))
	}
	for _, e := range data[0].Errors {
		errs = append(errs, short.Replace(e.Path)+": "+e.Message)
	}
	wantSkills := []string{
		"repo beta <repo>/.agents/skills/beta/SKILL.md: Beta skill in the repository. enabled=true",
		"repo gamma <repo>/.codex/skills/gamma/SKILL.md: Quoted: in .codex/skills enabled=true",
		"repo inner <repo>/.agents/skills/group/inner/SKILL.md: Nested one level down. enabled=true",
		"repo linked <link target>/linked/SKILL.md: Reached through a symbolic link. enabled=true",
		"repo multi <repo>/.agents/skills/multi/SKILL.md: line one line two enabled=true",
		"repo nested <repo>/.agents/skills/beta/examples/nested/SKILL.md: Inside another skill's folder. enabled=true",
		"repo noname <repo>/.agents/skills/noname/SKILL.md: folded description enabled=true",
		"repo quiet <repo>/.agents/skills/quiet/SKILL.md: Loaded only when named. enabled=true",
		"repo subby <repo>/sub/.agents/skills/subby/SKILL.md: Only below sub. enabled=true",
		"repo twin <repo>/.agents/skills/twin-a/SKILL.md: First twin. enabled=true",
		"repo twin <repo>/.agents/skills/twin-b/SKILL.md: Second twin. enabled=true",
		"user apple <codex>/skills/apple/SKILL.md: From CODEX_HOME. enabled=true",
		"user homey <home>/.agents/skills/homey/SKILL.md: From HOME. enabled=true",
	}
	if diff := cmp.Diff(wantSkills, skills); diff != "" {
		t.Errorf("skills (-want +got):\n%s", diff)
	}
	wantErrs := []string{
		"<repo>/.agents/skills/broken/SKILL.md: missing YAML frontmatter delimited by ---",
		"<repo>/.agents/skills/emptydesc/SKILL.md: missing field `description`",
		"<repo>/.agents/skills/latin1/SKILL.md: failed to read file: invalid utf-8 sequence of 1 bytes from index 33",
		"<repo>/.agents/skills/longname/SKILL.md: invalid name: exceeds maximum length of 64 characters",
		"<repo>/.agents/skills/nodesc/SKILL.md: missing field `description`",
	}
	if diff := cmp.Diff(wantErrs, errs); diff != "" {
		t.Errorf("errors (-want +got):\n%s", diff)
	}

	// Another cwd outside the repository sees the user's skills only.
	data = list(map[string]any{"cwds": []string{"/nonexistent/dir"}, "forceReload": true})
	if len(data) != 1 || data[0].Cwd != "/nonexistent/dir" || len(data[0].Skills) != 2 || len(data[0].Errors) != 0 {
		t.Errorf("outside the repository: %+v", data)
	}

	// A new SKILL.md in a listed folder is announced; the next list has it.
	if err := os.MkdirAll(filepath.Join(repo, ".agents/skills/fresh"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, ".agents/skills/fresh/SKILL.md"), []byte("---\ndescription: Added later.\n---\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c.until("skills/changed")
	data = list(map[string]any{"cwds": []string{sub}})
	if n := len(data[0].Skills); n != len(wantSkills)+1 {
		t.Errorf("after adding a skill: %d skills, want %d", n, len(wantSkills)+1)
	}

	// An explicit skill item loads the skill after the user's message.
	gamma := filepath.Join(repo, ".codex/skills/gamma/SKILL.md")
	id := c.startThread(map[string]any{"cwd": sub})
	e.Model.Enqueue(answer("ok"))
	c.mustCall("turn/start", map[string]any{"threadId": id, "input": []map[string]any{
		{"type": "text", "text": "go"}, {"type": "skill", "name": "gamma", "path": gamma}}}, nil)
	if status := lastTurnStatus(t, c.until("turn/completed")); status != "completed" {
		t.Fatalf("turn %s", status)
	}
	msgs := skillMessages(e.Model.Requests()[0])
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0], "<skill>\n<name>gamma</name>\n<path>"+gamma+"</path>\n") {
		t.Errorf("skill item loaded %q", msgs)
	}
}

// A `$name` typed in the TUI composer goes through as text and loads the skill.
func TestTUISkillMentionLoadsTheSkill(t *testing.T) {
	e := newEnv(t)
	skillWorld(t, e)
	e.Model.Enqueue(answer("SKILLANSWER"))
	s := e.startTUI("-a", "never", "-s", "danger-full-access")
	pos := s.screen.waitFor(t, "Ask gocodex to do anything", 0)
	s.typeKeys("use $beta now")
	s.typeKeys("\r")
	pos = s.screen.waitFor(t, "SKILLANSWER", pos)
	pos = s.screen.waitFor(t, "Token usage:", pos)
	s.quit(pos)
	reqs := e.Model.Requests()
	if len(reqs) != 1 {
		t.Fatalf("%d model requests", len(reqs))
	}
	msgs := skillMessages(reqs[0])
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0], "<skill>\n<name>beta</name>\n") {
		t.Errorf("loaded skills %q", msgs)
	}
	if texts := reqs[0].MessageTexts("user"); !containsString(texts, "use $beta now") {
		t.Errorf("the typed text did not reach the model as typed: %q", texts)
	}
}

func containsString(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestSkillsListMatchesReference compares skills/list of gocodex and Codex 0.169 on the same
// folders: every repository and user skill with its fields, and the files that did not
// load. Codex's bundled system skills are left out (gocodex ships none).
func TestSkillsListMatchesReference(t *testing.T) {
	ref := referenceBinary(t)
	list := func(bin string) (skills, errs []string) {
		e := appServerEnv(t, "never")
		sub := skillWorld(t, e)
		e.Workdir = sub
		home := strings.TrimPrefix(e.ExtraEnv[len(e.ExtraEnv)-1], "HOME=")
		target, _ := filepath.EvalSymlinks(filepath.Join(filepath.Dir(sub), ".agents/skills/linked"))
		short := strings.NewReplacer(filepath.Dir(sub), "<repo>", e.CodexHome, "<codex>", home, "<home>", filepath.Dir(target), "<link target>")
		c, stop := e.startAppServerOf(bin)
		defer stop()
		res, _ := c.call("skills/list", map[string]any{"cwds": []string{sub}})
		var out struct {
			Data []struct {
				Skills []map[string]any                 `json:"skills"`
				Errors []struct{ Path, Message string } `json:"errors"`
			} `json:"data"`
		}
		if err := json.Unmarshal(res, &out); err != nil || len(out.Data) != 1 {
			t.Fatalf("%s: skills/list %s: %v", bin, res, err)
		}
		for _, s := range out.Data[0].Skills {
			if s["scope"] == "system" {
				continue
			}
			b, _ := json.Marshal(s)
			skills = append(skills, short.Replace(string(b)))
		}
		for _, e := range out.Data[0].Errors {
			errs = append(errs, short.Replace(e.Path)+": "+e.Message)
		}
		return skills, errs
	}
	os_, oe := list(binary)
	ts, te := list(ref)
	if len(ts) < 12 {
		t.Fatalf("the reference listed too little to compare: %q", ts)
	}
	if diff := cmp.Diff(ts, os_); diff != "" {
		t.Errorf("skills differ (-reference +ours):\n%s", diff)
	}
	if diff := cmp.Diff(te, oe); diff != "" {
		t.Errorf("errors differ (-reference +ours):\n%s", diff)
	}
}
