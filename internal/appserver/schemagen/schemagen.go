// Package schemagen writes the JSON schema and TypeScript types of the app-server protocol
// gocodex speaks (`gocodex app-server generate-json-schema` / `generate-ts`).
//
// The type definitions are Codex 0.171's own generated trees, kept compressed in
// codex-schema.tar.zst (scripts/refresh-appserver-schema.sh rebuilds it from the reference
// binary): gocodex's wire types are written to match them field for field, so they are the
// description of its shapes. What differs is the set of client methods: the ClientRequest
// unions list only the methods this server answers, so a client generated from the output
// never calls a method gocodex would reject as unknown. Nothing is decompressed until a
// command asks for it.
package schemagen

import (
	"archive/tar"
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"
)

//go:embed codex-schema.tar.zst
var archive []byte

// Kind selects one of the four trees in the archive.
type Kind struct {
	TypeScript   bool // generate-ts rather than generate-json-schema
	Experimental bool // --experimental: experimental methods and fields included
}

func (k Kind) root() string {
	r := "json"
	if k.TypeScript {
		r = "ts"
	}
	if k.Experimental {
		r += "-experimental"
	}
	return r
}

// File is one generated file, its path relative to the output directory.
type File struct {
	Path string
	Data []byte
}

// Files returns the tree of kind with every ClientRequest union narrowed to the methods
// for which serves reports true (nil serves keeps every method).
func Files(kind Kind, serves func(method string) bool) ([]File, error) {
	dec, err := zstd.NewReader(bytes.NewReader(archive), zstd.WithDecoderConcurrency(1))
	if err != nil {
		return nil, fmt.Errorf("schema archive: %w", err)
	}
	defer dec.Close()
	prefix := "./" + kind.root() + "/"
	var files []File
	tr := tar.NewReader(dec)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("schema archive: %w", err)
		}
		if h.Typeflag != tar.TypeReg || !strings.HasPrefix(h.Name, prefix) {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return nil, fmt.Errorf("schema archive: %w", err)
		}
		rel := strings.TrimPrefix(h.Name, prefix)
		if serves != nil {
			if data, err = narrow(rel, data, serves); err != nil {
				return nil, fmt.Errorf("%s: %w", rel, err)
			}
		}
		files = append(files, File{Path: rel, Data: data})
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("schema archive has no %s tree", kind.root())
	}
	return files, nil
}

// narrow drops the client methods gocodex does not serve from the files that list them.
func narrow(rel string, data []byte, serves func(string) bool) ([]byte, error) {
	switch path.Base(rel) {
	case "ClientRequest.json":
		return narrowJSONUnion(data, []string{"oneOf"}, serves)
	case "codex_app_server_protocol.schemas.json", "codex_app_server_protocol.v2.schemas.json":
		return narrowJSONUnion(data, []string{"definitions", "ClientRequest", "oneOf"}, serves)
	case "ClientRequest.ts":
		return narrowTSUnion(data, serves)
	}
	return data, nil
}

// Write puts files under dir, creating it; each file is written whole or not at all.
func Write(dir string, files []File) error {
	for _, f := range files {
		dst := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		tmp, err := os.CreateTemp(filepath.Dir(dst), ".gen-*")
		if err != nil {
			return err
		}
		_, werr := tmp.Write(f.Data)
		cerr := tmp.Close()
		if err := errors.Join(werr, cerr); err != nil {
			os.Remove(tmp.Name())
			return err
		}
		if err := os.Chmod(tmp.Name(), 0o644); err != nil {
			os.Remove(tmp.Name())
			return err
		}
		if err := os.Rename(tmp.Name(), dst); err != nil {
			os.Remove(tmp.Name())
			return err
		}
	}
	return nil
}
