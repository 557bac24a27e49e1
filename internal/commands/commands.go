// Package commands finds the person's custom commands, prompt files that become slash
// commands, and expands them with their arguments. Codex 0.169 no longer expands its
// `prompts/` folder; gocodex does, from $CODEX_HOME/prompts and the repository's
// .codex/prompts (a project command of the same name wins).
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

// Dirs are the folders commands are read from, lowest precedence first: the user's
// ($CODEX_HOME/prompts), then the project's (<root>/.codex/prompts).
func Dirs(codexHome, projectRoot string) []string {
	var dirs []string
	if codexHome != "" {
		dirs = append(dirs, filepath.Join(codexHome, "prompts"))
	}
	if projectRoot != "" {
		dirs = append(dirs, filepath.Join(projectRoot, ".codex", "prompts"))
	}
	return dirs
}

// Load reads the *.md files of dirs (later folders override earlier ones). A file that
// cannot be used (not UTF-8, bad front matter, an unusable name) is reported in warnings,
// naming the file; the others still load. A missing folder is not an error.
func Load(dirs ...string) (*Set, []string) {
	s := &Set{byName: map[string]Command{}}
	var warnings []string
	for _, dir := range dirs {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !os.IsNotExist(err) {
				warnings = append(warnings, fmt.Sprintf("custom commands in %s: %v", dir, err))
			}
			continue
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			path := filepath.Join(dir, e.Name())
			c, err := read(path)
			if err != nil {
				warnings = append(warnings, fmt.Sprintf("custom command %s skipped: %v", path, err))
				continue
			}
			s.byName[c.Name] = c
		}
	}
	return s, warnings
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
