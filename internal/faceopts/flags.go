// Package faceopts is the wiring the faces share: the flags they have in common (model,
// profile, -c, --enable/--disable, sandbox, approvals, cwd, --oss, images, --add-dir), their
// mapping onto the configuration loader, the one configuration load of a process, and the
// Factory that hands every command its IO streams, configuration, log and the one host.
package faceopts

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/gocodex/gocodex/internal/config"
	"github.com/gocodex/gocodex/protocol"
)

// Flags are the shared flags, as parsed. A face registers the ones it offers.
type Flags struct {
	Model            string
	Profile          string
	Configs          []string // -c key=value, in order
	Enable           []string
	Disable          []string
	Sandbox          string // -s
	Approval         string // -a
	FullAuto         bool
	Bypass           bool // --dangerously-bypass-approvals-and-sandbox
	Cd               string
	OSS              bool
	LocalProvider    string
	Images           []string
	AddDirs          []string
	IgnoreUserConfig bool
	StrictConfig     bool
}

// Set selects flags to register.
type Set uint

// The flag groups.
const (
	Model Set = 1 << iota
	Profile
	Config   // -c/--config
	Features // --enable, --disable
	Sandbox  // -s/--sandbox
	Approval // -a/--ask-for-approval
	FullAuto // --full-auto
	Bypass   // --dangerously-bypass-approvals-and-sandbox and its alias --yolo
	Cd       // -C/--cd
	OSS      // --oss, --local-provider
	Images   // -i/--image
	AddDir   // --add-dir
	IgnoreUserConfig
	StrictConfig // --strict-config (Codex 0.171)
)

// Register binds the selected flags to f, with Codex's names and letters.
func (o *Flags) Register(f *pflag.FlagSet, set Set) {
	if set&Model != 0 {
		f.StringVarP(&o.Model, "model", "m", "", "model the agent should use")
	}
	if set&Config != 0 {
		f.StringArrayVarP(&o.Configs, "config", "c", nil, "override a configuration value (key=value, value parsed as TOML)")
	}
	if set&Features != 0 {
		f.StringArrayVar(&o.Enable, "enable", nil, "enable a feature (features.NAME=true)")
		f.StringArrayVar(&o.Disable, "disable", nil, "disable a feature (features.NAME=false)")
	}
	if set&Sandbox != 0 {
		f.StringVarP(&o.Sandbox, "sandbox", "s", "", "sandbox policy: read-only, workspace-write, danger-full-access")
	}
	if set&Approval != 0 {
		f.StringVarP(&o.Approval, "ask-for-approval", "a", "", "when to ask before running a command: untrusted, on-failure, on-request, never")
	}
	if set&FullAuto != 0 {
		f.BoolVar(&o.FullAuto, "full-auto", false, "low-friction sandboxed automatic execution (workspace-write)")
	}
	if set&Bypass != 0 {
		f.BoolVar(&o.Bypass, "dangerously-bypass-approvals-and-sandbox", false, "skip all approvals and run commands without a sandbox")
		f.BoolVar(&o.Bypass, "yolo", false, "alias of --dangerously-bypass-approvals-and-sandbox")
		_ = f.MarkHidden("yolo")
	}
	if set&Cd != 0 {
		f.StringVarP(&o.Cd, "cd", "C", "", "use this directory as the agent's working root")
	}
	if set&Profile != 0 {
		f.StringVarP(&o.Profile, "profile", "p", "", "configuration profile")
	}
	if set&OSS != 0 {
		f.BoolVar(&o.OSS, "oss", false, "use the open-source (local) provider")
		f.StringVar(&o.LocalProvider, "local-provider", "", "local provider to use with --oss: lmstudio or ollama")
	}
	if set&Images != 0 {
		f.StringSliceVarP(&o.Images, "image", "i", nil, "image(s) to attach to the prompt")
	}
	if set&AddDir != 0 {
		f.StringArrayVar(&o.AddDirs, "add-dir", nil, "additional writable directory")
	}
	if set&IgnoreUserConfig != 0 {
		f.BoolVar(&o.IgnoreUserConfig, "ignore-user-config", false, "do not load $CODEX_HOME/config.toml")
	}
	if set&StrictConfig != 0 {
		f.BoolVar(&o.StrictConfig, "strict-config", false, "refuse to start when config.toml has a key neither gocodex nor Codex knows")
	}
}

