package prompt

import (
	_ "embed"
	"fmt"
	"strings"
)

//go:embed texts/base_instructions.md
var defaultBaseInstructions string

// DefaultBaseInstructions returns our built-in base instructions.
func DefaultBaseInstructions() string { return defaultBaseInstructions }

// BaseOptions selects the base instructions. The first non-empty source wins: Override
// (config `base_instructions`), then InstructionsFile (config `model_instructions_file`),
// then ModelDefault (a catalog entry's own text), then ours.
type BaseOptions struct {
	Override         string
	InstructionsFile string
	ModelDefault     string
	// FS reads InstructionsFile; nil means the operating system's.
	FS FS
}

// BaseInstructions resolves the base instructions. A named instructions file that cannot be
// read, or that holds only whitespace, is an error: the user asked for it explicitly.
func BaseInstructions(opts BaseOptions) (string, error) {
	if opts.Override != "" {
		return opts.Override, nil
	}
	if opts.InstructionsFile != "" {
		fsys := opts.FS
		if fsys == nil {
			fsys = OSFS{}
		}
		data, err := fsys.ReadFile(opts.InstructionsFile)
		if err != nil {
			return "", fmt.Errorf("read model_instructions_file %s: %w", opts.InstructionsFile, err)
		}
		text := string(data)
		if strings.TrimSpace(text) == "" {
			return "", fmt.Errorf("model_instructions_file %s is empty", opts.InstructionsFile)
		}
		return text, nil
	}
	if opts.ModelDefault != "" {
		return opts.ModelDefault, nil
	}
	return defaultBaseInstructions, nil
}
