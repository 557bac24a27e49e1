// Package commands finds the person's custom commands, prompt files that become slash
// commands, and expands them with their arguments. Codex 0.169 no longer expands its
// `prompts/` folder; gocodex does, from $CODEX_HOME/prompts and the .codex/prompts folders of
// a trusted project. A project's command never takes a name the person already uses: a
// built-in command's (/review) or one of their own.
//
// A prompt file is Markdown, optionally opening with front matter:
//
//	---
//	description: Review a file for bugs
//	argument-hint: FILE [FOCUS=...]
//	---
//	Look for bugs in $1. Focus on $FOCUS. All arguments: $ARGUMENTS
//
// In the body, $1 … $9 are the positional arguments, $ARGUMENTS all of them as typed,
// $NAME the value of a NAME=value argument (names in capitals), and $$ a dollar sign.
// Placeholders with no value become empty.
package commands

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// Command is one custom command.
type Command struct {
	Name         string
	Description  string
	ArgumentHint string
	Body         string
	Path         string
}

// Set is the commands found, by name.
type Set struct {
	byName map[string]Command
}

// BuiltinNames are the interface's own slash commands (the TUI keeps its list in step, a
// test checks): a project's prompt file cannot take one of these names.
var BuiltinNames = []string{
	"model", "fast", "presets", "ide", "permissions", "approvals", "keymap", "vim", "experimental",
	"approve", "memories", "skills", "import", "hooks", "review", "rename", "new", "archive", "delete",
	"resume", "fork", "worktree", "init", "compact", "config", "recap", "plan", "goal", "agents", "side", "undo",
	"copy", "export", "raw", "tui", "diff", "mention", "status", "daemon", "rc", "warnings", "cd", "pwd",
	"title", "statusline", "theme", "pets", "mcp", "plugins", "logout", "commands", "exit", "quit",
	"feedback", "ps", "stop", "clear", "subagents",
}

// Sources say where commands come from.
type Sources struct {
	// User is the person's own folder ($CODEX_HOME/prompts); "" for none.
	User string
	// Project are the prompts folders of a project that may load (a trusted project's
	// .codex/prompts, from its root down to cwd: a deeper folder's command wins).
	Project []string
	// Keep, when set, says which project files may load (nil keeps all).
	Keep func(path string) bool
}

// Load reads the *.md files of the sources. The person's own commands always load; a
// project's loads unless its name is a built-in command's or one of the person's own
// (they keep their name, and a warning names the file left out). A file that cannot be used
// (not UTF-8, bad front matter, an unusable name) is reported in warnings, naming the file;
// the others still load. A missing folder is not an error.
func Load(src Sources) (*Set, []string) {
	s := &Set{byName: map[string]Command{}}
	var warnings []string
	if src.User != "" {
		for _, c := range readDir(src.User, nil, &warnings) {
			s.byName[c.Name] = c
		}
	}
	user := make(map[string]Command, len(s.byName))
	for name, c := range s.byName {
		user[name] = c
	}
	for _, dir := range src.Project {
		for _, c := range readDir(dir, src.Keep, &warnings) {
			if slices.Contains(BuiltinNames, c.Name) {
				warnings = append(warnings, fmt.Sprintf("project command %s is not used: /%s is a built-in command", c.Path, c.Name))
				continue
			}
			if own, ok := user[c.Name]; ok {
				warnings = append(warnings, fmt.Sprintf("project command %s is not used: your own /%s (%s) keeps the name", c.Path, c.Name, own.Path))
				continue
			}
			s.byName[c.Name] = c
		}
	}
	return s, warnings
}

// readDir reads dir's commands, those keep lets through.
func readDir(dir string, keep func(string) bool, warnings *[]string) []Command {
	entries, err := os.ReadDir(dir)
	if err != nil {
		if !os.IsNotExist(err) {
			*warnings = append(*warnings, fmt.Sprintf("custom commands in %s: %v", dir, err))
		}
		return nil
	}
	var out []Command
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
			continue
		}
		path := filepath.Join(dir, e.Name())
		if keep != nil && !keep(path) {
			continue
		}
		c, err := read(path)
		if err != nil {
			*warnings = append(*warnings, fmt.Sprintf("custom command %s skipped: %v", path, err))
			continue
		}
		out = append(out, c)
	}
	return out
}

func read(path string) (Command, error) {
	name := strings.TrimSuffix(filepath.Base(path), ".md")
	if name == "" || strings.ContainsAny(name, " \t:/$") {
		return Command{}, fmt.Errorf("%q cannot be a command name", name)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return Command{}, err
	}
	if !utf8.Valid(data) {
		return Command{}, fmt.Errorf("not UTF-8 text")
	}
	c := Command{Name: name, Path: path, Body: string(data)}
	text := strings.ReplaceAll(string(data), "\r\n", "\n")
	if rest, ok := strings.CutPrefix(text, "---\n"); ok {
		head, body, found := strings.Cut(rest, "\n---\n")
		if !found {
			if head, found = strings.CutSuffix(rest, "\n---"); !found {
				return Command{}, fmt.Errorf("front matter opened with --- is never closed")
			}
			body = ""
		}
		for i, line := range strings.Split(head, "\n") {
			if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
				continue
			}
			key, value, ok := strings.Cut(line, ":")
			if !ok {
				return Command{}, fmt.Errorf("front matter line %d: %q is not `key: value`", i+2, line)
			}
			value = strings.Trim(strings.TrimSpace(value), `"'`)
			switch strings.TrimSpace(key) {
			case "description":
				c.Description = value
			case "argument-hint", "argument_hint":
				c.ArgumentHint = value
			}
		}
		c.Body = body
	}
	return c, nil
}

// Lookup finds a command by name.
func (s *Set) Lookup(name string) (Command, bool) {
	c, ok := s.byName[name]
	return c, ok
}

// List is every command, by name.
func (s *Set) List() []Command {
	out := make([]Command, 0, len(s.byName))
	for _, c := range s.byName {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Invocation splits "/name args" (or "/prompts:name args", Codex's older spelling) into the
// command name and the argument text; ok is false when text is not a slash command.
func Invocation(text string) (name, args string, ok bool) {
	text = strings.TrimSpace(text)
	if !strings.HasPrefix(text, "/") {
		return "", "", false
	}
	head, args, _ := strings.Cut(text[1:], " ")
	head = strings.TrimPrefix(head, "prompts:")
	if head == "" {
		return "", "", false
	}
	return head, strings.TrimSpace(args), true
}

// Expand resolves text when it invokes one of the commands: the command's body with its
// arguments in place. ok is false (and text is left to the caller) otherwise.
func (s *Set) Expand(text string) (expanded string, ok bool, err error) {
	name, args, isCmd := Invocation(text)
	if !isCmd || s == nil {
		return "", false, nil
	}
	c, found := s.byName[name]
	if !found {
		return "", false, nil
	}
	words, err := splitArgs(args)
	if err != nil {
		return "", true, fmt.Errorf("/%s: %w", name, err)
	}
	return c.Expand(args, words), true, nil
}
