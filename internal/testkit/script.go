package testkit

import (
	"encoding/json"
	"fmt"
	"os"
)

// Script is the file format of cmd/mockmodel: the queue of responses, then optionally a loop
// replayed forever and a default for everything after.
//
//	{"responses": [ {"events": [{"type": "response.created", "data": {...}}, ...]},
//	                {"status": 500, "body": "..."} ],
//	 "loop": [ ... ], "default": {"status": 500}}
type Script struct {
	Responses []Response `json:"responses"`
	Loop      []Response `json:"loop,omitempty"`
	Default   *Response  `json:"default,omitempty"`
}

// LoadScript reads a Script from a JSON file.
func LoadScript(path string) (*Script, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var sc Script
	if err := json.Unmarshal(data, &sc); err != nil {
		return nil, fmt.Errorf("parse script %s: %w", path, err)
	}
	return &sc, nil
}

// Apply queues the script on s.
func (sc *Script) Apply(s *Server) {
	s.Enqueue(sc.Responses...)
	if len(sc.Loop) > 0 {
		s.Loop(sc.Loop...)
	}
	if sc.Default != nil {
		s.SetDefault(*sc.Default)
	}
}
