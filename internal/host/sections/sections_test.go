package sections

import (
	"reflect"
	"testing"

	"github.com/gocodex/gocodex/internal/host/ext"
)

// A section orders its threads as they were moved (before another, or last); deleting a
// thread or its section takes it out, and the "Pinned" section is there from the start.
func TestSectionOrderAndForgetting(t *testing.T) {
	e := New()
	set, err := ext.New(ext.Options{CodexHome: t.TempDir()}, e)
	if err != nil {
		t.Fatal(err)
	}
	all, _ := e.List()
	if len(all) != 1 || all[0].ID != PinnedID {
		t.Fatalf("initial sections = %+v", all)
	}
	sec, err := e.Create("work", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"a", "b"} {
		if err := e.Move(id, &sec.ID, nil); err != nil {
			t.Fatal(err)
		}
	}
	before := "a"
	if err := e.Move("c", &sec.ID, &before); err != nil {
		t.Fatal(err)
	}
	if order, _ := e.Order(sec.ID); !reflect.DeepEqual(order, []string{"c", "a", "b"}) {
		t.Errorf("order = %v, want c a b", order)
	}
	if err := e.Move("d", &sec.ID, &before); err != nil {
		t.Fatal(err)
	}
	bad := "nope"
	if err := e.Move("d", &bad, nil); err == nil {
		t.Errorf("moved into an unknown section")
	}
	set.ThreadDeleted("a")
	if order, _ := e.Order(sec.ID); !reflect.DeepEqual(order, []string{"c", "d", "b"}) {
		t.Errorf("order after deleting a = %v, want c d b", order)
	}
	if err := e.Delete(sec.ID); err != nil {
		t.Fatal(err)
	}
	if pl, _ := e.Placements("b", "c"); len(pl) != 0 {
		t.Errorf("threads still placed in a deleted section: %+v", pl)
	}
}
