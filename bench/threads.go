package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"
)

// The list and resume workloads start from a rollout the subject itself wrote (one exec turn),
// so each binary reads files in the form it writes, and multiply it.

// templateRollout runs one exec turn in a fresh CODEX_HOME and returns the rollout written.
func templateRollout(b *Bench, s Subject, sb Sandbox) (path string, id string, err error) {
	if _, _, err := runOnce(sb, execTimeout, s.Bin, append(append([]string(nil), execArgs...), "hi")...); err != nil {
		return "", "", err
	}
	var found []string
	filepath.WalkDir(filepath.Join(sb.CodexHome, "sessions"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".jsonl") {
			found = append(found, p)
		}
		return nil
	})
	if len(found) != 1 {
		return "", "", fmt.Errorf("%s: want one rollout after one exec turn, found %d", s.Name, len(found))
	}
	m := uuidRE.FindAllString(filepath.Base(found[0]), -1)
	if len(m) == 0 {
		return "", "", fmt.Errorf("%s: no thread id in %s", s.Name, found[0])
	}
	return found[0], m[len(m)-1], nil
}

var uuidRE = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)

// rolloutName is Codex's file layout: sessions/YYYY/MM/DD/rollout-YYYY-MM-DDThh-mm-ss-<id>.jsonl.
func rolloutName(home string, at time.Time, id string) string {
	return filepath.Join(home, "sessions", at.Format("2006/01/02"), "rollout-"+at.Format("2006-01-02T15-04-05")+"-"+id+".jsonl")
}

// prepareList writes b.Sizes.Rollouts copies of the subject's own rollout, each with a new
// thread id and an earlier time, into the sandbox's CODEX_HOME.
func prepareList(b *Bench, s Subject, sb Sandbox) error {
	if !onlyAgents(s) {
		return nil
	}
	tmpl, id, err := templateRollout(b, s, sb)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(tmpl)
	if err != nil {
		return err
	}
	if err := os.Remove(tmpl); err != nil {
		return err
	}
	now := time.Now().UTC().Truncate(time.Second)
	for i := 0; i < b.Sizes.Rollouts; i++ {
		nid := uuid.NewString()
		p := rolloutName(sb.CodexHome, now.Add(-time.Duration(i)*time.Minute), nid)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, bytes.ReplaceAll(data, []byte(id), []byte(nid)), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// runList spawns an app-server on the prepared CODEX_HOME and asks for the first page of
// threads: the time from the request to the reply.
func runList(b *Bench, s Subject, sb Sandbox) (Metrics, error) {
	if !onlyAgents(s) {
		return nil, errSkip
	}
	m, _, err := onAppServer(sb, s.Bin, nil, func(a *appServer) (Metrics, error) {
		t0 := time.Now()
		res, at, err := a.call("thread/list", map[string]any{"limit": 25, "sourceKinds": []string{"cli", "vscode", "exec", "appServer"}}, 2*time.Minute)
		if err != nil {
			return nil, err
		}
		var page struct {
			Data []json.RawMessage `json:"data"`
		}
		if err := json.Unmarshal(res, &page); err != nil {
			return nil, fmt.Errorf("thread/list: %v", err)
		}
		if len(page.Data) == 0 {
			return nil, fmt.Errorf("thread/list listed none of the %d threads: %s", b.Sizes.Rollouts, tail(res, 400))
		}
		return Metrics{"list_ms": ms(at.Sub(t0)), "listed": float64(len(page.Data))}, nil
	})
	return m, err
}

// resumeIDs remembers, per subject, the thread prepareResume made.
var resumeIDs = map[string]string{}

// prepareResume grows the subject's own one-turn rollout to b.Sizes.Items lines by repeating
// its turn (everything after the session header).
func prepareResume(b *Bench, s Subject, sb Sandbox) error {
	if !onlyAgents(s) {
		return nil
	}
	tmpl, id, err := templateRollout(b, s, sb)
	if err != nil {
		return err
	}
	data, err := os.ReadFile(tmpl)
	if err != nil {
		return err
	}
	lines := bytes.SplitAfter(bytes.TrimRight(data, "\n"), []byte("\n"))
	if len(lines) < 2 {
		return fmt.Errorf("%s: the rollout has %d lines", s.Name, len(lines))
	}
	header, turn := lines[0], lines[1:]
	if !bytes.HasSuffix(header, []byte("\n")) {
		header = append(header, '\n')
	}
	var out bytes.Buffer
	out.Write(header)
	for n := 0; n < b.Sizes.Items; {
		for _, l := range turn {
			out.Write(l)
			if !bytes.HasSuffix(l, []byte("\n")) {
				out.WriteByte('\n')
			}
			n++
		}
	}
	if err := os.WriteFile(tmpl, out.Bytes(), 0o644); err != nil {
		return err
	}
	resumeIDs[s.Name] = id
	return nil
}

// runResume spawns an app-server and resumes the long thread: the time from the request to
// the reply.
func runResume(b *Bench, s Subject, sb Sandbox) (Metrics, error) {
	if !onlyAgents(s) {
		return nil, errSkip
	}
	m, _, err := onAppServer(sb, s.Bin, nil, func(a *appServer) (Metrics, error) {
		t0 := time.Now()
		_, at, err := a.call("thread/resume", map[string]any{"threadId": resumeIDs[s.Name]}, 2*time.Minute)
		if err != nil {
			return nil, err
		}
		return Metrics{"resume_ms": ms(at.Sub(t0))}, nil
	})
	return m, err
}
