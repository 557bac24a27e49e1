package execcli

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
