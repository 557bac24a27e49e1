// Package appserver is the `gocodex app-server` face: Codex's JSON-RPC app-server protocol (v2
// methods, the remaining v1 conversation methods) over stdio or websocket, driving engine
// threads started through internal/app.
//
// # Layout
//
// Core (transport, dispatch, handshake) lives in server.go, conn.go, handshake.go, errors.go,
// client.go (the in-process/Go client), transport_stdio.go and transport_ws.go; its tests in
// handshake_test.go and backpressure_test.go, the package's only TestMain (goleak) in
// main_test.go. Tests wrap every client with schematest (appserver.ClientOptions{Tap:
// schematest.Wrap(t)}) so each message the server sends is checked against Codex's schema.
// Methods live in their own files (one family per
// file, e.g. thread_*.go, turn_*.go, config_*.go, fs_*.go, v1_*.go) and register themselves
// from a function the constructor calls; core files never name a method other than
// `initialize`/`initialized`.
//
// # Contract for method files
//
//   - Register with Server.Handle(method, Handler) before Serve; Typed / TypedOptional wrap
//     a func(ctx, *Conn, P) (R, error) so params are decoded into P (absent or null params
//     are -32600 "Invalid request: missing field `params`" for Typed, as Codex answers, and
//     the zero P for TypedOptional, which only the methods whose params Codex makes optional use). A handler runs on its own goroutine owned by the
//     connection; ctx ends when the client cancels ($/cancelRequest) or the connection ends.
//     The returned value is the result (marshalled with jsonrpc.Marshal: no HTML escaping);
//     a returned *jsonrpc.Error goes out as is (see errors.go helpers), any other error as
//     -32603 with its text.
//   - Requests are dispatched only after `initialize` succeeded ("Not initialized", -32600,
//     before; "Already initialized", -32600, for a second one). As in Codex 0.169, unknown
//     methods, missing params, params of the wrong type and params without a field the
//     method requires (paramsRequired, from the schema) are -32600 worded as serde words
//     them ("Invalid request: unknown variant `x`, expected one of …", "missing field `y`"),
//     before initialize too: Codex decodes a request before it looks at the handshake. A
//     line that is no JSON-RPC message is logged and not answered.
//   - Conn is the per-connection state: ClientInfo, Capabilities (experimentalApi,
//     optOutNotificationMethods), Value/SetValue for a method family's own state, OnClose
//     hooks, Go for connection-lifetime goroutines (event pumps), Context for their ctx.
//   - Conn.Notify(ctx, method, params) sends a notification unless the client opted out of
//     that method at initialize. Conn.Request(ctx, method, params) sends a server→client
//     request (ids are integers counting from 0 per connection) and returns the raw result;
//     a JSON-RPC error answer comes back as *jsonrpc.Error; ctx ending returns ctx.Err().
//   - jsonrpc.AfterReply(ctx, f) runs f right after the request's answer is queued, in the
//     goroutine that answered: use it for notifications that must follow the answer
//     (thread/started after thread/start), so they also come before anything the client's
//     next request causes. The request's ctx is cancelled right after that.
//   - Conn.StartRequest sends a server request and returns at once with its id
//     (PendingRequest.ID, for serverRequest/resolved's requestId) and Wait for the answer;
//     concurrent approvals never wait for each other.
//   - Engine access: Server.App(ctx) returns the process's *app.App, the one host gocodex's
//     factory builds (Options.NewApp), asked for lazily since an app-server may start before
//     any API key is set; Server.Options().LoadConfig loads a thread's own configuration
//     (thread/start overrides), which runs on that host. The face holds the started
//     thread as an app.Thread: Submit ops, read NextEvent.
//
// # Backpressure
//
// Every connection has a bounded outgoing queue (Options.OutgoingQueue frames, and at most
// jsonrpc.DefaultOutgoingBytes of them). When a client stops reading, Notify blocks. A
// thread's event pump does not call Notify itself: each subscribed connection has its own
// bounded queue of the thread's notifications (Options.SubscriberQueue) drained by its own
// goroutine, so a stalled client stalls only itself. Its queue merges deltas once half full
// (into deltas of at most 64 KiB, so a stalled client's backlog waits as its text, never as
// one huge frame); when it is full a websocket client is hung up on (as Codex does) and a
// stdio or in-process one makes the pump wait, which then stops calling NextEvent while the
// engine's own queue coalesces deltas and keeps begin/end events (subscriber.go has the
// details). Request handlers replying block the same way, and the read loop stops reading
// the client while it cannot write its answers. Incoming requests not yet answered are
// capped (Options.MaxInFlight): the one over the cap is answered -32001 "Server overloaded;
// retry later." at once. A long answer in item/completed and turn/completed is encoded once,
// straight into its frame (wire.V2Notification.WireParams), and the `gocodex app-server`
// process keeps a soft memory limit that follows its live heap (internal/memlimit): a 5 MB
// answer streamed to a stalled client peaks near 55 MiB of RSS
// (e2e BenchmarkAppServerSlowReader; Codex 0.169: about 270).
package appserver
