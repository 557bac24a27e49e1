package config

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/gocodex/gocodex/internal/features"
)

// unsupportedKeyWarning names a key Codex 0.169 accepts that gocodex does not act on.
func unsupportedKeyWarning(file string, src []byte, key []string) Warning {
	w := Warning{File: file, Key: key, Message: fmt.Sprintf(
		"`%s` is a Codex setting gocodex does not support: it is ignored", strings.Join(key, "."))}
	if src != nil {
		if line, col, ok := locate(src, key); ok {
			w.Line, w.Column = line, col
		}
	}
	return w
}

// keyWarning is the warning for one finding of checkKeys.
func keyWarning(file string, src []byte, f keyFinding) Warning {
	if f.kind == keyUnsupported {
		return unsupportedKeyWarning(file, src, f.path)
	}
	return unknownKeyWarning(file, src, f.path)
}

// closestKey is the known key nearest in spelling to the last element of an unknown key
// path, among the keys valid at that place; "" when none is close.
func closestKey(key []string) string {
	if len(key) == 0 {
		return ""
	}
	candidates := keysAt(key[:len(key)-1])
	bad := key[len(key)-1]
	best, bestDist := "", len(bad)/3+2 // allow about one typo per three letters
	for _, c := range candidates {
		if d := editDistance(bad, c); d < bestDist || (d == bestDist && best != "" && c < best) {
			best, bestDist = c, d
		}
	}
	return best
}

// keysAt lists the keys the schema accepts under a table path.
func keysAt(prefix []string) []string {
	t := fileType
	for i := 0; i < len(prefix); i++ {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		if t == fileType && prefix[i] == "lsp" {
			if len(prefix) != 2 {
				return nil
			}
			t = lspServerType
			break
		}
		if t == fileType && prefix[i] == "features" {
			if i != len(prefix)-1 {
				return nil
			}
			var names []string
			for _, f := range features.All() {
				names = append(names, f.Name)
			}
			return names
		}
		switch t.Kind() {
		case reflect.Map:
			t = t.Elem()
		case reflect.Struct:
			ft, ok := tomlFields(t)[prefix[i]]
			if !ok {
				return nil
			}
			t = ft
		default:
			return nil
		}
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	var out []string
	for name := range tomlFields(t) {
		if !(t == fileType && ignoredFileKeys[name]) {
			out = append(out, name)
		}
	}
	if t == fileType {
		for name := range codexOnlyKeys {
			out = append(out, name)
		}
		for name := range readElsewhere {
			out = append(out, name)
		}
	}
	return out
}

// editDistance is the Levenshtein distance between a and b.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
