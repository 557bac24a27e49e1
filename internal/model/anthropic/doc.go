// Package anthropic is the Anthropic Messages API wire (`wire_api = "anthropic"`): a client
// that streams `POST {base_url}/messages` and yields the same modelstream events as the
// Responses client, so the engine runs unchanged on Claude models.
//
//	c, err := anthropic.New(model.ClientOptions{Provider: p, APIKey: key})
//	streamer := c.Streamer()
//
// The key goes only into the `x-api-key` header (never Authorization, never a log line or an
// error text); the `anthropic-version` header (APIVersion) is sent on every request.
//
// Request mapping:
//   - `system` holds Prompt.Instructions and the developer (or system) messages the input
//     starts with (the engine sends the base instructions as a first developer message, as
//     Codex 0.169 does, then the thread's permissions), one text block each. Prompt-cache
//     breakpoints (`cache_control: {"type":"ephemeral"}`) go on the last system block, the
//     last tool and the last block of the last user message: the stable prefix is cached and
//     each turn reads the previous turn's cache.
//   - The rest of the history becomes alternating user/assistant messages, consecutive items
//     of one role merged. A developer message later in the history (settings changed
//     mid-thread) is sent as user text in its place. Function and custom tool
//     calls become `tool_use` blocks (input: the parsed arguments object; arguments that are
//     not a JSON object are wrapped as {"arguments": "<text>"}); their outputs become
//     `tool_result` blocks, first in the next user message. A call left without an output
//     (an interrupted turn) is answered with an "aborted" error result so the request stays
//     valid. Images are `image` blocks (base64 data URLs as base64 sources, http(s) URLs as
//     url sources; any other URL is an error).
//   - Tools: functions as {name, description, input_schema}; freeform tools (apply_patch) as a
//     tool with one string property `input` (the grammar is appended to the description),
//     read back as CustomToolCall items; namespaces (MCP servers) flattened to
//     "<namespace>__<tool>" and split back on the way in. Built-in tools the Messages API has
//     no counterpart for (local_shell, web_search, ...) are left out and logged once at warn
//     level. Without parallel tool calls, tool_choice sets disable_parallel_tool_use.
//   - max_tokens is the model's output limit from a table (32000 for claude-opus-4 and 4.1,
//     64000 for claude-sonnet-4*, claude-opus-4-5, claude-haiku-4*, claude-3-7-sonnet, 8192
//     for unknown models); WithMaxTokens overrides it.
//   - Reasoning effort turns on extended thinking for the models that support it:
//     minimal 1024, low 4096, medium 10000, high 24000, xhigh 32000 budget tokens, capped at
//     three quarters of max_tokens; "none" or no effort leaves thinking off.
//
// Thinking blocks are kept in ReasoningItems: Content holds the thinking text (one
// reasoning_text part) and EncryptedContent holds "anthropic.thinking:<signature>"; a
// redacted_thinking block is a ReasoningItem with EncryptedContent
// "anthropic.redacted:<data>". On the way out they are rebuilt unchanged, in their place
// before the text and tool_use blocks of the same assistant turn, as the API requires.
// Reasoning items without these prefixes (from another provider) are not sent.
//
// Stream mapping: message_start -> Created; each content block -> OutputItemAdded, its
// deltas (OutputTextDelta, ReasoningContentDelta; tool input fragments are accumulated) and
// OutputItemDone at content_block_stop; message_stop -> Completed with input = input_tokens
// + cache_read_input_tokens + cache_creation_input_tokens, cached input = cache reads, cache
// writes in CacheWriteInputTokens, output = output_tokens. stop_reason max_tokens ends the
// turn like a Responses incomplete answer; an unknown stop reason is an error naming it.
// `ping` and unknown event types are skipped; a malformed event is a stream error (retried,
// then reported with the event type).
//
// Errors are *model.Error with the provider's name and status in the message: 5xx (529
// overloaded included), transport failures, cut or stalled streams and overloaded/api error
// events are retried like on the Responses wire; 429 is retried after its retry-after; every
// other 4xx (401 included) ends the turn at once.
package anthropic
