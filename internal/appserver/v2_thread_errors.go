package appserver

import (
	"fmt"
	"strings"

	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// The words Codex 0.169's thread methods answer a thread they cannot find with differ by
// method (recorded in e2e/testdata/appserver_thread_methods.golden.json): thread/read and
// thread/turns/list say it is not loaded, the methods that open its rollout that none was
// found, thread/unarchive that no archived one was.

// errNoRollout is the answer of thread/archive, /delete, /fork, /resume and
// /metadata/update.
func errNoRollout(id string) error {
	return InvalidRequest(noRolloutPrefix + id)
}

// asNoRollout rewords a thread-not-found error as errNoRollout; others pass.
func asNoRollout(err error, _ string) error {
	if id, ok := missingThread(err); ok {
		return errNoRollout(id)
	}
	return err
}

// asNotLoaded rewords a thread-not-found error as thread/read's "thread not loaded".
func asNotLoaded(err error, _ string) error {
	if id, ok := missingThread(err); ok {
		return InvalidRequest("thread not loaded: " + id)
	}
	return err
}

// missingThread reads the id out of a thread-not-found error (either wording), in the
// canonical form findRollout put it in.
func missingThread(err error) (string, bool) {
	e, ok := err.(*jsonrpc.Error)
	if !ok {
		return "", false
	}
	for _, prefix := range []string{"thread not found: ", noRolloutPrefix} {
		if id, ok := strings.CutPrefix(e.Message, prefix); ok {
			return id, true
		}
	}
	return "", false
}

// uuidError words a malformed thread id as Codex's uuid parser does, for the mistakes
// clients make: a character that is not hex, hyphen groups of the wrong length or number,
// a hyphenless id of the wrong length.
func uuidError(s string) string {
	for i, r := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF-", r) {
			return fmt.Sprintf("invalid character: expected an optional prefix of `urn:uuid:` followed by [0-9a-fA-F-], found `%c` at %d", r, i+1)
		}
	}
	if !strings.Contains(s, "-") {
		return fmt.Sprintf("invalid length: expected length 32 for simple format, found %d", len(s))
	}
	groups := strings.Split(s, "-")
	if len(groups) != 5 {
		return fmt.Sprintf("invalid group count: expected 5, found %d", len(groups))
	}
	for i, want := range []int{8, 4, 4, 4, 12} {
		if len(groups[i]) != want {
			return fmt.Sprintf("invalid group length in group %d: expected %d, found %d", i, want, len(groups[i]))
		}
	}
	return "invalid UUID"
}

func isNoThread(err error, _ string) bool {
	_, ok := missingThread(err)
	return ok
}
