package mcp

import (
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServerStatus is what a face shows about one server of a running manager (the
// app-server's mcpServerStatus/list): where its startup is, why it failed, and what the
// server said about itself when it initialized.
type ServerStatus struct {
	Name  string
	State State
	// Err is the startup (or connection) error of a failed server.
	Err error
	// HTTP is set for a streamable-HTTP server; URL is its configured endpoint.
	HTTP bool
	URL  string
	// BearerToken is set when the configuration names a bearer token variable.
	BearerToken bool
	// Init is the server's initialize result; nil until it is ready.
	Init *sdk.InitializeResult
	// Tools are the offered tools (after enabled_tools/disabled_tools), sorted by name.
	Tools []*sdk.Tool
}

// Status reports a server without waiting for it; ok is false for a server that is not
// configured or not enabled.
func (m *Manager) Status(name string) (ServerStatus, bool) {
	s, ok := m.servers[name]
	if !ok {
		return ServerStatus{}, false
	}
	st := ServerStatus{Name: name, URL: s.cfg.URL, HTTP: s.cfg.URL != "", BearerToken: s.cfg.BearerTokenEnvVar != ""}
	s.mu.Lock()
	st.State, st.Err = s.state, s.err
	if s.state == StateReady && s.sess != nil {
		st.Init = s.sess.InitializeResult()
		st.Tools = append([]*sdk.Tool(nil), s.tools...)
	}
	s.mu.Unlock()
	return st, true
}
