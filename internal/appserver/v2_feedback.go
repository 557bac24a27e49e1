package appserver

import (
	"archive/zip"
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/google/uuid"

	"github.com/gocodex/gocodex/internal/auth"
	threadsvc "github.com/gocodex/gocodex/internal/host/threads"
	"github.com/gocodex/gocodex/internal/logging"
	"github.com/gocodex/gocodex/internal/version"
)

// feedback/save writes a feedback report as Codex 0.169 does: a zip holding report.json (the
// event Codex would send), manifest.json and, with includeLogs, the server's log and any
// extra files as attachments. feedback/upload posts the same zip to the collector named in
// GOCODEX_FEEDBACK_URL (Codex sends it to OpenAI's error tracker, which is not gocodex's to
// report to); without one it answers an error pointing to feedback/save.

// maxFeedbackLog is how much of the end of the log a report carries.
const maxFeedbackLog = 1 << 20

type feedbackAttachment struct {
	Entry       string `json:"entry"`
	Filename    string `json:"filename"`
	ContentType string `json:"contentType"`
	path        string
	tail        bool
}

// feedbackURLEnv names the collector feedback/upload posts reports to. Codex sends them to
// OpenAI's error tracker; gocodex sends them nowhere unless told where.
const feedbackURLEnv = "GOCODEX_FEEDBACK_URL"

// feedbackAttachments are the files a report carries: with includeLogs, the end of the
// app-server's log and the extra files named.
func feedbackAttachments(s *Server, includeLogs *bool, extraLogFiles []string) []feedbackAttachment {
	var atts []feedbackAttachment
	if includeLogs == nil || !*includeLogs {
		return nil
	}
	if s.opts.Config != nil && s.opts.Config.LogDir != "" {
		if name, err := logging.FileName("app-server"); err == nil {
			if path := filepath.Join(s.opts.Config.LogDir, name); isFile(path) {
				atts = append(atts, feedbackAttachment{Filename: "codex-logs.log", ContentType: "text/plain", path: path, tail: true})
			}
		}
	}
	for _, f := range extraLogFiles {
		atts = append(atts, feedbackAttachment{Filename: filepath.Base(f), ContentType: contentTypeOf(f), path: f})
	}
	for i := range atts {
		atts[i].Entry = fmt.Sprintf("attachments/%04d/%s", i, atts[i].Filename)
	}
	return atts
}

// postFeedback sends the report's zip to target in one POST (application/zip).
func postFeedback(ctx context.Context, s *Server, target, zipPath string) error {
	body, err := os.Open(zipPath)
	if err != nil {
		return err
	}
	defer body.Close()
	ctx, cancel := context.WithTimeout(ctx, backendTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/zip")
	hc, _ := auth.HTTPClient(s.opts.Getenv)
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s answered %s", target, resp.Status)
	}
	return nil
}

func contentTypeOf(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".json":
		return "application/json"
	case ".toml":
		return "text/x-toml"
	}
	return "text/plain"
}

// feedbackReport is the event Codex would send, in the shape of its report.json.
func feedbackReport(classification string, reason *string, threadID string, extra map[string]string, hash *string) map[string]any {
	title := "[" + feedbackTitle(classification) + "]: Codex session " + threadID
	tags := map[string]string{"classification": classification, "cli_version": version.CodexProtocol, "gocodex_version": version.Version,
		"session_source": "vscode", "thread_id": threadID}
	value := title
	if reason != nil && *reason != "" {
		tags["reason"] = *reason
		value = *reason
	}
	if hash != nil {
		tags["prompt_hash"] = *hash
	}
	for k, v := range extra {
		if _, taken := tags[k]; !taken {
			tags[k] = v
		}
	}
	now := time.Now()
	return map[string]any{
		"event_id":  strings.ReplaceAll(uuid.NewString(), "-", ""),
		"message":   title,
		"timestamp": float64(now.UnixNano()) / 1e9,
		"exception": map[string]any{"values": []any{map[string]any{"type": title, "value": value}}},
		"tags":      tags,
	}
}

// promptHash is Codex's prompt_hash of a thread: the SHA-256 of its base instructions with
// whitespace runs made single spaces, from its rollout's session_meta line; nil when the
// thread has no rollout yet or it names no instructions.
func promptHash(codexHome, threadID string) *string {
	path, _, err := threadsvc.New(codexHome).Find(threadID)
	if err != nil {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 16<<20)
	for i := 0; i < 8 && sc.Scan(); i++ {
		var line struct {
			Type    string `json:"type"`
			Payload struct {
				BaseInstructions *threadsvc.BaseInstructions `json:"base_instructions"`
			} `json:"payload"`
		}
		if json.Unmarshal(sc.Bytes(), &line) != nil || line.Type != "session_meta" {
			continue
		}
		if line.Payload.BaseInstructions == nil || line.Payload.BaseInstructions.Text == "" {
			return nil
		}
		sum := sha256.Sum256([]byte(strings.Join(strings.Fields(line.Payload.BaseInstructions.Text), " ")))
		h := hex.EncodeToString(sum[:])
		return &h
	}
	return nil
}

