// Package rpcgen generates the app-server's RPC layer from Codex's app-server schema: a Go
// type for every client request's params and response and every server notification's
// params, and per method family a typed server interface with a dispatcher that decodes the
// params, calls the method and hands back its result. Field types come from the JSON schema;
// field order and which fields Codex leaves out (TypeScript `name?:`) from the TypeScript
// tree, as gopls generates its protocol from the LSP meta-model.
//
// The schema is a parameter (a directory holding json/ and ts/ trees, or the .tar.zst archive
// scripts/refresh-appserver-schema.sh writes), so moving to a newer Codex is a regenerate.
package rpcgen

import (
	"archive/tar"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"
)

// Schema is the part of Codex's schema trees the generator reads.
type Schema struct {
	// Bundle is json/codex_app_server_protocol.schemas.json: its ClientRequest lists the
	// stable requests, the ones the API answers.
	Bundle []byte
	// Types is json-experimental/codex_app_server_protocol.schemas.json when the schema has
	// it, else Bundle: the types, with the experimental members Codex writes to every client.
	Types []byte
	// TS maps a TypeScript type name to its file (ts-experimental/ when present, else ts/).
	TS map[string][]byte
}

const (
	bundleName             = "json/codex_app_server_protocol.schemas.json"
	experimentalBundleName = "json-experimental/codex_app_server_protocol.schemas.json"
)

// LoadSchema reads a schema from dir (json/ and ts/ below it) or from a .tar.zst archive of
// such a tree.
func LoadSchema(path string) (*Schema, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	s := &Schema{TS: map[string][]byte{}}
	ts := map[string]map[string][]byte{"ts/": {}, "ts-experimental/": {}}
	add := func(rel string, data []byte) {
		rel = filepath.ToSlash(strings.TrimPrefix(rel, "./"))
		switch {
		case rel == bundleName:
			s.Bundle = data
		case rel == experimentalBundleName:
			s.Types = data
		case strings.HasSuffix(rel, ".ts"):
			root, sub, _ := strings.Cut(rel, "/")
			tree := ts[root+"/"]
			if tree == nil {
				return
			}
			name := strings.TrimSuffix(filepath.Base(rel), ".ts")
			if strings.HasPrefix(sub, "v2/") || tree[name] == nil {
				tree[name] = data
			}
		}
	}
	if st.IsDir() {
		err = filepath.WalkDir(path, func(p string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(path, p)
			rel = filepath.ToSlash(rel)
			if rel != bundleName && rel != experimentalBundleName && !strings.HasPrefix(rel, "ts/") && !strings.HasPrefix(rel, "ts-experimental/") {
				return nil
			}
			data, err := os.ReadFile(p)
			if err == nil {
				add(rel, data)
			}
			return err
		})
	} else {
		err = readArchive(path, add)
	}
	if err != nil {
		return nil, err
	}
	if s.Bundle == nil {
		return nil, fmt.Errorf("%s: no %s", path, bundleName)
	}
	s.TS = ts["ts-experimental/"]
	if s.Types == nil || len(s.TS) == 0 {
		s.Types, s.TS = s.Bundle, ts["ts/"]
	}
	if len(s.TS) == 0 {
		return nil, fmt.Errorf("%s: no ts/ tree", path)
	}
	return s, nil
}

func readArchive(path string, add func(string, []byte)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	dec, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer dec.Close()
	tr := tar.NewReader(dec)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if h.Typeflag != tar.TypeReg {
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		add(h.Name, bytes.Clone(data))
	}
}
