package appserver

import (
	"context"

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

// ThreadAttachmentAdd answers thread/attachment/add.
func (a *api) ThreadAttachmentAdd(ctx context.Context, c *Conn, p ThreadAttachmentAddParams) (ThreadAttachmentAddResponse, error) {
	r := a.r
	if err := attachments.CheckKey(p.AttachmentType, p.IdentityKey); err != nil {
		return ThreadAttachmentAddResponse{}, err
	}
	if err := r.threadExists(p.ThreadID); err != nil {
		return ThreadAttachmentAddResponse{}, asInvalidParams(err)
	}
	att, created, err := r.attachments().Add(p.ThreadID, p.AttachmentType, p.IdentityKey, p.Payload)
	if err != nil {
		return ThreadAttachmentAddResponse{}, err
	}
	out := ThreadAttachmentAddResponse{Outcome: "existing", Attachment: att}
	if created {
		out.Outcome = "created"
		r.notifyAll(ctx, c, "thread/attachment/updated", ThreadAttachmentUpdatedNotification{p.ThreadID, p.AttachmentType, p.IdentityKey, att.ID, "created"})
	}
	return out, nil
}

// ThreadAttachmentRemove answers thread/attachment/remove.
func (a *api) ThreadAttachmentRemove(ctx context.Context, c *Conn, p ThreadAttachmentRemoveParams) (ThreadAttachmentRemoveResponse, error) {
	r := a.r
	if err := attachments.CheckKey(p.AttachmentType, p.IdentityKey); err != nil {
		return ThreadAttachmentRemoveResponse{}, err
	}
	if err := r.threadExists(p.ThreadID); err != nil {
		return ThreadAttachmentRemoveResponse{}, asInvalidParams(err)
	}
	removed, err := r.attachments().Remove(p.ThreadID, p.AttachmentType, p.IdentityKey)
	if err != nil {
		return ThreadAttachmentRemoveResponse{}, err
	}
	if removed != "" {
		r.notifyAll(ctx, c, "thread/attachment/updated", ThreadAttachmentUpdatedNotification{p.ThreadID, p.AttachmentType, p.IdentityKey, removed, "deleted"})
	}
	return ThreadAttachmentRemoveResponse{}, nil
}

// ThreadAttachmentList answers thread/attachment/list.
func (a *api) ThreadAttachmentList(ctx context.Context, c *Conn, p ThreadAttachmentListParams) (ThreadAttachmentListResponse, error) {
	limit := 0
	if p.Limit != nil {
		limit = int(*p.Limit)
	}
	page, next, err := a.r.attachments().List(p.ThreadID, p.Cursor, limit)
	if err != nil {
		return ThreadAttachmentListResponse{}, err
	}
	return ThreadAttachmentListResponse{Data: page, NextCursor: next}, nil
}

// ThreadAttachmentOwnerList answers thread/attachmentOwner/list: the threads holding an
// attachment, archived or not unless archived says which. Pages by thread id.
func (a *api) ThreadAttachmentOwnerList(ctx context.Context, c *Conn, p ThreadAttachmentOwnerListParams) (ThreadAttachmentOwnerListResponse, error) {
	r := a.r
	if err := attachments.CheckKey(p.AttachmentType, p.IdentityKey); err != nil {
		return ThreadAttachmentOwnerListResponse{}, err
	}
	ids, err := r.attachments().Owners(p.AttachmentType, p.IdentityKey)
	if err != nil {
		return ThreadAttachmentOwnerListResponse{}, err
	}
	// archived absent lists every owner; true or false only those archived or live.
	out := ThreadAttachmentOwnerListResponse{Data: []ThreadAttachmentOwner{}}
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
		out.Data = append(out.Data, ThreadAttachmentOwner{ThreadID: id, Archived: archived})
	}
	return out, nil
}
