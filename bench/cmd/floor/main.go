// Command floor is the floor of a one-message turn: a static Go program that makes the same
// loopback POST to the scripted model as `exec` does, reads the SSE reply to
// response.completed and prints the text. Nothing a coding agent does can take less.
//
//	floor http://127.0.0.1:PORT/v1 [BODY.json]
//
// BODY.json is the request body to send (the bench passes the one gocodex sent); without it,
// a minimal Responses request.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"strings"
)

func main() {
	if len(os.Args) != 2 && len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: floor BASE_URL [BODY.json]")
		os.Exit(2)
	}
	var body []byte
	if len(os.Args) == 3 {
		b, err := os.ReadFile(os.Args[2])
		if err != nil {
			fmt.Fprintln(os.Stderr, "floor:", err)
			os.Exit(1)
		}
		body = b
	}
	if err := turn(os.Args[1], body); err != nil {
		fmt.Fprintln(os.Stderr, "floor:", err)
		os.Exit(1)
	}
}

func turn(base string, body []byte) error {
	if body == nil {
		body = minimalRequest()
	}
	req, err := http.NewRequest(http.MethodPost, strings.TrimRight(base, "/")+"/responses", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Authorization", "Bearer "+os.Getenv("MOCK_API_KEY"))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("status %s", resp.Status)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	var text strings.Builder
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		var ev struct {
			Type  string `json:"type"`
			Delta string `json:"delta"`
		}
		if json.Unmarshal([]byte(data), &ev) != nil {
			continue
		}
		switch ev.Type {
		case "response.output_text.delta":
			text.WriteString(ev.Delta)
		case "response.completed":
			fmt.Println(text.String())
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		return err
	}
	return fmt.Errorf("stream ended before response.completed")
}

func minimalRequest() []byte {
	body, _ := json.Marshal(map[string]any{
		"model":        "gpt-5.5",
		"instructions": "You are a coding agent.",
		"input": []any{map[string]any{"type": "message", "role": "user",
			"content": []any{map[string]any{"type": "input_text", "text": "hi"}}}},
		"stream": true, "store": false,
	})
	return body
}
