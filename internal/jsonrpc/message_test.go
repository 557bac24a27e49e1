package jsonrpc

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var cmpID = cmp.Comparer(func(a, b ID) bool { return a == b })

func TestDecode(t *testing.T) {
	tests := []struct {
		name     string
		in       string
		want     Message
		wantCode int64 // error code when decoding fails
		wantID   ID    // id recovered from a failure
	}{
		{name: "request", in: `{"id":1,"method":"thread/start","params":{"a":1}}`,
			want: &Request{ID: Int64ID(1), Method: "thread/start", Params: json.RawMessage(`{"a":1}`)}},
		{name: "string id", in: `{"id":"x-1","method":"m"}`, want: &Request{ID: StringID("x-1"), Method: "m"}},
		{name: "jsonrpc member accepted", in: `{"jsonrpc":"2.0","id":0,"method":"m","params":null}`,
			want: &Request{ID: Int64ID(0), Method: "m"}},
		{name: "notification", in: `{"method":"initialized"}`, want: &Notification{Method: "initialized"}},
		{name: "stamped notification", in: `{"method":"thread/started","params":{},"emittedAtMs":1795337480977}`,
			want: &Notification{Method: "thread/started", Params: json.RawMessage(`{}`), EmittedAtMs: 1795337480977}},
		{name: "result", in: `{"id":3,"result":{"decision":"accept"}}`,
			want: &Response{ID: Int64ID(3), Result: json.RawMessage(`{"decision":"accept"}`)}},
		{name: "null result", in: `{"id":3,"result":null}`, want: &Response{ID: Int64ID(3), Result: json.RawMessage(`null`)}},
		{name: "error", in: `{"error":{"code":-32600,"message":"no"},"id":"a"}`,
			want: &Response{ID: StringID("a"), Error: &Error{Code: -32600, Message: "no"}}},
		{name: "error with null id", in: `{"error":{"code":-32700,"message":"bad"},"id":null}`,
			want: &Response{Error: &Error{Code: -32700, Message: "bad"}}},
		{name: "negative id", in: `{"id":-5,"method":"m"}`, want: &Request{ID: Int64ID(-5), Method: "m"}},

		{name: "not json", in: `garbage{`, wantCode: CodeParseError},
		{name: "truncated keeps id", in: `{"id":4,"method":"x","params":`, wantCode: CodeParseError, wantID: Int64ID(4)},
		{name: "array", in: `[{"id":1,"method":"m"}]`, wantCode: CodeParseError},
		{name: "fractional id", in: `{"id":1.5,"method":"m"}`, wantCode: CodeInvalidRequest},
		{name: "null id request", in: `{"id":null,"method":"m"}`, wantCode: CodeInvalidRequest},
		{name: "id only", in: `{"id":6}`, wantCode: CodeInvalidRequest, wantID: Int64ID(6)},
		{name: "empty object", in: `{}`, wantCode: CodeInvalidRequest},
		{name: "method not a string", in: `{"id":2,"method":5}`, wantCode: CodeInvalidRequest, wantID: Int64ID(2)},
		{name: "empty method", in: `{"id":2,"method":""}`, wantCode: CodeInvalidRequest, wantID: Int64ID(2)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode([]byte(tt.in))
			if tt.wantCode != 0 {
				de, ok := err.(*DecodeError)
				if !ok {
					t.Fatalf("Decode(%s) = %#v, %v; want a DecodeError", tt.in, got, err)
				}
				if de.Code != tt.wantCode || de.ID != tt.wantID {
					t.Fatalf("Decode(%s) error code %d id %s, want %d id %s (%s)", tt.in, de.Code, de.ID, tt.wantCode, tt.wantID, de.Message)
				}
				return
			}
			if err != nil {
				t.Fatalf("Decode(%s): %v", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got, cmpID); diff != "" {
				t.Errorf("Decode(%s) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestEncode(t *testing.T) {
	tests := []struct {
		in   Message
		want string
	}{
		{&Request{ID: Int64ID(0), Method: "item/commandExecution/requestApproval", Params: json.RawMessage(`{"a":1}`)},
			`{"method":"item/commandExecution/requestApproval","id":0,"params":{"a":1}}`},
		{&Notification{Method: "turn/started", Params: json.RawMessage(`{}`)}, `{"method":"turn/started","params":{}}`},
		{&Notification{Method: "x"}, `{"method":"x"}`},
		{&Notification{Method: "thread/started", Params: json.RawMessage(`{"a":1}`), EmittedAtMs: 1795337480977},
			`{"method":"thread/started","params":{"a":1},"emittedAtMs":1795337480977}`},
		{&Response{ID: StringID("s"), Result: json.RawMessage(`{"ok":true}`)}, `{"id":"s","result":{"ok":true}}`},
		{&Response{ID: Int64ID(2), Error: &Error{Code: -32600, Message: "Already initialized"}},
			`{"error":{"code":-32600,"message":"Already initialized"},"id":2}`},
		{&Response{Error: &Error{Code: -32700, Message: "Parse error"}}, `{"error":{"code":-32700,"message":"Parse error"},"id":null}`},
	}
	for _, tt := range tests {
		got, err := Encode(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tt.want {
			t.Errorf("Encode = %s, want %s", got, tt.want)
		}
	}
}

func TestMarshalDoesNotEscapeHTML(t *testing.T) {
	got, err := Marshal(map[string]string{"cmd": "a && b <c>"})
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"cmd":"a && b <c>"}`; string(got) != want {
		t.Errorf("Marshal = %s, want %s", got, want)
	}
}

func TestRecoverID(t *testing.T) {
	tests := []struct {
		in   string
		want ID
	}{
		{`{"method":"x","id":"abc","params":{"big":[1,2,`, StringID("abc")},
		{`{"params":{"id":9},"id":3`, Int64ID(3)},
		{`{"method":"x","params":{"text":"aaaa`, ID{}},
		{`not json`, ID{}},
		{`{"id":true}`, ID{}},
	}
	for _, tt := range tests {
		if got := RecoverID([]byte(tt.in)); got != tt.want {
			t.Errorf("RecoverID(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