// FullAutoMode says what --full-auto means to a face.
type FullAutoMode int

const (
	// FullAutoSandboxOnly (exec, with nobody to ask): workspace-write, over any -s; the
	// approval policy stays the configuration's.
	FullAutoSandboxOnly FullAutoMode = iota
	// FullAutoAsksOnRequest (the TUI): workspace-write and on-request, each replaced by an
	// explicit -s or -a.
	FullAutoAsksOnRequest
)

// LoadOptions maps the flags onto the configuration loader: -c and the features become
// overrides in order, the sandbox and approval flags typed overrides (bypass wins over both).
func (o Flags) LoadOptions(getenv func(string) string, fullAuto FullAutoMode) (config.LoadOptions, error) {
	if err := CheckFeatureNames(o.Enable, o.Disable); err != nil {
		return config.LoadOptions{}, err
	}
	lo := config.LoadOptions{
		Cwd:              o.Cd,
		Profile:          o.Profile,
		CLIOverrides:     FeatureOverrides(o.Configs, o.Enable, o.Disable),
		IgnoreUserConfig: o.IgnoreUserConfig,
		StrictConfig:     o.StrictConfig,
		Env:              getenv,
	}
	ov := &lo.Overrides
	if o.Model != "" {
		model := o.Model
		ov.Model = &model
	}
	ov.OSS, ov.LocalProvider = o.OSS, o.LocalProvider
	ov.AdditionalWritableRoots = o.AddDirs
	if o.Bypass {
		mode, never := protocol.SandboxDangerFullAccess, protocol.ApprovalNever
		ov.SandboxMode, ov.ApprovalPolicy = &mode, &never
		return lo, nil
	}
	if o.FullAuto {
		mode := protocol.SandboxWorkspaceWrite
		ov.SandboxMode = &mode
		if fullAuto == FullAutoAsksOnRequest {
			onRequest := protocol.ApprovalOnRequest
			ov.ApprovalPolicy = &onRequest
		}
	}
	if o.Sandbox != "" && !(o.FullAuto && fullAuto == FullAutoSandboxOnly) {
		mode, err := SandboxFlag(o.Sandbox)
		if err != nil {
			return lo, err
		}
		ov.SandboxMode = &mode
	}
	if o.Approval != "" {
		mode, err := protocol.ParseApprovalMode(o.Approval)
		if err != nil {
			return lo, fmt.Errorf("invalid value %q for --ask-for-approval: %w", o.Approval, err)
		}
		ov.ApprovalPolicy = &protocol.AskForApproval{Mode: mode}
	}
	return lo, nil
}

// FeatureOverrides appends --enable/--disable to the -c overrides as features.NAME=true/false.
func FeatureOverrides(configs, enable, disable []string) []string {
	out := append([]string(nil), configs...)
	for _, f := range enable {
		out = append(out, "features."+f+"=true")
	}
	for _, f := range disable {
		out = append(out, "features."+f+"=false")
	}
	return out
}

// SandboxFlag reads the value of -s/--sandbox (kebab-case, as Codex's CLI takes it).
func SandboxFlag(value string) (protocol.SandboxMode, error) {
	mode, err := protocol.ParseSandboxMode(value)
	if err != nil || string(mode) != value {
		return "", fmt.Errorf("invalid value %q for --sandbox: expected read-only, workspace-write or danger-full-access", value)
	}
	return mode, nil
}
