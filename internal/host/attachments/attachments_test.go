package attachments

import (
	"testing"

	"github.com/gocodex/gocodex/internal/host/ext"
)

// Adding an attachment twice keeps one; a fork gets its source's as new ones; a deleted
// thread's go.
func TestAttachmentsForkAndDelete(t *testing.T) {
	e := New()
	set, err := ext.New(ext.Options{CodexHome: t.TempDir()}, e)
	if err != nil {
		t.Fatal(err)
	}
	a, created, err := e.Add("src", "file", "/x", nil)
	if err != nil || !created {
		t.Fatalf("add = %v %v", created, err)
	}
	if again, created, _ := e.Add("src", "file", "/x", []byte(`1`)); created || again.ID != a.ID {
		t.Errorf("second add created %v (id %s, first %s)", created, again.ID, a.ID)
	}
	set.ThreadForked("src", "fork")
	page, _, _ := e.List("fork", nil, 0)
	if len(page) != 1 || page[0].ID == a.ID || page[0].IdentityKey != "/x" || string(page[0].Payload) != "null" {
		t.Errorf("fork's attachments = %+v", page)
	}
	if owners, _ := e.Owners("file", "/x"); len(owners) != 2 {
		t.Errorf("owners = %v", owners)
	}
	set.ThreadDeleted("src")
	if owners, _ := e.Owners("file", "/x"); len(owners) != 1 || owners[0] != "fork" {
		t.Errorf("owners after deleting src = %v", owners)
	}
}
