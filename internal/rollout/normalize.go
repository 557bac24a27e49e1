package rollout

import "github.com/gocodex/gocodex/protocol"

// abortedOutput answers a tool call whose result never made it to the rollout (the process
// died while the tool ran), in the engine's words for an interrupted call.
const abortedOutput = "aborted"

// normalize makes a rebuilt history acceptable to the model: the Responses API refuses a
// call without its output and an output without its call. A thread killed mid-tool leaves
// the first; a rollback or a hand-edited file can leave the second. Calls without an output
// get an "aborted" one right after them; orphan outputs are dropped.
func normalize(items []protocol.ResponseItem) []protocol.ResponseItem {
	calls := map[string]bool{}   // call ids of calls
	outputs := map[string]bool{} // call ids of outputs
	for _, it := range items {
		if id, _, ok := callOf(it); ok {
			calls[id] = true
		} else if id, ok := outputOf(it); ok {
			outputs[id] = true
		}
	}
	clean := true
	for id := range calls {
		if !outputs[id] {
			clean = false
		}
	}
	for id := range outputs {
		if !calls[id] {
			clean = false
		}
	}
	if clean {
		return items
	}
	out := make([]protocol.ResponseItem, 0, len(items)+1)
	for _, it := range items {
		if id, ok := outputOf(it); ok && !calls[id] {
			continue
		}
		out = append(out, it)
		if id, custom, ok := callOf(it); ok && !outputs[id] {
			f := false
			payload := protocol.FunctionCallOutputPayload{Content: abortedOutput, Success: &f}
			if custom {
				out = append(out, protocol.CustomToolCallOutputItem{CallID: id, Output: payload})
			} else {
				out = append(out, protocol.FunctionCallOutputItem{CallID: id, Output: payload})
			}
			outputs[id] = true
		}
	}
	return out
}

// callOf returns the call id of a tool call item, and whether it is a custom tool's.
func callOf(it protocol.ResponseItem) (string, bool, bool) {
	switch v := it.(type) {
	case protocol.FunctionCallItem:
		return v.CallID, false, v.CallID != ""
	case protocol.CustomToolCallItem:
		return v.CallID, true, v.CallID != ""
	case protocol.LocalShellCallItem:
		if v.CallID != nil && *v.CallID != "" {
			return *v.CallID, false, true
		}
	}
	return "", false, false
}

func outputOf(it protocol.ResponseItem) (string, bool) {
	switch v := it.(type) {
	case protocol.FunctionCallOutputItem:
		return v.CallID, true
	case protocol.CustomToolCallOutputItem:
		return v.CallID, true
	}
	return "", false
}
