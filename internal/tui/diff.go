package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/gocodex/gocodex/protocol"
)

// diffLines is a patch as the person reads it: per file a heading with the counts, then the
// lines with their +/- marks. Styling is applied by renderDiff.
func diffLines(changes map[string]protocol.FileChange) []string {
	paths := make([]string, 0, len(changes))
	for p := range changes {
		paths = append(paths, p)
	}
	sort.Strings(paths)
	var out []string
	for _, p := range paths {
		ch := changes[p]
		var body []string
		switch ch.Kind {
		case protocol.FileAdd:
			for _, l := range splitContent(ch.Content) {
				body = append(body, "+"+l)
			}
		case protocol.FileDelete:
			for _, l := range splitContent(ch.Content) {
				body = append(body, "-"+l)
			}
		default:
			for _, l := range splitContent(ch.UnifiedDiff) {
				if strings.HasPrefix(l, "---") || strings.HasPrefix(l, "+++") {
					continue
				}
				body = append(body, l)
			}
		}
		added, removed := 0, 0
		for _, l := range body {
			switch {
			case strings.HasPrefix(l, "+"):
				added++
			case strings.HasPrefix(l, "-"):
				removed++
			}
		}
		verb := "Edited"
		switch ch.Kind {
		case protocol.FileAdd:
			verb = "Added"
		case protocol.FileDelete:
			verb = "Deleted"
		}
		name := p
		if ch.MovePath != nil {
			name += " → " + *ch.MovePath
		}
		out = append(out, fmt.Sprintf("%s %s (+%d -%d)", verb, name, added, removed))
		out = append(out, body...)
	}
	return out
}

func splitContent(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(strings.ReplaceAll(s, "\t", "    "), "\n")
}

// renderDiff colours diff lines: additions green, removals red, hunk headers dim, file
// headings bold.
func renderDiff(lines []string, st styles, width int) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		l = truncate(l, width)
		switch {
		case strings.HasPrefix(l, "+++ ") || strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "diff --git"):
			out[i] = st.bold.Render(l)
		case strings.HasPrefix(l, "index ") || strings.HasPrefix(l, "new file") || strings.HasPrefix(l, "deleted file"):
			out[i] = st.dim.Render(l)
		case strings.HasPrefix(l, "+"):
			out[i] = st.added.Render(l)
		case strings.HasPrefix(l, "-"):
			out[i] = st.removed.Render(l)
		case strings.HasPrefix(l, "@@"):
			out[i] = st.dim.Render(l)
		case strings.HasPrefix(l, " "):
			out[i] = l
		default:
			out[i] = st.bold.Render(l)
		}
	}
	return strings.Join(out, "\n")
}
