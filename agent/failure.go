package agent

import (
	"encoding/json"
	"errors"
	"net/http"

	"github.com/gocodex/gocodex/internal/model"
	"github.com/gocodex/gocodex/protocol"
)

// fail ends the turn because of an infrastructure error: an error event, then turn_complete
// carrying the same error, as Codex 0.169 reports a failed turn.
func (tr *turn) fail(err error) {
	te := &protocol.TurnError{Message: err.Error(), CodexErrorInfo: codexErrorInfo(err)}
	tr.emit(protocol.ErrorEvent{Message: te.Message, CodexErrorInfo: te.CodexErrorInfo})
	tr.completeWith(nil, true, te)
}

// codexErrorInfo classifies an error for clients (the app-server's codexErrorInfo), in the
// snake_case form of the SQ/EQ protocol.
func codexErrorInfo(err error) json.RawMessage {
	var me *model.Error
	if !errors.As(err, &me) {
		return json.RawMessage(`"other"`)
	}
	withStatus := func(name string) json.RawMessage {
		status := "null"
		if me.Status != 0 {
			b, _ := json.Marshal(me.Status)
			status = string(b)
		}
		return json.RawMessage(`{"` + name + `":{"http_status_code":` + status + `}}`)
	}
	switch me.Kind {
	case model.KindContextWindowExceeded:
		return json.RawMessage(`"context_window_exceeded"`)
	case model.KindUsageLimitReached, model.KindQuotaExceeded, model.KindUsageNotIncluded:
		return json.RawMessage(`"usage_limit_exceeded"`)
	case model.KindInternalServerError:
		return json.RawMessage(`"internal_server_error"`)
	case model.KindRetryLimit, model.KindRateLimited:
		return withStatus("response_too_many_failed_attempts")
	case model.KindStream:
		// A stream cut or stalled until the retries ran out is "other" in Codex 0.169; only
		// the retry notices say response_stream_disconnected (see retryObserver).
		return json.RawMessage(`"other"`)
	case model.KindTransport:
		return withStatus("http_connection_failed")
	case model.KindUnexpectedStatus:
		// A 401 that outlived the retries (no credentials, or ones the server refuses) is a
		// failed connection with its status in Codex 0.169 and 0.171
		// (TestAppServerThreadStartWithoutCredentials).
		if me.Status == http.StatusUnauthorized {
			return withStatus("http_connection_failed")
		}
	}
	// Codex 0.169 reports a rejected request (HTTP 400) and the rest as "other".
	return json.RawMessage(`"other"`)
}
