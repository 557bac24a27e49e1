package jsonrpc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// ID is a request id: an integer or a string. The zero value is the integer 0; use IsValid on
// decoded values, which are valid only when the id member was present and well-typed.
type ID struct {
	num   int64
	str   string
	isStr bool
	valid bool
}

// Int64ID is the integer id n.
func Int64ID(n int64) ID { return ID{num: n, valid: true} }

// StringID is the string id s.
func StringID(s string) ID { return ID{str: s, isStr: true, valid: true} }

// IsValid reports whether the id was set.
func (id ID) IsValid() bool { return id.valid }

// Raw returns the id as Go value: int64 or string (nil when invalid).
func (id ID) Raw() any {
	switch {
	case !id.valid:
		return nil
	case id.isStr:
		return id.str
	}
	return id.num
}

func (id ID) String() string {
	switch {
	case !id.valid:
		return "<none>"
	case id.isStr:
		return strconv.Quote(id.str)
	}
	return strconv.FormatInt(id.num, 10)
}

// MarshalJSON writes the number or the string; an invalid id is written as null.
func (id ID) MarshalJSON() ([]byte, error) {
	switch {
	case !id.valid:
		return []byte("null"), nil
	case id.isStr:
		return json.Marshal(id.str)
	}
	return strconv.AppendInt(nil, id.num, 10), nil
}

// UnmarshalJSON accepts an integer (int64) or a string, as Codex's RequestId does.
func (id *ID) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*id = StringID(s)
		return nil
	}
	n, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return fmt.Errorf("id must be an integer or a string, got %s", truncateForError(b))
	}
	*id = Int64ID(n)
	return nil
}

// Message is one of *Request, *Notification or *Response.
type Message interface{ isMessage() }

// Request is a call that expects a response.
type Request struct {
	ID     ID
	Method string
	// Params is the raw params member; nil when absent.
	Params json.RawMessage
}

// Notification is a call without an id: nobody answers it.
type Notification struct {
	Method string
	Params json.RawMessage
	// EmittedAtMs is Codex's envelope extension: when the server emitted the notification,
	// in Unix milliseconds, written after params. Zero omits it.
	EmittedAtMs int64
}

// Response answers a request: exactly one of Result and Error is set.
type Response struct {
	ID     ID
	Result json.RawMessage
	Error  *Error
}

func (*Request) isMessage()      {}
func (*Notification) isMessage() {}
func (*Response) isMessage()     {}

// wireMessage is the union of every member a message may carry. Codex omits "jsonrpc"; we
// accept it on input and never write it.
type wireMessage struct {
	JSONRPC string          `json:"jsonrpc,omitempty"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  *string         `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
	// EmittedAtMs rides on Codex's notifications.
	EmittedAtMs int64 `json:"emittedAtMs,omitempty"`
}

// DecodeError is why a frame is not a message. ID is the request's id when it could be
// recovered, so the error response can name it.
type DecodeError struct {
	Code    int64
	Message string
	ID      ID
}

func (e *DecodeError) Error() string { return e.Message }

