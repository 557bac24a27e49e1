// Package attachments is the host extension that keeps thread attachments, as Codex 0.169
// does: an attachment is keyed by (type, identity key) within a thread; adding one that
// exists answers it and changes nothing; a fork gets its source's attachments as new ones.
// Kept in the thread state file (attachments).
package attachments

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gocodex/gocodex/internal/host/ext"
	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// Name is the extension's name.
const Name = "attachments"

// Attachment is Codex's ThreadAttachment.
type Attachment struct {
	ID             string          `json:"id"`
	AttachmentType string          `json:"attachmentType"`
	IdentityKey    string          `json:"identityKey"`
	Payload        json.RawMessage `json:"payload"`
	CreatedAt      int64           `json:"createdAt"`
}

type stored struct {
	ThreadID string `json:"threadId"`
	Attachment
}

// state is the extension's part of the thread state file.
type state struct {
	Attachments []stored `json:"attachments,omitempty"`
}

// Extension keeps the attachments.
type Extension struct {
	ext.Stateful[state]
}

// New is the extension, ready for ext.New.
func New() *Extension { return &Extension{} }

func (e *Extension) Name() string { return Name }

// Init adds the attachments to the thread state file: a fork copies its source's, a
// deleted thread's go.
func (e *Extension) Init(h ext.Host) error {
	e.Keep(h, nil)
	h.Hooks().ThreadForked = append(h.Hooks().ThreadForked, e.copyToFork)
	h.Hooks().ThreadDeleted = append(h.Hooks().ThreadDeleted, e.forget)
	return nil
}

func invalidParamsBare(msg string) *jsonrpc.Error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: msg}
}

// CheckKey checks type and identity key as Codex does (-32602).
func CheckKey(typ, key string) error {
	if strings.TrimSpace(typ) == "" {
		return invalidParamsBare("attachmentType must not be empty")
	}
	if strings.TrimSpace(key) == "" {
		return invalidParamsBare("identityKey must not be empty")
	}
	return nil
}

// Add adds an attachment to a thread unless it has it; created says which.
func (e *Extension) Add(threadID, typ, key string, payload json.RawMessage) (a Attachment, created bool, err error) {
	if len(payload) == 0 {
		payload = json.RawMessage("null")
	}
	err = e.Part.Update(func(s *state) error {
		for _, st := range s.Attachments {
			if st.ThreadID == threadID && st.AttachmentType == typ && st.IdentityKey == key {
				a = st.Attachment
				return nil
			}
		}
		created = true
		a = Attachment{ID: ext.NewID(), AttachmentType: typ, IdentityKey: key, Payload: payload, CreatedAt: time.Now().Unix()}
		s.Attachments = append(s.Attachments, stored{ThreadID: threadID, Attachment: a})
		return nil
	})
	return a, created, err
}

// Remove removes a thread's attachment; removedID is empty when it had none.
func (e *Extension) Remove(threadID, typ, key string) (removedID string, err error) {
	err = e.Part.Update(func(s *state) error {
		for i, st := range s.Attachments {
			if st.ThreadID == threadID && st.AttachmentType == typ && st.IdentityKey == key {
				removedID = st.ID
				s.Attachments = append(s.Attachments[:i], s.Attachments[i+1:]...)
				return nil
			}
		}
		return nil
	})
	return removedID, err
}

// cursor is Codex's "<thread>|<createdAt>|<id>" of a page's last attachment.
func cursor(threadID string, a Attachment) string {
	return threadID + "|" + strconv.FormatInt(a.CreatedAt, 10) + "|" + a.ID
}

// List is a page of a thread's attachments after cursor (nil: from the first), at most
// limit (0: all); next is the cursor of the page after, if any.
func (e *Extension) List(threadID string, after *string, limit int) (page []Attachment, next *string, err error) {
	var all []Attachment
	err = e.Part.Read(func(s *state) {
		for _, st := range s.Attachments {
			if st.ThreadID == threadID {
				all = append(all, st.Attachment)
			}
		}
	})
	if err != nil {
		return nil, nil, err
	}
	if after != nil {
		found := false
		for i, a := range all {
			if cursor(threadID, a) == *after {
				all, found = all[i+1:], true
				break
			}
		}
		if !found {
			return nil, nil, invalidParamsBare(fmt.Sprintf("invalid cursor: %s", *after))
		}
	}
	page = all
	if limit > 0 && len(all) > limit {
		page = all[:limit]
		c := cursor(threadID, page[len(page)-1])
		next = &c
	}
	if page == nil {
		page = []Attachment{}
	}
	return page, next, nil
}

// Owners are the threads holding an attachment, in the order they got it.
func (e *Extension) Owners(typ, key string) ([]string, error) {
	var ids []string
	err := e.Part.Read(func(s *state) {
		for _, st := range s.Attachments {
			if st.AttachmentType == typ && st.IdentityKey == key {
				ids = append(ids, st.ThreadID)
			}
		}
	})
	return ids, err
}

// copyToFork gives a fork its source's attachments, as new ones (Codex 0.169 copies
// attachments to a fork, not its goal or section).
func (e *Extension) copyToFork(from, to string) {
	e.UpdateOrWarn("attachments not copied to the fork", to, func(s *state) error {
		now := time.Now().Unix()
		for _, st := range s.Attachments {
			if st.ThreadID == from {
				c := st
				c.ThreadID, c.ID, c.CreatedAt = to, ext.NewID(), now
				s.Attachments = append(s.Attachments, c)
			}
		}
		return nil
	})
}

func (e *Extension) forget(id string) {
	e.UpdateOrWarn("attachments not cleaned after delete", id, func(s *state) error {
		kept := s.Attachments[:0]
		for _, st := range s.Attachments {
			if st.ThreadID != id {
				kept = append(kept, st)
			}
		}
		s.Attachments = kept
		return nil
	})
}
