// Package jsonrpc is JSON-RPC 2.0 as Codex's app-server speaks it: messages without the
// "jsonrpc" member (accepted on input, never written), requests in both directions,
// notifications, responses matched by id (integer or string), cancellation.
//
// Three layers, each usable alone:
//
//   - Framing (Framer): cutting a transport into message frames. LineFramer is
//     newline-delimited (stdio) with a maximum frame size — a longer line is skipped while
//     being read, reported as *FrameTooLargeError, and the stream goes on; the websocket
//     framer (one message per text frame) lives with its transport in internal/appserver;
//     Pipe connects two in-memory ends.
//   - Codec (Decode, Encode, Marshal): bytes ↔ *Request / *Notification / *Response, in
//     Codex's member order, without HTML escaping. A frame that is no message is a
//     *DecodeError carrying -32700 or -32600 and, when it can be read, the id.
//   - Dispatch (Conn): one peer relationship. Incoming requests go to ConnOptions.Handle in
//     arrival order and are answered with Reply (now or from a goroutine started with Go);
//     `$/cancelRequest {id}` cancels a request's ctx; bad frames are answered with their
//     error (id null when unreadable) and the connection keeps serving. Outgoing Call/Start
//     use integer ids from 0; a ctx ending or the peer leaving fails them at once.
//
// Delivery: every outgoing message passes through one bounded queue per connection (at most
// OutgoingQueue frames and OutgoingBytes of them) drained by one writer goroutine, so
// messages leave in the order they were queued, a client that stops reading blocks senders
// (Notify, Call, Reply) instead of growing memory, and the read loop stops reading while it
// cannot queue an answer. Params that implement ParamsAppender are encoded straight into
// their frame. Incoming requests not yet answered are
// capped (MaxInFlight); the next is answered -32001 "Server overloaded; retry later.".
package jsonrpc
