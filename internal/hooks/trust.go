package hooks

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
)

// Hash is the handler's trust hash, as Codex computes it (hooks/list currentHash): the
// SHA-256 of the canonical JSON (sorted keys, no spaces, no nulls) of its event, matcher
// and command.
func (h *Handler) Hash() string {
	timeout := int64(DefaultTimeout.Seconds())
	if h.timeout != nil {
		timeout = *h.timeout
	}
	cmd := map[string]any{"type": "command", "command": h.Command, "timeout": timeout, "async": false}
	if h.StatusMessage != nil {
		cmd["statusMessage"] = *h.StatusMessage
	}
	v := map[string]any{"event_name": h.Event.snake(), "hooks": []any{cmd}}
	if h.Matcher != nil {
		v["matcher"] = *h.Matcher
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v) // maps of strings, numbers and bools always encode
	sum := sha256.Sum256(bytes.TrimSuffix(b.Bytes(), []byte("\n")))
	return "sha256:" + hex.EncodeToString(sum[:])
}
