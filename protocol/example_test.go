package protocol_test

import (
	"encoding/json"
	"fmt"

	"github.com/gocodex/gocodex/protocol"
)

// A client writes a submission: an id and an op, in the JSON Codex reads.
func ExampleSubmission() {
	sub := protocol.Submission{ID: "1", Op: protocol.UserInputOp{Items: []protocol.InputItem{protocol.TextInput("hi")}}}
	b, err := json.Marshal(sub)
	if err != nil {
		panic(err)
	}
	fmt.Println(string(b))
	// Output:
	// {"id":"1","op":{"type":"user_input","items":[{"type":"text","text":"hi","text_elements":[]}]}}
}

// A client reads the events of a thread and switches on their type.
func ExampleDecodeEventMsg() {
	msg, err := protocol.DecodeEventMsg([]byte(`{"type":"agent_message","message":"hello"}`))
	if err != nil {
		panic(err)
	}
	switch m := msg.(type) {
	case protocol.AgentMessageEvent:
		fmt.Println(m.EventType()+":", m.Message)
	}
	// Output:
	// agent_message: hello
}

// Policies are parsed from the names people type.
func ExampleParseSandboxMode() {
	mode, err := protocol.ParseSandboxMode("workspace-write")
	fmt.Println(mode, err)
	_, err = protocol.ParseSandboxMode("everything")
	fmt.Println(err != nil)
	// Output:
	// workspace-write <nil>
	// true
}
