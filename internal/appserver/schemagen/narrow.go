package schemagen

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
)

// narrowJSONUnion keeps, of the array at path (object keys from the root), the request
// schemas whose method serves accepts. The bytes around the kept elements are left as they
// are, so with nothing dropped the file is unchanged.
func narrowJSONUnion(data []byte, path []string, serves func(string) bool) ([]byte, error) {
	start, end, err := span(data, path)
	if err != nil {
		return nil, err
	}
	arr := data[start:end]
	dec := json.NewDecoder(bytes.NewReader(arr))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('[') {
		return nil, fmt.Errorf("%s is not an array", strings.Join(path, "."))
	}
	type element struct{ start, end int }
	var elems []element
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, err
		}
		e := int(dec.InputOffset())
		elems = append(elems, element{e - len(raw), e})
	}
	if len(elems) == 0 {
		return data, nil
	}
	lead := arr[1:elems[0].start]                      // "\n      " after '['
	trail := arr[elems[len(elems)-1].end : len(arr)-1] // "\n    " before ']'
	sep := []byte("," + string(lead))
	if len(elems) > 1 {
		sep = arr[elems[0].end:elems[1].start]
	}
	var kept [][]byte
	for _, el := range elems {
		raw := arr[el.start:el.end]
		var req struct {
			Properties struct {
				Method struct {
					Enum []string `json:"enum"`
				} `json:"method"`
			} `json:"properties"`
		}
		if err := json.Unmarshal(raw, &req); err != nil {
			return nil, err
		}
		if m := req.Properties.Method.Enum; len(m) == 1 && !serves(m[0]) {
			continue
		}
		kept = append(kept, raw)
	}
	var out bytes.Buffer
	out.Write(data[:start])
	out.WriteByte('[')
	if len(kept) > 0 {
		out.Write(lead)
		out.Write(bytes.Join(kept, sep))
		out.Write(trail)
	}
	out.WriteByte(']')
	out.Write(data[end:])
	return out.Bytes(), nil
}

// span finds the byte range of the value at path.
func span(data []byte, path []string) (int, int, error) {
	if len(path) == 0 {
		trimmed := bytes.TrimLeft(data, " \t\r\n")
		s := len(data) - len(trimmed)
		return s, s + len(bytes.TrimRight(trimmed, " \t\r\n")), nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return 0, 0, fmt.Errorf("no object holding %q", path[0])
	}
	for dec.More() {
		key, err := dec.Token()
		if err != nil {
			return 0, 0, err
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return 0, 0, err
		}
		if key != path[0] {
			continue
		}
		off := int(dec.InputOffset()) - len(raw)
		s, e, err := span(raw, path[1:])
		return off + s, off + e, err
	}
	return 0, 0, fmt.Errorf("no member %q", path[0])
}

// importLinePattern and methodMemberPattern are compiled when a command runs, not at start-up.
const importLinePattern = `(?m)^import type \{ (\w+) \} from "[^"]+";\n`

// narrowTSUnion keeps the members of `export type ClientRequest = A | B | ...;` whose method
// serves accepts, and the imports the kept members still use.
func narrowTSUnion(data []byte, serves func(string) bool) ([]byte, error) {
	const head = "export type ClientRequest ="
	text := string(data)
	i := strings.Index(text, head)
	if i < 0 {
		return nil, fmt.Errorf("no %q", head)
	}
	bodyStart := i + len(head)
	semi := strings.Index(text[bodyStart:], ";\n")
	if semi < 0 {
		return nil, fmt.Errorf("ClientRequest union does not end")
	}
	body := text[bodyStart : bodyStart+semi]
	var kept []string
	memberMethod := regexp.MustCompile(methodMemberPattern)
	for _, member := range splitTopLevel(body, " | ") {
		method := ""
		if m := memberMethod.FindStringSubmatch(member); m != nil {
			method = m[1]
		}
		if method != "" && !serves(method) {
			continue
		}
		kept = append(kept, member)
	}
	union := strings.Join(kept, " | ")
	if len(kept) == 0 {
		union = "never"
	}
	rest := text[:bodyStart] + union + text[bodyStart+semi:]
	// Drop the imports no kept member names any more.
	declStart := strings.Index(rest, head)
	decl := rest[declStart:]
	imports := rest[:declStart]
	importLine := regexp.MustCompile(importLinePattern)
	imports = importLine.ReplaceAllStringFunc(imports, func(line string) string {
		name := importLine.FindStringSubmatch(line)[1]
		if regexp.MustCompile(`\b` + name + `\b`).MatchString(decl) {
			return line
		}
		return ""
	})
	return []byte(imports + decl), nil
}

// splitTopLevel splits s at sep outside braces.
func splitTopLevel(s, sep string) []string {
	var parts []string
	depth, last := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
		}
		if depth == 0 && strings.HasPrefix(s[i:], sep) {
			parts = append(parts, s[last:i])
			last = i + len(sep)
			i += len(sep) - 1
		}
	}
	return append(parts, s[last:])
}

const methodMemberPattern = `^\s*\{ "method": "([^"]+)"`