func feedbackTitle(classification string) string {
	switch classification {
	case "bug":
		return "Bug"
	case "bad_result":
		return "Bad result"
	case "good_result":
		return "Good result"
	case "safety_check":
		return "Safety check"
	}
	return "Other"
}

// writeFeedbackZip writes the zip next to path and renames it into place, so a failure
// leaves no half-written report.
func writeFeedbackZip(path string, report map[string]any, atts []feedbackAttachment) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".feedback-*.zip")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	zw := zip.NewWriter(tmp)
	add := func(name string, body []byte) error {
		w, err := zw.Create(name)
		if err == nil {
			_, err = w.Write(body)
		}
		return err
	}
	rb, _ := json.Marshal(report)
	if err := add("report.json", rb); err != nil {
		tmp.Close()
		return err
	}
	for _, a := range atts {
		body, err := readAttachment(a)
		if err != nil {
			tmp.Close()
			return fmt.Errorf("%s: %w", a.path, err)
		}
		if err := add(a.Entry, body); err != nil {
			tmp.Close()
			return err
		}
	}
	manifest := atts
	if manifest == nil {
		manifest = []feedbackAttachment{}
	}
	mb, _ := json.Marshal(manifest)
	if err := add("manifest.json", mb); err != nil {
		tmp.Close()
		return err
	}
	if err := zw.Close(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// readAttachment reads a file, only the end of a log.
func readAttachment(a feedbackAttachment) ([]byte, error) {
	f, err := os.Open(a.path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if a.tail {
		if fi, err := f.Stat(); err == nil && fi.Size() > maxFeedbackLog {
			if _, err := f.Seek(fi.Size()-maxFeedbackLog, io.SeekStart); err != nil {
				return nil, err
			}
		}
	}
	return io.ReadAll(io.LimitReader(f, 16*maxFeedbackLog))
}

// FeedbackSave answers feedback/save.
func (a *api) FeedbackSave(ctx context.Context, c *Conn, p FeedbackSaveParams) (FeedbackSaveResponse, error) {
	s := a.s
	if !filepath.IsAbs(string(p.SavePath)) {
		return FeedbackSaveResponse{}, InvalidRequest("feedback savePath must be an absolute host path")
	}
	threadID := "no-active-thread-" + newSubmissionID()
	if p.ThreadID != nil && *p.ThreadID != "" {
		threadID = *p.ThreadID
	}
	atts := feedbackAttachments(s, p.IncludeLogs, p.ExtraLogFiles)
	var hash *string
	if p.ThreadID != nil && *p.ThreadID != "" {
		hash = promptHash(codexHome(s), threadID)
	}
	report := feedbackReport(p.Classification, p.Reason, threadID, p.Tags, hash)
	if err := writeFeedbackZip(string(p.SavePath), report, atts); err != nil {
		return FeedbackSaveResponse{}, internalError("failed to save feedback: " + err.Error())
	}
	return FeedbackSaveResponse{PromptHash: hash, SavedPath: p.SavePath, ThreadID: threadID}, nil
}

// FeedbackUpload answers feedback/upload.
func (a *api) FeedbackUpload(ctx context.Context, c *Conn, p FeedbackUploadParams) (FeedbackUploadResponse, error) {
	s := a.s
	target := s.opts.Getenv(feedbackURLEnv)
	if target == "" {
		return FeedbackUploadResponse{}, internalError("failed to upload feedback: gocodex sends feedback only to a collector you name in " + feedbackURLEnv + "; none is set (feedback/save writes the report to a file)")
	}
	threadID := "no-active-thread-" + newSubmissionID()
	var hash *string
	if p.ThreadID != nil && *p.ThreadID != "" {
		threadID = *p.ThreadID
		hash = promptHash(codexHome(s), threadID)
	}
	atts := feedbackAttachments(s, p.IncludeLogs, p.ExtraLogFiles)
	dir, err := os.MkdirTemp("", "gocodex-feedback-")
	if err != nil {
		return FeedbackUploadResponse{}, internalError("failed to upload feedback: " + err.Error())
	}
	defer os.RemoveAll(dir)
	zipPath := filepath.Join(dir, "feedback.zip")
	if err := writeFeedbackZip(zipPath, feedbackReport(p.Classification, p.Reason, threadID, p.Tags, hash), atts); err != nil {
		return FeedbackUploadResponse{}, internalError("failed to upload feedback: " + err.Error())
	}
	if err := postFeedback(ctx, s, target, zipPath); err != nil {
		return FeedbackUploadResponse{}, internalError("failed to upload feedback: " + err.Error())
	}
	return FeedbackUploadResponse{PromptHash: hash, ThreadID: threadID}, nil
}
