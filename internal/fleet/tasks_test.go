package fleet

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseTasksNamesTheLine(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"malformed", "{\"id\":\"a\",\"repo\":\"r\",\"prompt\":\"p\"}\n{oops\n", "t.jsonl:2: not a task object"},
		{"two values", `{"id":"a","repo":"r","prompt":"p"} {}`, "t.jsonl:1: more than one JSON value"},
		{"no id", `{"repo":"r","prompt":"p"}`, `t.jsonl:1: the task has no "id"`},
		{"bad id", `{"id":"../x","repo":"r","prompt":"p"}`, `t.jsonl:1: task id "../x"`},
		{"dot id", `{"id":".fleet","repo":"r","prompt":"p"}`, `t.jsonl:1: task id ".fleet"`},
		{"no repo", `{"id":"a","prompt":"p"}`, `t.jsonl:1: task "a" has no "repo"`},
		{"no prompt", `{"id":"a","repo":"r","prompt":" "}`, `t.jsonl:1: task "a" has no "prompt"`},
		{"option repo", `{"id":"a","repo":"--upload-pack=x","prompt":"p"}`, `may not start with '-'`},
		{"table config", `{"id":"a","repo":"r","prompt":"p","config":{"x":{"y":1}}}`, `config "x": a value must be`},
		{"duplicate", "{\"id\":\"a\",\"repo\":\"r\",\"prompt\":\"p\"}\n\n{\"id\":\"a\",\"repo\":\"s\",\"prompt\":\"q\"}", `t.jsonl:3: duplicate task id "a" (first on line 1)`},
		{"empty", "\n\n", "t.jsonl: no tasks"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseTasks(strings.NewReader(c.in), "t.jsonl")
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want it to say %q", err, c.want)
			}
		})
	}
}

func TestParseTasksAndConfigArgs(t *testing.T) {
	in := `{"id":"a","repo":"r","ref":"v1","prompt":"p","config":{"model":"m","model_reasoning_effort":"high","n":3,"on":true,"list":["x",1]}}` + "\n"
	tasks, err := ParseTasks(strings.NewReader(in), "t")
	if err != nil {
		t.Fatal(err)
	}
	args, err := ConfigArgs(tasks[0])
	if err != nil {
		t.Fatal(err)
	}
	want := `-c list=["x", 1] -c model="m" -c model_reasoning_effort="high" -c n=3 -c on=true`
	if got := strings.Join(args, " "); got != want {
		t.Fatalf("got  %s\nwant %s", got, want)
	}
}

func TestResolveMakesPathsAbsolute(t *testing.T) {
	base := t.TempDir()
	if err := os.MkdirAll(filepath.Join(base, "repo", ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	tasks := []Task{{ID: "a", Repo: "repo"}, {ID: "b", Repo: "https://example.com/x.git"}}
	if err := Resolve(tasks, base); err != nil {
		t.Fatal(err)
	}
	if tasks[0].Repo != filepath.Join(base, "repo") || tasks[1].Repo != "https://example.com/x.git" {
		t.Fatalf("resolved: %+v", tasks)
	}
	err := Resolve([]Task{{ID: "c", Repo: "file://" + filepath.Join(base, "gone")}}, base)
	if err == nil || !strings.Contains(err.Error(), `task "c"`) || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("a missing file:// repository: %v", err)
	}
}
