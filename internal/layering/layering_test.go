// Package layering holds the test that keeps the architecture honest: the public protocol
// package imports nothing of ours, the engine imports no face, and nothing uses cgo.
package layering

import (
	"encoding/json"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/gocodex/gocodex"

// faces are the adapters over the engine; the engine and the edges must never import them.
var faces = []string{
	module + "/internal/execcli",
	module + "/internal/appserver",
	module + "/internal/mcp/server",
	module + "/internal/tui",
	module + "/internal/proto",
	module + "/cmd/",
}

type pkgInfo struct {
	ImportPath string
	Deps       []string
	CgoFiles   []string
}

func listPackages(t *testing.T) []pkgInfo {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps=false", "-json", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	var pkgs []pkgInfo
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for dec.More() {
		var p pkgInfo
		if err := dec.Decode(&p); err != nil {
			t.Fatalf("decode go list output: %v", err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func TestLayering(t *testing.T) {
	for _, p := range listPackages(t) {
		if len(p.CgoFiles) > 0 {
			t.Errorf("%s uses cgo (%v); the binary must stay cgo-free", p.ImportPath, p.CgoFiles)
		}
		ours := func(dep string) bool { return strings.HasPrefix(dep, module+"/") }
		switch {
		case p.ImportPath == module+"/protocol":
			for _, d := range p.Deps {
				if ours(d) {
					t.Errorf("protocol imports %s; it must import nothing of ours", d)
				}
			}
		case strings.HasPrefix(p.ImportPath, module+"/agent"), isEdge(p.ImportPath):
			for _, d := range p.Deps {
				if isFace(d) {
					t.Errorf("%s imports the face %s", p.ImportPath, d)
				}
			}
		}
	}
}

// isEdge reports whether the package is part of the engine's edges (model, tools, sandbox…),
// which, like the engine, must not know about faces.
func isEdge(path string) bool {
	for _, edge := range []string{"model", "prompt", "tools", "patch", "process", "sandbox", "safety", "rollout", "config", "items", "jsonrpc"} {
		if strings.HasPrefix(path, module+"/internal/"+edge) {
			return true
		}
	}
	return false
}

func isFace(path string) bool {
	for _, f := range faces {
		if path == f || strings.HasPrefix(path, f+"/") || (strings.HasSuffix(f, "/") && strings.HasPrefix(path, f)) {
			return true
		}
	}
	return false
}
