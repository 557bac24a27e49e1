// Package tools defines what a tool is to the engine: a spec sent to the model and a handler
// that turns one call into a result. Handlers live in sub-packages, one per tool; the engine
// (package agent) owns the registry wiring, approvals and event ordering.
package tools

import "github.com/gocodex/gocodex/tool"

// The handler contract lives in the public package tool; these aliases keep the names the
// built-in tools use.
type (
	Spec            = tool.Spec
	CallKind        = tool.CallKind
	Call            = tool.Call
	Env             = tool.Env
	ApprovalRequest = tool.ApprovalRequest
	Result          = tool.Result
	Handler         = tool.Handler
	Options         = tool.Options
)

// How the model called a tool.
const (
	FunctionCall   = tool.FunctionCall
	CustomCall     = tool.CustomCall
	LocalShellCall = tool.LocalShellCall
)
