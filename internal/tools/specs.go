package tools

import (
	"bytes"
	"encoding/json"
	"github.com/gocodex/gocodex/internal/patch"
	"github.com/gocodex/gocodex/tool"
)

// schema is a JSON Schema node in the field order Codex writes: type, description, enum,
// items, properties (keys sorted, as encoding/json does for maps), required,
// additionalProperties.
type schema struct {
	Type                 string              `json:"type"`
	Description          string              `json:"description,omitempty"`
	Enum                 []string            `json:"enum,omitempty"`
	Items                *schema             `json:"items,omitempty"`
	Properties           *map[string]*schema `json:"properties,omitempty"`
	Required             *[]string           `json:"required,omitempty"`
	AdditionalProperties *bool               `json:"additionalProperties,omitempty"`
}

func str(desc string) *schema     { return &schema{Type: "string", Description: desc} }
func num(desc string) *schema     { return &schema{Type: "number", Description: desc} }
func boolean(desc string) *schema { return &schema{Type: "boolean", Description: desc} }
func array(items *schema, desc string) *schema {
	return &schema{Type: "array", Description: desc, Items: items}
}

// object builds a closed object schema (additionalProperties false).
func object(props map[string]*schema, required ...string) *schema {
	f := false
	if required == nil {
		required = []string{}
	}
	return &schema{Type: "object", Properties: &props, Required: &required, AdditionalProperties: &f}
}

// functionSpec is a `{"type":"function",...}` tool.
type functionSpec struct {
	Type        string  `json:"type"`
	Name        string  `json:"name"`
	Description string  `json:"description"`
	Strict      bool    `json:"strict"`
	Parameters  *schema `json:"parameters"`
}

// customSpec is a freeform `{"type":"custom",...}` tool constrained by a grammar.
type customSpec struct {
	Type        string       `json:"type"`
	Name        string       `json:"name"`
	Description string       `json:"description"`
	Format      customFormat `json:"format"`
}

type customFormat struct {
	Type       string `json:"type"`
	Syntax     string `json:"syntax"`
	Definition string `json:"definition"`
}

// marshal writes v without HTML escaping, so descriptions stay byte-identical to Codex's.
func marshal(v any) tool.Spec {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		// Only our own static structs are encoded here; failing is a programming error.
		panic("tools: encode spec: " + err.Error())
	}
	return tool.Spec(bytes.TrimRight(buf.Bytes(), "\n"))
}

func function(name, desc string, params *schema) tool.Spec {
	return marshal(functionSpec{Type: "function", Name: name, Description: desc, Parameters: params})
}

// approvalParams are the escalation parameters of the command tools, as Codex 0.169 words
// them. cmdParam names the command parameter the prefix rule refers to.
func approvalParams(props map[string]*schema, cmdParam string) {
	props["sandbox_permissions"] = &schema{
		Type:        "string",
		Description: "Per-command sandbox override. Defaults to `use_default`; use `require_escalated` for unsandboxed execution.",
		Enum:        []string{"use_default", "require_escalated"},
	}
	props["justification"] = str("User-facing approval question for `require_escalated`; omit otherwise.")
	props["prefix_rule"] = array(str(""), "Reusable approval prefix for `"+cmdParam+"`, only with `sandbox_permissions: \"require_escalated\"`; for example [\"git\", \"pull\"].")
}

// ShellSpec is the `shell` tool (argv form, shell_type "default" and "local").
func ShellSpec() tool.Spec {
	props := map[string]*schema{
		"command":    array(str(""), "The command to execute"),
		"workdir":    str("The working directory to execute the command in"),
		"timeout_ms": num("The timeout for the command in milliseconds"),
	}
	approvalParams(props, "command")
	return function("shell", "Runs a shell command and returns its output.\n"+
		"- The arguments to `shell` will be passed to execvp(). Most terminal commands should be prefixed with [\"bash\", \"-lc\"].\n"+
		"- Always set the `workdir` param when using the shell function. Do not use `cd` unless absolutely necessary.",
		object(props, "command"))
}

