package appserver

import (
	"fmt"
	"strings"

	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// threadIDError says why s is not a UUID in the words of the Rust uuid crate Codex 0.169 parses
// thread ids with (its answers to thread/read with malformed ids, observed), or "" when s
// parses. The checks come in Codex's order: a character that cannot be in a UUID, then the
// length of an unhyphenated id, then the number of groups, then each group's length.
func threadIDError(s string) string {
	body := s
	switch {
	case strings.HasPrefix(body, "urn:uuid:"):
		body = body[len("urn:uuid:"):]
	case strings.HasPrefix(body, "{") && strings.HasSuffix(body, "}") && len(body) >= 2:
		body = body[1 : len(body)-1]
	}
	for i, r := range []rune(body) {
		if r != '-' && !isHex(r) {
			return fmt.Sprintf("invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `%c` at %d", r, i+1)
		}
	}
	if !strings.Contains(body, "-") {
		if len(body) != 32 {
			return fmt.Sprintf("invalid length: expected length 32 for simple format, found %d", len(body))
		}
		return ""
	}
	groups := strings.Split(body, "-")
	if len(groups) != 5 {
		return fmt.Sprintf("invalid group count: expected 5, found %d", len(groups))
	}
	for i, want := range []int{8, 4, 4, 4, 12} {
		if len(groups[i]) != want {
			return fmt.Sprintf("invalid group length in group %d: expected %d, found %d", i, want, len(groups[i]))
		}
	}
	return ""
}

func isHex(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F'
}

// notLoadedIfNoRollout turns findRollout's "no rollout found" into Codex 0.169's answer of
// the methods that read a thread (thread/read, thread/turns/list): "thread not loaded".
func notLoadedIfNoRollout(err error) error {
	if e, ok := err.(*jsonrpc.Error); ok && strings.HasPrefix(e.Message, noRolloutPrefix) {
		return InvalidRequest("thread not loaded: " + strings.TrimPrefix(e.Message, noRolloutPrefix))
	}
	return err
}
