//go:build ignore

// gen_codex_features writes codex_features.go from Codex's recorded experimentalFeature/list
// answer and the names its enablement/set kept (scripts/record-codex-features.sh records
// both): go run gen_codex_features.go VERSION
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"go/format"
	"os"
)

func main() {
	version := os.Args[1]
	listPath := "../appserver/testdata/codex-" + version + "-experimental-feature-list.json"
	var list struct {
		Data []struct {
			Name, Stage                            string
			DisplayName, Description, Announcement *string
			DefaultEnabled                         bool
		}
	}
	must(readJSON(listPath, &list))
	var settable []string
	must(readJSON("testdata/codex-"+version+"-runtime-settable.json", &settable))
	isSettable := map[string]bool{}
	for _, n := range settable {
		isSettable[n] = true
	}
	stages := map[string]string{"stable": "StageStable", "beta": "StageExperimental", "underDevelopment": "StageUnderDevelopment", "deprecated": "StageDeprecated", "removed": "StageRemoved"}
	var b bytes.Buffer
	fmt.Fprintf(&b, `// Code generated from Codex %s's experimentalFeature/list answer (app-server, recorded in
// internal/appserver/testdata/codex-%s-experimental-feature-list.json) by gen_codex_features.go; DO NOT EDIT.
// RuntimeSettable marks the names Codex's experimentalFeature/enablement/set kept when sent every
// flag (testdata/codex-%s-runtime-settable.json). TestExperimentalFeatureListMatchesCodex and
// TestListMatchesCodex keep it in step.

package features

// codexFeatures are Codex %s's feature flags in the order its app-server lists them.
var codexFeatures = []Feature{
`, version, version, version, version)
	for _, f := range list.Data {
		stage, ok := stages[f.Stage]
		if !ok {
			panic("unknown stage " + f.Stage)
		}
		fmt.Fprintf(&b, "\t{Name: %q, Stage: %s, Default: %v", f.Name, stage, f.DefaultEnabled)
		if isSettable[f.Name] {
			b.WriteString(", RuntimeSettable: true")
		}
		if f.DisplayName != nil {
			fmt.Fprintf(&b, ", DisplayName: %q, Description: %q, Announcement: %q", *f.DisplayName, deref(f.Description), deref(f.Announcement))
		}
		b.WriteString("},\n")
	}
	b.WriteString("}\n")
	src, err := format.Source(b.Bytes())
	must(err)
	must(os.WriteFile("codex_features.go", src, 0o644))
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
