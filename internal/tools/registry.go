package tools

import (
	"encoding/json"
	"fmt"
	"github.com/gocodex/gocodex/tool"
)

// The shell tool types of the model catalog (`shell_type`).
const (
	ShellTypeDefault      = "default"
	ShellTypeLocal        = "local"
	ShellTypeUnifiedExec  = "unified_exec"
	ShellTypeShellCommand = "shell_command"
	ShellTypeDisabled     = "disabled"
)

// The apply_patch tool types of the model catalog (`apply_patch_tool_type`); "" offers no
// apply_patch tool.
const (
	ApplyPatchFreeform = "freeform"
	ApplyPatchFunction = "function"
)

// The names of the built-in tools, as the model calls them.
const (
	NameShell        = "shell"
	NameShellCommand = "shell_command"
	NameExecCommand  = "exec_command"
	NameWriteStdin   = "write_stdin"
	NameApplyPatch   = "apply_patch"
	NameUpdatePlan   = "update_plan"
	NameViewImage    = "view_image"
	// NameLocalShell is the handler name for `local_shell_call` items; the spec is
	// `{"type":"local_shell"}`.
	NameLocalShell = "local_shell"
)

// Plan returns the names of the built-in tools offered for opts, in the order they are sent.
func Plan(opts tool.Options) []string {
	var names []string
	switch opts.ShellType {
	case ShellTypeUnifiedExec:
		names = append(names, NameExecCommand, NameWriteStdin)
	case ShellTypeShellCommand:
		names = append(names, NameShellCommand)
	case ShellTypeLocal:
		names = append(names, NameLocalShell)
	case ShellTypeDisabled:
	default:
		names = append(names, NameShell)
	}
	if opts.PlanTool {
		names = append(names, NameUpdatePlan)
	}
	if opts.RequestUserInput {
		names = append(names, NameRequestUserInput)
	}
	if opts.ApplyPatchToolType == ApplyPatchFreeform || opts.ApplyPatchToolType == ApplyPatchFunction {
		names = append(names, NameApplyPatch)
	}
	if opts.ViewImage {
		names = append(names, NameViewImage)
	}
	return names
}

// BuiltinSpec returns the wire spec Codex sends for a built-in tool, or false for a name it
// does not know.
func BuiltinSpec(name string, opts tool.Options) (tool.Spec, bool) {
	switch name {
	case NameShell:
		return ShellSpec(), true
	case NameShellCommand:
		return ShellCommandSpec(!opts.NoLoginShell), true
	case NameExecCommand:
		return ExecCommandSpec(!opts.NoLoginShell), true
	case NameWriteStdin:
		return WriteStdinSpec(), true
	case NameLocalShell:
		return tool.Spec(`{"type":"local_shell"}`), true
	case NameApplyPatch:
		if opts.ApplyPatchToolType == ApplyPatchFunction {
			return ApplyPatchFunctionSpec(), true
		}
		return ApplyPatchFreeformSpec(), true
	case NameUpdatePlan:
		return UpdatePlanSpec(), true
	case NameViewImage:
		return ViewImageSpec(), true
	case NameRequestUserInput:
		return RequestUserInputSpec(), true
	}
	return nil, false
}

// Registry maps the tools offered to one turn to their handlers and keeps the specs in the
// order they are sent. Build one per turn (the model, and so the plan, may change between
// turns); it is read-only once built and safe for concurrent lookups.
type Registry struct {
	specs    []tool.Spec
	handlers map[string]tool.Handler
}

// NewRegistry offers every planned built-in tool that has a handler in builtins (keyed by
// tool name; a tool without a handler is simply not offered), with the spec Codex sends.
func NewRegistry(opts tool.Options, builtins map[string]tool.Handler) *Registry {
	r := &Registry{handlers: map[string]tool.Handler{}}
	for _, name := range Plan(opts) {
		h, ok := builtins[name]
		if !ok || h == nil {
			continue
		}
		spec, _ := BuiltinSpec(name, opts)
		r.specs = append(r.specs, spec)
		r.handlers[name] = h
	}
	return r
}

// Add offers an extra tool (MCP, dynamic) under its spec's name and namespace. A name that
// is already taken is an error.
func (r *Registry) Add(h tool.Handler) error {
	spec := h.Spec()
	var head struct {
		Type string `json:"type"`
		Name string `json:"name"`
	}
	if err := json.Unmarshal(spec, &head); err != nil {
		return fmt.Errorf("tool spec: %w", err)
	}
	if head.Name == "" && head.Type == NameToolSearch {
		head.Name = NameToolSearch // its calls are routed by the tool's type
	}
	if head.Name == "" {
		return fmt.Errorf("tool spec of type %q has no name", head.Type)
	}
	if _, dup := r.handlers[head.Name]; dup {
		return fmt.Errorf("tool %q registered twice", head.Name)
	}
	if d, ok := h.(tool.Deferred); !ok || !d.Deferred() {
		r.specs = append(r.specs, spec) // a deferred tool is offered once tool_search finds it
	}
	r.handlers[head.Name] = h
	return nil
}

// Specs returns the tool specs in the order they are sent.
func (r *Registry) Specs() []tool.Spec { return r.specs }

// Lookup finds the handler for a call. Calls inside a namespace (MCP tools) are looked up by
// the namespace name, whose handler dispatches on the tool name.
func (r *Registry) Lookup(call tool.Call) (tool.Handler, bool) {
	key := call.Name
	if call.Kind == tool.LocalShellCall {
		key = NameLocalShell
	}
	if call.Namespace != "" {
		key = call.Namespace
	}
	h, ok := r.handlers[key]
	return h, ok
}

// NameToolSearch is the client-executed tool_search tool, through which deferred tools are
// found.
const NameToolSearch = "tool_search"

// UnsupportedOutput is what the model is told when it calls a tool nobody handles.
func UnsupportedOutput(call tool.Call) string {
	if call.Kind == tool.CustomCall {
		return "unsupported custom tool call: " + call.Name
	}
	// Codex names a namespace's function with the namespace run together.
	return "unsupported call: " + call.Namespace + call.Name
}
