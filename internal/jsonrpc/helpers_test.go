package jsonrpc

import (
	"bytes"
	"encoding/json"
	"runtime"
)

// waitABit yields so other goroutines progress while a test polls a condition.
func waitABit() { runtime.Gosched() }

func jsonCompact(dst *bytes.Buffer, src []byte) error { return json.Compact(dst, src) }
