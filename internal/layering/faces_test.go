package layering

import (
	"sort"
	"strings"
	"testing"
)

// faceVocabulary are the packages besides the host every face may use: the SQ/EQ protocol,
// the JSON-RPC framing, the one fold of events into items.
var faceVocabulary = map[string]bool{"protocol": true, "internal/jsonrpc": true, "internal/items": true}

// facesNotYetThin are the imports of faces that still break the rule below, as they stood when
// the rule was written (issue 30, point 7, left open): each must go behind the host, and its
// line here then goes too (the test fails on a line that no longer holds, so this list only
// shrinks).
var facesNotYetThin = map[string]bool{
	"internal/appserver imports internal/auth":   true,
	"internal/appserver imports internal/config": true,
	"internal/tui imports internal/config":       true,
}

// TestFacesImportOnlyTheHouse (issue 30, point 7): a face is a thin adapter. It may import
// only the host, the face vocabulary above, its own packages (its wire types) and leaf
// packages (those that import nothing of ours but protocol); everything else it needs it asks
// the host for.
func TestFacesImportOnlyTheHouse(t *testing.T) {
	pkgs := listPackages(t)
	leaf := map[string]bool{}
	for _, p := range pkgs {
		rel, _ := relative(p.ImportPath)
		isLeaf := true
		for _, imp := range p.Imports {
			if irel, ours := relative(imp); ours && irel != "protocol" {
				isLeaf = false
			}
		}
		leaf[rel] = isLeaf
	}
	var bad []string
	seen := map[string]bool{}
	for _, p := range pkgs {
		rel, _ := relative(p.ImportPath)
		from, ok := roomOf(rel)
		if !ok || from.layer != face {
			continue
		}
		for _, imp := range p.Imports {
			irel, ours := relative(imp)
			if !ours {
				continue
			}
			to, _ := roomOf(irel)
			switch {
			case to.layer == host, faceVocabulary[irel], leaf[irel]:
			case to.layer == face && to.face == from.face:
			case to.layer == thirdParty:
			default:
				line := rel + " imports " + irel
				seen[line] = true
				if !facesNotYetThin[line] {
					bad = append(bad, line)
				}
			}
		}
	}
	for line := range facesNotYetThin {
		if !seen[line] {
			t.Errorf("%q no longer holds: remove it from facesNotYetThin", line)
		}
	}
	sort.Strings(bad)
	if len(bad) > 0 {
		t.Errorf("a face may import only the host, %s, its own packages and leaf packages; ask the host instead:\n  %s",
			strings.Join(sortedKeys(faceVocabulary), ", "), strings.Join(bad, "\n  "))
	}
}

func sortedKeys(m map[string]bool) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