// Decode parses one frame. Errors are *DecodeError: CodeParseError for bytes that are not a
// JSON object, CodeInvalidRequest for an object that is no JSON-RPC message.
func Decode(data []byte) (Message, error) {
	var w wireMessage
	if err := json.Unmarshal(data, &w); err != nil {
		if _, ok := err.(*json.SyntaxError); ok || !startsWithObject(data) {
			return nil, &DecodeError{Code: CodeParseError, Message: "Parse error: " + err.Error(), ID: RecoverID(data)}
		}
		return nil, &DecodeError{Code: CodeInvalidRequest, Message: "Invalid request: " + err.Error(), ID: RecoverID(data)}
	}
	var id ID
	hasID := len(w.ID) > 0 && string(w.ID) != "null"
	if hasID {
		if err := id.UnmarshalJSON(w.ID); err != nil {
			return nil, &DecodeError{Code: CodeInvalidRequest, Message: "Invalid request: " + err.Error()}
		}
	}
	switch {
	case w.Method != nil && hasID:
		if *w.Method == "" {
			return nil, &DecodeError{Code: CodeInvalidRequest, Message: "Invalid request: empty method", ID: id}
		}
		return &Request{ID: id, Method: *w.Method, Params: nullToNil(w.Params)}, nil
	case w.Method != nil:
		if len(w.ID) > 0 { // "id": null
			return nil, &DecodeError{Code: CodeInvalidRequest, Message: "Invalid request: id must be an integer or a string, got null"}
		}
		return &Notification{Method: *w.Method, Params: nullToNil(w.Params), EmittedAtMs: w.EmittedAtMs}, nil
	case w.Error != nil && (hasID || len(w.ID) > 0):
		// "id": null is how JSON-RPC answers a message whose id could not be read.
		return &Response{ID: id, Error: w.Error}, nil
	case hasID && w.Result != nil:
		return &Response{ID: id, Result: w.Result}, nil
	case hasID:
		return nil, &DecodeError{Code: CodeInvalidRequest, Message: "Invalid request: a message with an id needs a method, a result or an error", ID: id}
	}
	return nil, &DecodeError{Code: CodeInvalidRequest, Message: "Invalid request: not a request, notification or response"}
}

func nullToNil(p json.RawMessage) json.RawMessage {
	if len(p) == 0 || string(p) == "null" {
		return nil
	}
	return p
}

func startsWithObject(b []byte) bool {
	b = bytes.TrimLeft(b, " \t\r\n")
	return len(b) > 0 && b[0] == '{'
}

// Encode writes a message the way Codex 0.169's app-server does: no "jsonrpc" member; a
// request as {"method","id","params"}, a notification as {"method","params","emittedAtMs"},
// a result as {"id","result"} and an error as {"error","id"}.
func Encode(m Message) ([]byte, error) {
	var buf bytes.Buffer
	switch m := m.(type) {
	case *Request:
		buf.WriteString(`{"method":`)
		writeString(&buf, m.Method)
		buf.WriteString(`,"id":`)
		writeID(&buf, m.ID)
		if m.Params != nil {
			buf.WriteString(`,"params":`)
			buf.Write(m.Params)
		}
	case *Notification:
		buf.WriteString(`{"method":`)
		writeString(&buf, m.Method)
		if m.Params != nil {
			buf.WriteString(`,"params":`)
			buf.Write(m.Params)
		}
		if m.EmittedAtMs != 0 {
			buf.WriteString(`,"emittedAtMs":`)
			buf.WriteString(strconv.FormatInt(m.EmittedAtMs, 10))
		}
	case *Response:
		if m.Error != nil {
			b, err := json.Marshal(m.Error)
			if err != nil {
				return nil, err
			}
			buf.WriteString(`{"error":`)
			buf.Write(b)
			buf.WriteString(`,"id":`)
			writeID(&buf, m.ID)
		} else {
			buf.WriteString(`{"id":`)
			writeID(&buf, m.ID)
			buf.WriteString(`,"result":`)
			if m.Result == nil {
				buf.WriteString("null")
			} else {
				buf.Write(m.Result)
			}
		}
	default:
		return nil, fmt.Errorf("jsonrpc: cannot encode %T", m)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

func writeID(buf *bytes.Buffer, id ID) {
	b, _ := id.MarshalJSON()
	buf.Write(b)
}

// encodeNotificationWith encodes a notification as Encode does, its params appended by p.
func encodeNotificationWith(method string, p ParamsAppender, emittedAt int64) ([]byte, error) {
	var head bytes.Buffer
	head.WriteString(`{"method":`)
	writeString(&head, method)
	head.WriteString(`,"params":`)
	b, err := p.AppendParams(head.Bytes())
	if err != nil {
		return nil, err
	}
	if emittedAt != 0 {
		b = append(b, `,"emittedAtMs":`...)
		b = strconv.AppendInt(b, emittedAt, 10)
	}
	return append(b, '}'), nil
}

func writeString(buf *bytes.Buffer, s string) {
	b, _ := json.Marshal(s)
	buf.Write(b)
}

func truncateForError(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "…"
	}
	return string(b)
}
