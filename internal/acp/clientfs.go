package acp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gocodex/gocodex/internal/items"
	"github.com/gocodex/gocodex/protocol"
)

// The client's file system (fs/read_text_file, fs/write_text_file), when it offers it: the
// text an edit is shown against is the editor's buffer, unsaved changes included, and the
// files a patch wrote are handed to the editor, so they land in its buffers and undo history.
// The engine still applies every patch itself, inside the sandbox, which decides what may be
// written; the client only sees the result.

// clientFSTimeout bounds one file request to the client: the session's events wait for it.
const clientFSTimeout = 10 * time.Second

type readTextParams struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
}

type writeTextParams struct {
	SessionID string `json:"sessionId"`
	Path      string `json:"path"`
	Content   string `json:"content"`
}

// readText reads a file to show: through the client when it offers fs.readTextFile, else from
// the disk.
func (ss *session) readText(ctx context.Context, path string) (string, error) {
	if !ss.srv.clientCaps().FS.ReadTextFile {
		b, err := os.ReadFile(path)
		return string(b), err
	}
	ctx, cancel := context.WithTimeout(ctx, clientFSTimeout)
	defer cancel()
	raw, err := ss.srv.conn.Call(ctx, "fs/read_text_file", readTextParams{SessionID: ss.id, Path: path})
	if err != nil {
		return "", fmt.Errorf("the client could not read %s: %w", path, err)
	}
	var r struct {
		Content string `json:"content"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return "", fmt.Errorf("fs/read_text_file %s: %w", path, err)
	}
	return r.Content, nil
}

// handWrites gives the client the files a successful patch wrote, when it offers
// fs.writeTextFile. A failure is logged: the file on disk is right, only the editor's buffer
// lags until it reloads.
func (ss *session) handWrites(ctx context.Context, p *items.Patch) {
	if !ss.srv.clientCaps().FS.WriteTextFile || !p.Success {
		return
	}
	changes := p.Changes
	if len(p.Reported) > 0 {
		changes = p.Reported
	}
	for path, fc := range changes {
		if fc.Kind == protocol.FileDelete {
			continue
		}
		if fc.MovePath != nil {
			path = *fc.MovePath
		}
		if !filepath.IsAbs(path) {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			ss.srv.opts.Logger.Warn("acp: read a patched file", "path", path, "err", err)
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, clientFSTimeout)
		_, err = ss.srv.conn.Call(cctx, "fs/write_text_file", writeTextParams{SessionID: ss.id, Path: path, Content: string(b)})
		cancel()
		if err != nil {
			ss.srv.opts.Logger.Warn("acp: fs/write_text_file", "path", path, "err", err)
		}
	}
}
