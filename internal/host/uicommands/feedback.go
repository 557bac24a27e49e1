package uicommands

import (
	"archive/zip"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/gocodex/gocodex/internal/host/threads"
)

// maxLogBytes is how much of each log file's end the ZIP keeps.
const maxLogBytes = 4 << 20

// Feedback is what /feedback saves: the person's classification and note, and with
// IncludeLogs the face logs under LogDir and the thread's rollout.
type Feedback struct {
	CodexHome, LogDir string
	ThreadID          string
	Classification    string
	Note              string
	Version           string
	IncludeLogs       bool
	Now               time.Time
}

type manifestEntry struct {
	Entry       string `json:"entry"`
	Filename    string `json:"filename"`
	ContentType string `json:"contentType"`
}

// SaveFeedbackZIP writes the feedback as CODEX_HOME/feedback/codex-diagnostics-<time>-<id>.zip
// (Codex's folder and name) and returns its path. There is no upload: the ZIP is the report.
// The file appears whole or not at all.
func SaveFeedbackZIP(f Feedback) (string, error) {
	dir := filepath.Join(f.CodexHome, "feedback")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("feedback folder: %w", err)
	}
	id := make([]byte, 4)
	if _, err := rand.Read(id); err != nil {
		return "", err
	}
	name := fmt.Sprintf("codex-diagnostics-%s-%s.zip", f.Now.UTC().Format("2006-01-02T15-04-05Z"), hex.EncodeToString(id))
	tmp, err := os.CreateTemp(dir, ".feedback-*.zip")
	if err != nil {
		return "", fmt.Errorf("feedback ZIP: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename there is nothing left to remove
	if err := writeFeedback(tmp, f); err != nil {
		tmp.Close()
		return "", fmt.Errorf("feedback ZIP: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return "", fmt.Errorf("feedback ZIP: %w", err)
	}
	path := filepath.Join(dir, name)
	if err := os.Rename(tmp.Name(), path); err != nil {
		return "", fmt.Errorf("feedback ZIP: %w", err)
	}
	return path, nil
}

func writeFeedback(w io.Writer, f Feedback) error {
	zw := zip.NewWriter(w)
	var manifest []manifestEntry
	attach := func(filename, contentType string, src func(io.Writer) error) error {
		entry := fmt.Sprintf("attachments/%04d/%s", len(manifest), filename)
		ew, err := zw.CreateHeader(&zip.FileHeader{Name: entry, Method: zip.Deflate, Modified: f.Now})
		if err != nil {
			return err
		}
		if err := src(ew); err != nil {
			return err
		}
		manifest = append(manifest, manifestEntry{Entry: entry, Filename: filename, ContentType: contentType})
		return nil
	}
	if f.IncludeLogs {
		logs, _ := filepath.Glob(filepath.Join(f.LogDir, "*.log"))
		sort.Strings(logs)
		for _, l := range logs {
			if err := attach(filepath.Base(l), "text/plain", func(w io.Writer) error { return copyTail(w, l) }); err != nil {
				return err
			}
		}
		if f.ThreadID != "" {
			if path, _, err := threads.New(f.CodexHome).Find(f.ThreadID); err == nil {
				if err := attach(filepath.Base(path), "application/jsonl", func(w io.Writer) error { return copyTail(w, path) }); err != nil {
					return err
				}
			}
		}
	}
	report := map[string]any{
		"message":   fmt.Sprintf("[%s]: Codex session %s", f.Classification, f.ThreadID),
		"timestamp": float64(f.Now.UnixMilli()) / 1000,
		"tags": map[string]string{"classification": f.Classification, "cli_version": f.Version,
			"reason": f.Note, "thread_id": f.ThreadID, "include_logs": fmt.Sprint(f.IncludeLogs)},
	}
	if err := writeJSON(zw, "report.json", f.Now, report); err != nil {
		return err
	}
	if manifest == nil {
		manifest = []manifestEntry{}
	}
	if err := writeJSON(zw, "manifest.json", f.Now, manifest); err != nil {
		return err
	}
	return zw.Close()
}

func writeJSON(zw *zip.Writer, name string, at time.Time, v any) error {
	w, err := zw.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Deflate, Modified: at})
	if err != nil {
		return err
	}
	return json.NewEncoder(w).Encode(v)
}

// copyTail copies the last maxLogBytes of the file.
func copyTail(w io.Writer, path string) error {
	file, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return err
	}
	defer file.Close()
	if st, err := file.Stat(); err == nil && st.Size() > maxLogBytes {
		if _, err := file.Seek(st.Size()-maxLogBytes, io.SeekStart); err != nil {
			return err
		}
	}
	_, err = io.Copy(w, file)
	return err
}
