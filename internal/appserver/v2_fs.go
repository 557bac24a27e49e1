package appserver

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The fs/* methods give a client the server machine's file system (absolute paths only, as
// Codex requires); fuzzyFileSearch finds files under roots by a fuzzy query.

// FsReadFile answers fs/readFile.
func (a *api) FsReadFile(ctx context.Context, c *Conn, p FsReadFileParams) (FsReadFileResponse, error) {
	if err := absPath(string(p.Path)); err != nil {
		return FsReadFileResponse{}, err
	}
	b, err := os.ReadFile(string(p.Path))
	if err != nil {
		return FsReadFileResponse{}, fsError(err)
	}
	return FsReadFileResponse{DataBase64: base64.StdEncoding.EncodeToString(b)}, nil
}

// FsWriteFile answers fs/writeFile.
func (a *api) FsWriteFile(ctx context.Context, c *Conn, p FsWriteFileParams) (FsWriteFileResponse, error) {
	if err := absPath(string(p.Path)); err != nil {
		return FsWriteFileResponse{}, err
	}
	b, err := base64.StdEncoding.DecodeString(p.DataBase64)
	if err != nil {
		return FsWriteFileResponse{}, InvalidParams("invalid dataBase64: " + err.Error())
	}
	return FsWriteFileResponse{}, fsError(os.WriteFile(string(p.Path), b, 0o644))
}

// FsCreateDirectory answers fs/createDirectory.
func (a *api) FsCreateDirectory(ctx context.Context, c *Conn, p FsCreateDirectoryParams) (FsCreateDirectoryResponse, error) {
	if err := absPath(string(p.Path)); err != nil {
		return FsCreateDirectoryResponse{}, err
	}
	if p.Recursive == nil || *p.Recursive {
		return FsCreateDirectoryResponse{}, fsError(os.MkdirAll(string(p.Path), 0o755))
	}
	return FsCreateDirectoryResponse{}, fsError(os.Mkdir(string(p.Path), 0o755))
}

// FsGetMetadata answers fs/getMetadata.
func (a *api) FsGetMetadata(ctx context.Context, c *Conn, p FsGetMetadataParams) (FsGetMetadataResponse, error) {
	if err := absPath(string(p.Path)); err != nil {
		return FsGetMetadataResponse{}, err
	}
	return getMetadata(string(p.Path))
}

// FsReadDirectory answers fs/readDirectory.
func (a *api) FsReadDirectory(ctx context.Context, c *Conn, p FsReadDirectoryParams) (FsReadDirectoryResponse, error) {
	if err := absPath(string(p.Path)); err != nil {
		return FsReadDirectoryResponse{}, err
	}
	return readDirectory(string(p.Path))
}

// FsRemove answers fs/remove.
func (a *api) FsRemove(ctx context.Context, c *Conn, p FsRemoveParams) (FsRemoveResponse, error) {
	if err := absPath(string(p.Path)); err != nil {
		return FsRemoveResponse{}, err
	}
	var err error
	if p.Recursive == nil || *p.Recursive {
		if _, serr := os.Lstat(string(p.Path)); serr != nil {
			err = serr
		} else {
			err = os.RemoveAll(string(p.Path))
		}
	} else {
		err = os.Remove(string(p.Path))
	}
	if errors.Is(err, fs.ErrNotExist) && (p.Force == nil || *p.Force) {
		err = nil
	}
	return FsRemoveResponse{}, fsError(err)
}

// FsCopy answers fs/copy.
func (a *api) FsCopy(ctx context.Context, c *Conn, p FsCopyParams) (FsCopyResponse, error) {
	if err := absPath(string(p.SourcePath)); err != nil {
		return FsCopyResponse{}, err
	}
	if err := absPath(string(p.DestinationPath)); err != nil {
		return FsCopyResponse{}, err
	}
	return FsCopyResponse{}, fsError(copyPath(string(p.SourcePath), string(p.DestinationPath), p.Recursive != nil && *p.Recursive))
}

// FuzzyFileSearch answers fuzzyFileSearch.
func (a *api) FuzzyFileSearch(ctx context.Context, c *Conn, p FuzzyFileSearchParams) (FuzzyFileSearchResponse, error) {
	return fuzzySearch(ctx, p), nil
}

func absPath(p string) error {
	if !filepath.IsAbs(p) {
		return InvalidParams("path must be absolute: " + p)
	}
	return nil
}

// fsError turns a file-system error into the request's error (nil stays nil).
func fsError(err error) error {
	if err == nil {
		return nil
	}
	return InvalidRequest(err.Error())
}

func getMetadata(path string) (FsGetMetadataResponse, error) {
	li, err := os.Lstat(path)
	if err != nil {
		return FsGetMetadataResponse{}, fsError(err)
	}
	md := FsGetMetadataResponse{IsSymlink: li.Mode()&fs.ModeSymlink != 0}
	fi := li
	if md.IsSymlink {
		if st, err := os.Stat(path); err == nil {
			fi = st
		}
	}
	md.IsDirectory, md.IsFile = fi.IsDir(), fi.Mode().IsRegular()
	md.ModifiedAtMs = fi.ModTime().UnixMilli()
	md.CreatedAtMs = md.ModifiedAtMs
	if ms, ok := createdAtMs(fi); ok {
		md.CreatedAtMs = ms
	}
	return md, nil
}

func readDirectory(path string) (FsReadDirectoryResponse, error) {
	des, err := os.ReadDir(path)
	if err != nil {
		return FsReadDirectoryResponse{}, fsError(err)
	}
	out := FsReadDirectoryResponse{Entries: make([]FsReadDirectoryEntry, 0, len(des))}
	for _, de := range des {
		e := FsReadDirectoryEntry{FileName: de.Name(), IsDirectory: de.IsDir(), IsFile: de.Type().IsRegular()}
		if de.Type()&fs.ModeSymlink != 0 {
			if st, err := os.Stat(filepath.Join(path, de.Name())); err == nil {
				e.IsDirectory, e.IsFile = st.IsDir(), st.Mode().IsRegular()
			}
		}
		out.Entries = append(out.Entries, e)
	}
	return out, nil
}

func copyPath(src, dst string, recursive bool) error {
	fi, err := os.Stat(src)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return copyFile(src, dst, fi.Mode().Perm())
	}
	if !recursive {
		return errors.New("source is a directory; set recursive to copy it")
	}
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		if !info.Mode().IsRegular() {
			return nil
		}
		return copyFile(p, target, info.Mode().Perm())
	})
}

func copyFile(src, dst string, perm fs.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// fuzzyLimit bounds the answer, and fuzzyWalkLimit the files looked at, so a query on a
// huge tree stays quick.
const (
	fuzzyLimit     = 50
	fuzzyWalkLimit = 200_000
)

// fuzzySearch matches the query as a subsequence of each path (case-insensitive), scoring
// consecutive and word-start matches higher, like file pickers do.
func fuzzySearch(ctx context.Context, p FuzzyFileSearchParams) FuzzyFileSearchResponse {
	q := strings.ToLower(p.Query)
	out := FuzzyFileSearchResponse{Files: []FuzzyFileSearchResult{}}
	if q == "" {
		return out
	}
	seen := 0
	for _, root := range p.Roots {
		_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || ctx.Err() != nil {
				return filepath.SkipDir
			}
			if d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules") && path != root {
				return filepath.SkipDir
			}
			seen++
			if seen > fuzzyWalkLimit {
				return filepath.SkipAll
			}
			if path == root {
				return nil
			}
			rel, _ := filepath.Rel(root, path)
			score, idx, ok := fuzzyScore(strings.ToLower(rel), q)
			if !ok {
				return nil
			}
			typ := "file"
			if d.IsDir() {
				typ = "directory"
			}
			out.Files = append(out.Files, FuzzyFileSearchResult{Root: root, Path: rel, MatchType: FuzzyFileSearchMatchType(typ), FileName: d.Name(), Score: score, Indices: idx})
			return nil
		})
	}
	sort.SliceStable(out.Files, func(i, j int) bool {
		if out.Files[i].Score != out.Files[j].Score {
			return out.Files[i].Score > out.Files[j].Score
		}
		return out.Files[i].Path < out.Files[j].Path
	})
	if len(out.Files) > fuzzyLimit {
		out.Files = out.Files[:fuzzyLimit]
	}
	return out
}

func fuzzyScore(s, q string) (uint32, []uint32, bool) {
	var idx []uint32
	score := uint32(0)
	qi := 0
	prev := -2
	for i := 0; i < len(s) && qi < len(q); i++ {
		if s[i] != q[qi] {
			continue
		}
		score += 1
		if i == prev+1 {
			score += 5
		}
		if i == 0 || strings.ContainsRune("/_-. ", rune(s[i-1])) {
			score += 3
		}
		idx = append(idx, uint32(i))
		prev = i
		qi++
	}
	if qi < len(q) {
		return 0, nil, false
	}
	// Shorter paths with the same matches rank higher.
	if l := uint32(len(s)); l < 200 {
		score += (200 - l) / 20
	}
	return score, idx, true
}
