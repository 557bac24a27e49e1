package threads

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"strings"
	"unicode"
)

// Snippet window around a match, in characters of the message as written, as Codex 0.171's
// thread/search cuts it: 50 before the match, 96 after it; the window's whitespace is then
// collapsed.
const (
	snippetBefore = 50
	snippetAfter  = 96
)

// searchLineMax bounds one rollout line read while searching (a line holds one item).
const searchLineMax = 64 << 20

// SearchRollout looks for term, case-insensitively, in the visible messages of the stored
// thread at path: the user's and the assistant's messages, not developer instructions or
// tool output. It answers the snippet of the first message that contains it. ctx is checked
// between lines so a cancelled search stops reading.
func (s *Service) SearchRollout(ctx context.Context, path, term string) (snippet string, found bool, err error) {
	needle := []rune(strings.ToLower(term))
	if len(needle) == 0 {
		return "", false, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return "", false, err
	}
	defer f.Close()
	plain := isPlainASCII(needle)
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), searchLineMax)
	for sc.Scan() {
		if err := ctx.Err(); err != nil {
			return "", false, err
		}
		line := sc.Bytes()
		if plain && !strings.Contains(strings.ToLower(string(line)), string(needle)) {
			continue // cheap pre-check: a term JSON does not escape is in the line as typed
		}
		for _, text := range visibleMessageTexts(line) {
			if snip, ok := snippetOf(text, needle); ok {
				return snip, true, nil
			}
		}
	}
	return "", false, sc.Err()
}

// visibleMessageTexts is the text of a rollout line that is a user or assistant message.
func visibleMessageTexts(line []byte) []string {
	var l struct {
		Type    string `json:"type"`
		Payload struct {
			Type    string `json:"type"`
			Role    string `json:"role"`
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"payload"`
	}
	if json.Unmarshal(line, &l) != nil || l.Type != "response_item" || l.Payload.Type != "message" {
		return nil
	}
	if l.Payload.Role != "user" && l.Payload.Role != "assistant" {
		return nil
	}
	var out []string
	for _, c := range l.Payload.Content {
		if c.Type == "input_text" || c.Type == "output_text" {
			out = append(out, c.Text)
		}
	}
	return out
}

// snippetOf cuts the window around needle's first match in text (counted in the text as
// written), collapses its whitespace and marks a cut end with "...".
func snippetOf(text string, needle []rune) (string, bool) {
	runes := []rune(text)
	lower := []rune(strings.ToLower(text))
	if len(lower) != len(runes) {
		lower = runes // a rune whose lower case changes length: match as written
	}
	at := indexRunes(lower, needle)
	if at < 0 {
		return "", false
	}
	start, end := at-snippetBefore, at+len(needle)+snippetAfter
	prefix, suffix := "", ""
	if start > 0 {
		prefix = "... "
	} else {
		start = 0
	}
	if end < len(runes) {
		suffix = " ..."
	} else {
		end = len(runes)
	}
	return prefix + strings.Join(strings.FieldsFunc(string(runes[start:end]), unicode.IsSpace), " ") + suffix, true
}

func indexRunes(hay, needle []rune) int {
	for i := 0; i+len(needle) <= len(hay); i++ {
		j := 0
		for j < len(needle) && hay[i+j] == needle[j] {
			j++
		}
		if j == len(needle) {
			return i
		}
	}
	return -1
}

// isPlainASCII: letters, digits, spaces and punctuation JSON writers leave unescaped.
func isPlainASCII(needle []rune) bool {
	for _, r := range needle {
		if r > unicode.MaxASCII || r < ' ' || strings.ContainsRune("\"\\<>&'", r) {
			return false
		}
	}
	return true
}
