package tui

import (
	"sort"
	"strings"
)

// File mentions: typing @ and part of a path offers the work tree's files, matched fuzzily;
// Tab or Enter puts the chosen path in place of the @word.

// maxMentionFiles bounds the walk of a huge work tree.
const maxMentionFiles = 20000

// mentionPopup is the open list of matching files.
type mentionPopup struct {
	items     []string
	selected  int
	dismissed string // the composer text Esc closed it on
}

// mentionQuery is the @word the composer ends with.
func mentionQuery(text string) (string, bool) {
	i := strings.LastIndexAny(text, " \t\n")
	word := text[i+1:]
	if !strings.HasPrefix(word, "@") {
		return "", false
	}
	return word[1:], true
}

// workTreeFiles lists the work tree's files as Codex's file search does (mention_walk.go);
// read once per UI.
func (m *Model) workTreeFiles() []string {
	if m.files != nil || m.header.Cwd == "" {
		return m.files
	}
	m.files = walkFiles(m.header.Cwd, maxMentionFiles)
	return m.files
}

// fuzzyScore matches q as a subsequence of s (both lower case), favouring consecutive
// letters, letters at the start of a path part, and short paths.
func fuzzyScore(s, q string) (int, bool) {
	score, qi, prev := 0, 0, -2
	for i := 0; i < len(s) && qi < len(q); i++ {
		if s[i] != q[qi] {
			continue
		}
		score++
		if i == prev+1 {
			score += 5
		}
		if i == 0 || strings.ContainsRune("/_-. ", rune(s[i-1])) {
			score += 3
		}
		prev = i
		qi++
	}
	if qi < len(q) {
		return 0, false
	}
	return score*1000 - len(s), true
}

// fuzzyFiles returns the best matches of q among files.
func fuzzyFiles(files []string, q string, limit int) []string {
	type hit struct {
		path  string
		score int
	}
	q = strings.ToLower(q)
	var hits []hit
	for _, f := range files {
		if s, ok := fuzzyScore(strings.ToLower(f), q); ok {
			hits = append(hits, hit{f, s})
		}
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].path < hits[j].path
	})
	out := make([]string, 0, min(limit, len(hits)))
	for _, h := range hits[:min(limit, len(hits))] {
		out = append(out, h.path)
	}
	return out
}

// syncMentions opens, filters or closes the file list after the composer changed.
func (m *Model) syncMentions() {
	v := m.input.Value()
	q, ok := mentionQuery(v)
	if !ok || v == m.mentions.dismissed {
		m.mentions.items = nil
		if !ok {
			m.mentions.dismissed = ""
		}
		return
	}
	m.mentions.items = fuzzyFiles(m.workTreeFiles(), q, maxPopupRows)
	m.mentions.selected = min(m.mentions.selected, max(0, len(m.mentions.items)-1))
}

// mentionKey handles a key while the file list is open; false leaves it to the composer.
func (m *Model) mentionKey(ks string) bool {
	p := &m.mentions
	n := len(p.items)
	switch ks {
	case "up", "ctrl+p":
		p.selected = (p.selected - 1 + n) % n
	case "down", "ctrl+n":
		p.selected = (p.selected + 1) % n
	case "tab", "enter":
		v := m.input.Value()
		i := strings.LastIndexAny(v, " \t\n")
		path := p.items[p.selected]
		if strings.ContainsAny(path, " \t") {
			path = `"` + path + `"`
		}
		m.input.SetValue(v[:i+1] + path + " ")
		p.items, p.selected = nil, 0
	case "esc":
		p.dismissed = m.input.Value()
		p.items = nil
	default:
		return false
	}
	return true
}

func (m *Model) mentionView() string {
	var lines []string
	for i, f := range m.mentions.items {
		if i == m.mentions.selected {
			lines = append(lines, truncate(m.st.bold.Render("› "+f), m.width))
		} else {
			lines = append(lines, truncate(m.st.dim.Render("  "+f), m.width))
		}
	}
	return strings.Join(lines, "\n")
}