// ShellCommandSpec is the `shell_command` tool (a script for the user's shell).
func ShellCommandSpec(allowLogin bool) tool.Spec {
	props := map[string]*schema{
		"command":    str("The shell script to execute in the user's default shell"),
		"workdir":    str("The working directory to execute the command in"),
		"timeout_ms": num("The timeout for the command in milliseconds"),
	}
	if allowLogin {
		props["login"] = boolean("Whether to run the shell with login shell semantics. Defaults to true.")
	}
	approvalParams(props, "command")
	return function("shell_command", "Runs a shell command and returns its output.\n"+
		"- Always set the `workdir` param when using the shell_command function. Do not use `cd` unless absolutely necessary.",
		object(props, "command"))
}

// ExecCommandSpec is the unified-exec `exec_command` tool.
func ExecCommandSpec(allowLogin bool) tool.Spec {
	props := map[string]*schema{
		"cmd":               str("Shell command to execute."),
		"max_output_tokens": num("Output token budget. Defaults to 10000 tokens; larger requests may be capped by policy."),
		"shell":             str("Shell binary to launch. Defaults to the user's default shell."),
		"tty":               boolean("True allocates a PTY for the command; false or omitted uses plain pipes."),
		"workdir":           str("Working directory for the command. Defaults to the turn cwd."),
		"yield_time_ms":     num("Wait before yielding output. Defaults to 10000 ms; effective range is 250-30000 ms."),
	}
	if allowLogin {
		props["login"] = boolean("True runs the shell with -l/-i semantics; false disables them. Defaults to true.")
	}
	approvalParams(props, "cmd")
	return function("exec_command", "Runs a command in a PTY, returning output or a session ID for ongoing interaction.",
		object(props, "cmd"))
}

// WriteStdinSpec is the unified-exec `write_stdin` tool.
func WriteStdinSpec() tool.Spec {
	return function("write_stdin", "Writes characters to an existing unified exec session and returns recent output.",
		object(map[string]*schema{
			"chars":             str("Bytes to write to stdin. Defaults to empty, which polls without writing."),
			"max_output_tokens": num("Output token budget. Defaults to 10000 tokens; larger requests may be capped by policy."),
			"session_id":        num("Identifier of the running unified exec session."),
			"yield_time_ms":     num("Wait before yielding output. Non-empty writes default to 250 ms and cap at 30000 ms; empty polls wait 5000-300000 ms by default."),
		}, "session_id"))
}

// ApplyPatchFreeformSpec is apply_patch as a `custom` tool: the model writes the patch as raw
// text, constrained by our Lark grammar of the patch format.
func ApplyPatchFreeformSpec() tool.Spec {
	return marshal(customSpec{
		Type:        "custom",
		Name:        "apply_patch",
		Description: "The `apply_patch` tool can be used to edit files. This is a FREEFORM tool, so do not wrap the patch in JSON.",
		Format:      customFormat{Type: "grammar", Syntax: "lark", Definition: patch.LarkGrammar()},
	})
}

// ApplyPatchFunctionSpec is apply_patch as a JSON function taking the patch in `input`, for
// models that cannot call freeform tools.
func ApplyPatchFunctionSpec() tool.Spec {
	return function("apply_patch", "Edits files with a patch. Pass the whole patch as `input`: it starts with `*** Begin Patch` and ends with `*** End Patch`; "+
		"each file section starts with `*** Add File: <path>` (every line prefixed with `+`), `*** Delete File: <path>`, or `*** Update File: <path>` "+
		"(optionally followed by `*** Move to: <path>`) with `@@` context anchors and lines prefixed by ` `, `-` or `+`. Paths are relative to the working directory.",
		object(map[string]*schema{
			"input": str("The entire contents of the apply_patch command"),
		}, "input"))
}

// UpdatePlanSpec is the `update_plan` tool.
func UpdatePlanSpec() tool.Spec {
	step := object(map[string]*schema{
		"step":   {Type: "string"},
		"status": str("One of: pending, in_progress, completed"),
	}, "step", "status")
	return function("update_plan", "Updates the task plan.\n"+
		"Provide an optional explanation and a list of plan items, each with a step and status.\n"+
		"At most one step can be in_progress at a time.\n",
		object(map[string]*schema{
			"explanation": {Type: "string"},
			"plan":        array(step, "The list of steps"),
		}, "plan"))
}

// ViewImageSpec is the `view_image` tool.
func ViewImageSpec() tool.Spec {
	return function("view_image", "View a local image file from the filesystem when visual inspection is needed. Use this for images already available on disk.",
		object(map[string]*schema{
			"path": str("Local filesystem path to an image file."),
		}, "path"))
}
