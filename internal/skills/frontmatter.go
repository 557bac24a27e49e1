package skills

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// frontMatter is what a SKILL.md header may say. Only the keys Codex reads for the list are
// kept; other keys (metadata, license, ...) are accepted and ignored.
type frontMatter struct {
	Name        string
	Description string
	HasDesc     bool
}

var errNoFrontMatter = errors.New("missing YAML frontmatter delimited by ---")

// parseFrontMatter reads the YAML header between the opening and closing `---` lines. It
// understands the subset skills use: top-level `key: value` pairs with plain, single- or
// double-quoted scalars, plain scalars continued on indented lines, and `>` / `|` block
// scalars. Nested mappings are skipped; anything else is reported with its line.
func parseFrontMatter(text string) (frontMatter, error) {
	text = strings.TrimPrefix(text, "\ufeff")
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	if len(lines) == 0 || strings.TrimRight(lines[0], " \t") != "---" {
		return frontMatter{}, errNoFrontMatter
	}
	end := -1
	for i := 1; i < len(lines); i++ {
		if strings.TrimRight(lines[i], " \t") == "---" {
			end = i
			break
		}
	}
	if end < 0 {
		return frontMatter{}, errNoFrontMatter
	}
	body := lines[1:end]
	var fm frontMatter
	for i := 0; i < len(body); {
		line := body[i]
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			i++
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			return frontMatter{}, fmt.Errorf("invalid YAML frontmatter: line %d: unexpected indentation", i+2)
		}
		key, rest, ok := strings.Cut(line, ":")
		if !ok || strings.ContainsAny(key, " \t\"'") {
			return frontMatter{}, fmt.Errorf("invalid YAML frontmatter: line %d: expected `key: value`", i+2)
		}
		rest = strings.TrimSpace(rest)
		// The value's continuation: the following more-indented or blank lines.
		j := i + 1
		for j < len(body) && (strings.TrimSpace(body[j]) == "" || body[j][0] == ' ' || body[j][0] == '\t') {
			j++
		}
		cont := body[i+1 : j]
		value, isScalar, err := scalar(rest, cont)
		if err != nil {
			return frontMatter{}, fmt.Errorf("invalid YAML frontmatter: line %d: %s: %w", i+2, key, err)
		}
		switch key {
		case "name":
			if !isScalar {
				return frontMatter{}, fmt.Errorf("invalid YAML frontmatter: line %d: name must be a string", i+2)
			}
			fm.Name = value
		case "description":
			if !isScalar {
				return frontMatter{}, fmt.Errorf("invalid YAML frontmatter: line %d: description must be a string", i+2)
			}
			fm.Description, fm.HasDesc = value, true
		}
		i = j
	}
	return fm, nil
}

// scalar decodes a value: rest is the text after the colon, cont its continuation lines.
// isScalar is false for a nested mapping or list (rest empty, indented lines follow).
func scalar(rest string, cont []string) (value string, isScalar bool, err error) {
	switch {
	case rest == "":
		for _, c := range cont {
			if strings.TrimSpace(c) != "" {
				return "", false, nil
			}
		}
		return "", true, nil
	case rest[0] == '>' || rest[0] == '|':
		return blockScalar(rest, cont), true, nil
	case rest[0] == '"':
		s, err := strconv.Unquote(joinFolded(rest, cont))
		if err != nil {
			return "", false, errors.New("bad double-quoted string")
		}
		return s, true, nil
	case rest[0] == '\'':
		s := joinFolded(rest, cont)
		if len(s) < 2 || !strings.HasSuffix(s, "'") {
			return "", false, errors.New("unterminated single-quoted string")
		}
		return strings.ReplaceAll(s[1:len(s)-1], "''", "'"), true, nil
	case rest[0] == '[' || rest[0] == '{' || rest[0] == '&' || rest[0] == '*' || rest[0] == '!':
		return "", false, errors.New("flow collections, anchors and tags are not supported in skill front matter")
	}
	if k := strings.Index(rest, " #"); k >= 0 {
		rest = strings.TrimSpace(rest[:k])
	}
	return joinFolded(rest, cont), true, nil
}

// joinFolded joins a plain or quoted scalar with its continuation lines, a blank line
// becoming a newline and other breaks a space, as YAML folds them.
func joinFolded(first string, cont []string) string {
	var b strings.Builder
	b.WriteString(first)
	pendingBreaks := 0
	for _, c := range cont {
		c = strings.TrimSpace(c)
		if c == "" {
			pendingBreaks++
			continue
		}
		if pendingBreaks > 0 {
			b.WriteString(strings.Repeat("\n", pendingBreaks))
		} else {
			b.WriteByte(' ')
		}
		pendingBreaks = 0
		b.WriteString(c)
	}
	return b.String()
}

// blockScalar decodes `>` (folded) and `|` (literal) blocks with their chomping indicator.
func blockScalar(header string, cont []string) string {
	folded := header[0] == '>'
	chomp := byte(0)
	if strings.Contains(header, "-") {
		chomp = '-'
	} else if strings.Contains(header, "+") {
		chomp = '+'
	}
	indent := -1
	var lines []string
	for _, c := range cont {
		if strings.TrimSpace(c) == "" {
			lines = append(lines, "")
			continue
		}
		n := len(c) - len(strings.TrimLeft(c, " \t"))
		if indent < 0 || n < indent {
			indent = n
		}
		lines = append(lines, c)
	}
	for i, l := range lines {
		if l != "" && indent > 0 {
			lines[i] = l[indent:]
		}
	}
	// Trailing blank lines belong to chomping.
	trailing := 0
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
		trailing++
	}
	var b strings.Builder
	for i, l := range lines {
		if i > 0 {
			prev := lines[i-1]
			if folded && l != "" && prev != "" && !strings.HasPrefix(l, " ") && !strings.HasPrefix(prev, " ") {
				b.WriteByte(' ')
			} else if !(folded && prev == "") || !folded {
				b.WriteByte('\n')
			}
		}
		b.WriteString(l)
	}
	switch chomp {
	case '-':
	case '+':
		b.WriteString(strings.Repeat("\n", trailing+1))
	default:
		if len(lines) > 0 {
			b.WriteByte('\n')
		}
	}
	return b.String()
}
