package appserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Thread attachments (thread/attachment/*, thread/attachmentOwner/list), as Codex 0.169
// answers them: an attachment is keyed by (type, identity key) within a thread; adding one
// that exists answers it with outcome "existing" and changes nothing; adding and removing
// tell every connection thread/attachment/updated. Listing a thread that does not exist
// answers an empty page, as Codex does.

type v2ThreadAttachment struct {
	ID             string          `json:"id"`
	AttachmentType string          `json:"attachmentType"`
	IdentityKey    string          `json:"identityKey"`
	Payload        json.RawMessage `json:"payload"`
	CreatedAt      int64           `json:"createdAt"`
}

type attachmentAddParams struct {
	ThreadID       string          `json:"threadId"`
	AttachmentType string          `json:"attachmentType"`
	IdentityKey    string          `json:"identityKey"`
	Payload        json.RawMessage `json:"payload"`
}

type attachmentAddResponse struct {
	Outcome    string             `json:"outcome"`
	Attachment v2ThreadAttachment `json:"attachment"`
}

type attachmentRemoveParams struct {
	ThreadID       string `json:"threadId"`
	AttachmentType string `json:"attachmentType"`
	IdentityKey    string `json:"identityKey"`
}

type attachmentListParams struct {
	ThreadID string  `json:"threadId"`
	Cursor   *string `json:"cursor"`
	Limit    *uint32 `json:"limit"`
}

type attachmentListResponse struct {
	Data       []v2ThreadAttachment `json:"data"`
	NextCursor *string              `json:"nextCursor"`
}

type attachmentOwnerListParams struct {
	AttachmentType string  `json:"attachmentType"`
	IdentityKey    string  `json:"identityKey"`
	Archived       *bool   `json:"archived"`
	Cursor         *string `json:"cursor"`
	Limit          *uint32 `json:"limit"`
}

type attachmentOwner struct {
	ThreadID string `json:"threadId"`
	Archived bool   `json:"archived"`
}

type attachmentOwnerListResponse struct {
	Data       []attachmentOwner `json:"data"`
	NextCursor *string           `json:"nextCursor"`
}

type attachmentUpdated struct {
	ThreadID       string `json:"threadId"`
	AttachmentType string `json:"attachmentType"`
	IdentityKey    string `json:"identityKey"`
	AttachmentID   string `json:"attachmentId"`
	Operation      string `json:"operation"`
}

func (r *threads) registerAttachments(s *Server) {
	s.Handle("thread/attachment/add", Typed(r.attachmentAdd))
	s.Handle("thread/attachment/remove", Typed(r.attachmentRemove))
	s.Handle("thread/attachment/list", Typed(r.attachmentList))
	s.Handle("thread/attachmentOwner/list", Typed(r.attachmentOwnerList))
}

// attachmentKeyErr checks type and identity key as Codex does (-32602).
func attachmentKeyErr(typ, key string) error {
	if strings.TrimSpace(typ) == "" {
		return invalidParamsBare("attachmentType must not be empty")
	}
	if strings.TrimSpace(key) == "" {
		return invalidParamsBare("identityKey must not be empty")
	}
	return nil
}

// asInvalidParams turns a thread lookup error into the -32602 Codex's attachment methods
// answer with.
func asInvalidParams(err error) error {
	if err == nil {
		return nil
	}
	return invalidParamsBare(errorMessage(err))
}

func (r *threads) attachmentAdd(ctx context.Context, c *Conn, p attachmentAddParams) (attachmentAddResponse, error) {
	if err := attachmentKeyErr(p.AttachmentType, p.IdentityKey); err != nil {
		return attachmentAddResponse{}, err
	}
	if err := r.threadExists(p.ThreadID); err != nil {
		return attachmentAddResponse{}, asInvalidParams(err)
	}
	payload := p.Payload
	if len(payload) == 0 {
		payload = json.RawMessage("null")
	}
	out := attachmentAddResponse{Outcome: "existing"}
	err := r.state().update(func(d *threadStateDoc) error {
		for _, a := range d.Attachments {
			if a.ThreadID == p.ThreadID && a.AttachmentType == p.AttachmentType && a.IdentityKey == p.IdentityKey {
				out.Attachment = a.v2ThreadAttachment
				return nil
			}
		}
		out.Outcome = "created"
		out.Attachment = v2ThreadAttachment{ID: newSubmissionID(), AttachmentType: p.AttachmentType, IdentityKey: p.IdentityKey,
			Payload: payload, CreatedAt: time.Now().Unix()}
		d.Attachments = append(d.Attachments, storedAttachment{ThreadID: p.ThreadID, v2ThreadAttachment: out.Attachment})
		return nil
	})
	if err != nil {
		return attachmentAddResponse{}, err
	}
	if out.Outcome == "created" {
		r.notifyAll(ctx, c, "thread/attachment/updated", attachmentUpdated{p.ThreadID, p.AttachmentType, p.IdentityKey, out.Attachment.ID, "created"})
	}
	return out, nil
}

func (r *threads) attachmentRemove(ctx context.Context, c *Conn, p attachmentRemoveParams) (empty, error) {
	if err := attachmentKeyErr(p.AttachmentType, p.IdentityKey); err != nil {
		return empty{}, err
	}
	if err := r.threadExists(p.ThreadID); err != nil {
		return empty{}, asInvalidParams(err)
	}
	var removed string
	err := r.state().update(func(d *threadStateDoc) error {
		for i, a := range d.Attachments {
			if a.ThreadID == p.ThreadID && a.AttachmentType == p.AttachmentType && a.IdentityKey == p.IdentityKey {
				removed = a.ID
				d.Attachments = append(d.Attachments[:i], d.Attachments[i+1:]...)
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return empty{}, err
	}
	if removed != "" {
		r.notifyAll(ctx, c, "thread/attachment/updated", attachmentUpdated{p.ThreadID, p.AttachmentType, p.IdentityKey, removed, "deleted"})
	}
	return empty{}, nil
}

// attachmentCursor is Codex's "<thread>|<createdAt>|<id>" of a page's last attachment.
func attachmentCursor(threadID string, a v2ThreadAttachment) string {
	return threadID + "|" + strconv.FormatInt(a.CreatedAt, 10) + "|" + a.ID
}

func (r *threads) attachmentList(ctx context.Context, c *Conn, p attachmentListParams) (attachmentListResponse, error) {
	var all []v2ThreadAttachment
	err := r.state().read(func(d *threadStateDoc) {
		for _, a := range d.Attachments {
			if a.ThreadID == p.ThreadID {
				all = append(all, a.v2ThreadAttachment)
			}
		}
	})
	if err != nil {
		return attachmentListResponse{}, err
	}
	if p.Cursor != nil {
		found := false
		for i, a := range all {
			if attachmentCursor(p.ThreadID, a) == *p.Cursor {
				all, found = all[i+1:], true
				break
			}
		}
		if !found {
			return attachmentListResponse{}, invalidParamsBare(fmt.Sprintf("invalid cursor: %s", *p.Cursor))
		}
	}
	out := attachmentListResponse{Data: all}
	if p.Limit != nil && *p.Limit > 0 && len(all) > int(*p.Limit) {
		out.Data = all[:*p.Limit]
		next := attachmentCursor(p.ThreadID, out.Data[len(out.Data)-1])
		out.NextCursor = &next
	}
	if out.Data == nil {
		out.Data = []v2ThreadAttachment{}
	}
	return out, nil
}

// attachmentOwnerList lists the threads holding an attachment, archived or not unless
// archived says which. Pages by thread id.
func (r *threads) attachmentOwnerList(ctx context.Context, c *Conn, p attachmentOwnerListParams) (attachmentOwnerListResponse, error) {
	if err := attachmentKeyErr(p.AttachmentType, p.IdentityKey); err != nil {
		return attachmentOwnerListResponse{}, err
	}
	var ids []string
	err := r.state().read(func(d *threadStateDoc) {
		for _, a := range d.Attachments {
			if a.AttachmentType == p.AttachmentType && a.IdentityKey == p.IdentityKey {
				ids = append(ids, a.ThreadID)
			}
		}
	})
	if err != nil {
		return attachmentOwnerListResponse{}, err
	}
	// archived absent lists every owner; true or false only those archived or live.
	out := attachmentOwnerListResponse{Data: []attachmentOwner{}}
	started := p.Cursor == nil
	for _, id := range ids {
		if !started {
			started = id == *p.Cursor
			continue
		}
		archived := false
		if _, ok := r.get(id); !ok {
			_, a, err := findRollout(codexHome(r.srv), id)
			if err != nil {
				continue // the thread is gone (deleted)
			}
			archived = a
		}
		if p.Archived != nil && archived != *p.Archived {
			continue
		}
		if p.Limit != nil && *p.Limit > 0 && len(out.Data) == int(*p.Limit) {
			next := out.Data[len(out.Data)-1].ThreadID
			out.NextCursor = &next
			break
		}
		out.Data = append(out.Data, attachmentOwner{ThreadID: id, Archived: archived})
	}
	return out, nil
}
