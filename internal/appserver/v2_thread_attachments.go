package appserver

import (
	"context"
	"encoding/json"

	"github.com/gocodex/gocodex/internal/host/attachments"
	"github.com/gocodex/gocodex/internal/host/ext"
	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// Thread attachments (thread/attachment/*, thread/attachmentOwner/list) are kept by the
// host's attachments extension (internal/host/attachments). As in Codex 0.169, adding one
// that exists answers it with outcome "existing"; adding and removing tell every
// connection thread/attachment/updated; listing a thread that does not exist answers an
// empty page.

type v2ThreadAttachment = attachments.Attachment

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

// attachments is the host's attachments extension.
func (r *threads) attachments() *attachments.Extension {
	e, _ := ext.Find[*attachments.Extension](r.extensions())
	return e
}

// asInvalidParams turns a thread lookup error into the -32602 Codex's attachment methods
// answer with.
func asInvalidParams(err error) error {
	if err == nil {
		return nil
	}
	if e, ok := err.(*jsonrpc.Error); ok {
		return invalidParamsBare(e.Message)
	}
	return invalidParamsBare(err.Error())
}

func (r *threads) attachmentAdd(ctx context.Context, c *Conn, p attachmentAddParams) (attachmentAddResponse, error) {
	if err := attachments.CheckKey(p.AttachmentType, p.IdentityKey); err != nil {
		return attachmentAddResponse{}, err
	}
	if err := r.threadExists(p.ThreadID); err != nil {
		return attachmentAddResponse{}, asInvalidParams(err)
	}
	a, created, err := r.attachments().Add(p.ThreadID, p.AttachmentType, p.IdentityKey, p.Payload)
	if err != nil {
		return attachmentAddResponse{}, err
	}
	out := attachmentAddResponse{Outcome: "existing", Attachment: a}
	if created {
		out.Outcome = "created"
		r.notifyAll(ctx, c, "thread/attachment/updated", attachmentUpdated{p.ThreadID, p.AttachmentType, p.IdentityKey, a.ID, "created"})
	}
	return out, nil
}

func (r *threads) attachmentRemove(ctx context.Context, c *Conn, p attachmentRemoveParams) (empty, error) {
	if err := attachments.CheckKey(p.AttachmentType, p.IdentityKey); err != nil {
		return empty{}, err
	}
	if err := r.threadExists(p.ThreadID); err != nil {
		return empty{}, asInvalidParams(err)
	}
	removed, err := r.attachments().Remove(p.ThreadID, p.AttachmentType, p.IdentityKey)
	if err != nil {
		return empty{}, err
	}
	if removed != "" {
		r.notifyAll(ctx, c, "thread/attachment/updated", attachmentUpdated{p.ThreadID, p.AttachmentType, p.IdentityKey, removed, "deleted"})
	}
	return empty{}, nil
}

func (r *threads) attachmentList(ctx context.Context, c *Conn, p attachmentListParams) (attachmentListResponse, error) {
	limit := 0
	if p.Limit != nil {
		limit = int(*p.Limit)
	}
	page, next, err := r.attachments().List(p.ThreadID, p.Cursor, limit)
	if err != nil {
		return attachmentListResponse{}, err
	}
	return attachmentListResponse{Data: page, NextCursor: next}, nil
}

// attachmentOwnerList lists the threads holding an attachment, archived or not unless
// archived says which. Pages by thread id.
func (r *threads) attachmentOwnerList(ctx context.Context, c *Conn, p attachmentOwnerListParams) (attachmentOwnerListResponse, error) {
	if err := attachments.CheckKey(p.AttachmentType, p.IdentityKey); err != nil {
		return attachmentOwnerListResponse{}, err
	}
	ids, err := r.attachments().Owners(p.AttachmentType, p.IdentityKey)
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
