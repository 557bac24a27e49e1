package testkit_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/internal/testkit"
)

// TestAnthropicServer plays a scripted Messages stream and an error body, records the
// requests, and answers other paths with 404 without recording them as messages requests.
func TestAnthropicServer(t *testing.T) {
	s := testkit.NewAnthropicServer(t)
	s.Enqueue(testkit.AnthropicAnswer("msg_1", "hi"), testkit.AnthropicStatus(529))
	post := func(path string) *http.Response {
		t.Helper()
		resp, err := http.Post(s.BaseURL()+path, "application/json", strings.NewReader(`{"model":"m"}`))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { resp.Body.Close() })
		return resp
	}
	resp := post("/messages")
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	for _, want := range []string{"event: message_start\ndata: ", `"type":"text_delta","text":"hi"`, "event: message_stop\n"} {
		if !bytes.Contains(body, []byte(want)) {
			t.Errorf("stream lacks %q:\n%s", want, body)
		}
	}
	resp = post("/messages")
	body, _ = io.ReadAll(resp.Body)
	var env struct {
		Error struct{ Type string } `json:"error"`
	}
	if resp.StatusCode != 529 || json.Unmarshal(body, &env) != nil || env.Error.Type != "overloaded_error" {
		t.Errorf("second answer: %d %s", resp.StatusCode, body)
	}
	if resp := post("/responses"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("POST /responses: %d, want 404", resp.StatusCode)
	}
	reqs := s.Requests()
	if len(reqs) != 2 || reqs[0].JSON["model"] != "m" || len(s.AllRequests()) != 3 {
		t.Errorf("recorded %d messages requests of %d", len(reqs), len(s.AllRequests()))
	}
}
