// Command rpcgen writes the app-server's generated RPC layer (see package rpcgen):
//
//	go run ./internal/appserver/rpcgen/cmd -schema DIR|ARCHIVE -out DIR
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/gocodex/gocodex/internal/appserver/rpcgen"
)

func main() {
	schema := flag.String("schema", "schemagen/codex-schema.tar.zst", "Codex's schema: a directory with json/ and ts/ trees, or their .tar.zst archive")
	out := flag.String("out", ".", "directory of the appserver package")
	source := flag.String("source", rpcgen.Reference, "what the schema is, for the generated files' header")
	flag.Parse()
	if err := run(*schema, *out, *source); err != nil {
		fmt.Fprintln(os.Stderr, "rpcgen:", err)
		os.Exit(1)
	}
}

func run(schema, out, source string) error {
	s, err := rpcgen.LoadSchema(schema)
	if err != nil {
		return err
	}
	files, err := rpcgen.Generate(s, rpcgen.AppServer(source))
	if err != nil {
		return err
	}
	if err := writeFile(filepath.Join(out, rpcgen.TypesFile), files.Types); err != nil {
		return err
	}
	return writeFile(filepath.Join(out, rpcgen.APIFile), files.API)
}

// writeFile replaces path whole: a temporary file renamed over it.
func writeFile(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".rpcgen-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
