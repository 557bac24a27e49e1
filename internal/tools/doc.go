// Package tools defines what a tool is to the engine: a spec sent to the model and a handler
// that turns one call into a result. Handlers live in sub-packages, one per tool; the engine
// (package agent) owns the registry wiring, approvals and event ordering. The contract itself
// (Spec, Call, Env, Result, Handler...) is the public package tool.
package tools
