package execcli

import (
	"fmt"

	"github.com/gocodex/gocodex/protocol"
)

// SandboxFlag reads the value of -s/--sandbox (kebab-case, as Codex's CLI takes it).
func SandboxFlag(value string) (protocol.SandboxMode, error) {
	mode, err := protocol.ParseSandboxMode(value)
	if err != nil || string(mode) != value {
		return "", fmt.Errorf("invalid value %q for --sandbox: expected read-only, workspace-write or danger-full-access", value)
	}
	return mode, nil
}

// RunOptions is everything `gocodex exec` was asked to do, parsed from flags by cmd/gocodex
// and tested apart from the run itself.
type RunOptions struct {
	Prompt           string // "" or "-" reads stdin
	HasPrompt        bool
	JSON             bool // --json / --experimental-json
	Model            string
	Configs          []string // -c key=value, in order
	Sandbox          string   // -s
	FullAuto         bool
	Bypass           bool // --dangerously-bypass-approvals-and-sandbox
	Cd               string
	AddDirs          []string
	SkipGitRepo      bool
	OutputLast       string // -o
	OutputSchema     string
	Color            string
	Profile          string
	OSS              bool
	LocalProvider    string
	Images           []string
	Ephemeral        bool
	IgnoreUserConfig bool
	IgnoreRules      bool
	Enable           []string
	Disable          []string

	// Resume: a thread to continue (`exec resume ID` or `--last`).
	Resume     bool
	ResumeID   string
	ResumeLast bool
	ResumeAll  bool
}
