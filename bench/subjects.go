package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// The programs measured. gocodex and the reference run every workload; the floor and the
// hello-world are the baselines of the workloads they can do.
const (
	Gocodex   = "gocodex"
	Reference = "reference"
	Floor     = "floor"
	Hello     = "hello"
	// Launcher is cmd/measure, not a subject: every program is started through it.
	Launcher = "measure"
)

// Subject is one measured program.
type Subject struct {
	Name string
	Bin  string
}

// buildPrograms builds gocodex (as a static, stripped binary, as it ships) and the baselines (built the same way) into
// dir. repo is the root of the gocodex checkout; the baselines live in this module.
func buildPrograms(repo, dir string) (map[string]string, error) {
	bins := map[string]string{}
	builds := []struct{ name, pkgDir, pkg string }{
		{Gocodex, repo, "./cmd/gocodex"},
		{Hello, filepath.Join(repo, "bench"), "./cmd/hello"},
		{Floor, filepath.Join(repo, "bench"), "./cmd/floor"},
		{Launcher, filepath.Join(repo, "bench"), "./cmd/measure"},
	}
	for _, b := range builds {
		out := filepath.Join(dir, b.name)
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", out, b.pkg)
		cmd.Dir = b.pkgDir
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if msg, err := cmd.CombinedOutput(); err != nil {
			return nil, fmt.Errorf("build %s: %v\n%s", b.name, err, msg)
		}
		bins[b.name] = out
	}
	return bins, nil
}

// referenceVersion is the Codex release gocodex is wire-compatible with.
const referenceVersion = "0.169.0"

// findReference returns the reference Codex binary: GOCODEX_REFERENCE_CODEX if set, else the
// copy in the cache folder, installed there from npm when install is true and it is missing.
// It returns "" and the reason when there is none (offline, no npm, unsupported platform).
func findReference(install bool) (string, string) {
	if p := os.Getenv("GOCODEX_REFERENCE_CODEX"); p != "" {
		if _, err := os.Stat(p); err != nil {
			return "", fmt.Sprintf("GOCODEX_REFERENCE_CODEX=%s: %v", p, err)
		}
		return p, ""
	}
	if runtime.GOOS != "linux" {
		return "", "the reference is installed only on Linux"
	}
	pkg, triple := "codex-linux-x64", "x86_64-unknown-linux-musl"
	if runtime.GOARCH == "arm64" {
		pkg, triple = "codex-linux-arm64", "aarch64-unknown-linux-musl"
	} else if runtime.GOARCH != "amd64" {
		return "", "no reference build for " + runtime.GOARCH
	}
	cache := referenceCache()
	bin := filepath.Join(cache, "node_modules/@openai", pkg, "vendor", triple, "bin/codex")
	if out, err := exec.Command(bin, "--version").Output(); err == nil && strings.Contains(string(out), referenceVersion) {
		return bin, ""
	}
	if !install {
		return "", "not installed in " + cache + " (run without -no-install to install it from npm)"
	}
	if _, err := exec.LookPath("npm"); err != nil {
		return "", "npm is not installed, so the reference Codex cannot be installed"
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err.Error()
	}
	pj := filepath.Join(cache, "package.json")
	if _, err := os.Stat(pj); err != nil {
		if err := os.WriteFile(pj, []byte(`{"private": true}`+"\n"), 0o644); err != nil {
			return "", err.Error()
		}
	}
	fmt.Fprintf(os.Stderr, "bench: installing @openai/codex@%s into %s\n", referenceVersion, cache)
	cmd := exec.Command("npm", "install", "--no-audit", "--no-fund", "--loglevel=error", "@openai/codex@"+referenceVersion)
	cmd.Dir = cache
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Sprintf("npm install @openai/codex@%s failed (offline?): %v %s", referenceVersion, err, tail(msg, 400))
	}
	if _, err := os.Stat(bin); err != nil {
		return "", "npm installed no binary at " + bin
	}
	return bin, ""
}

// referenceCache is the folder the reference is installed into, the same one
// testkit.ReferenceCodex and the e2e tests look in.
func referenceCache() string {
	if c := os.Getenv("CODEX_REF_CACHE"); c != "" {
		return c
	}
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = os.TempDir()
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "gocodex-reference")
}
