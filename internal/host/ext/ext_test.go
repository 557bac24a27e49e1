package ext

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/gocodex/gocodex/protocol"
	"github.com/gocodex/gocodex/tool"
)

// recorder is an extension that registers one of each hook and writes what it hears to a
// shared log.
type recorder struct {
	name string
	log  *[]string
	fail error
}

func (r *recorder) Name() string { return r.name }

func (r *recorder) Init(h Host) error {
	if r.fail != nil {
		return r.fail
	}
	hk := h.Hooks()
	hk.Tools = append(hk.Tools, func(enabled func(string, bool) bool) []tool.Handler {
		if !enabled(r.name, true) {
			return nil
		}
		return []tool.Handler{namedTool(r.name)}
	})
	hk.BeforeEvent = append(hk.BeforeEvent, func(t Thread, ev protocol.Event, turnID string) []Notice {
		*r.log = append(*r.log, r.name+" before "+turnID)
		return []Notice{{Method: r.name + "/before"}}
	})
	hk.TurnEnded = append(hk.TurnEnded, func(t Thread, tc protocol.TurnCompleteEvent) []Notice {
		return []Notice{{Method: r.name + "/ended", Params: tc.TurnID}}
	})
	hk.AfterEvent = append(hk.AfterEvent, func(t Thread, ev protocol.Event) { *r.log = append(*r.log, r.name+" after "+t.ID()) })
	hk.ThreadForked = append(hk.ThreadForked, func(from, to string) { *r.log = append(*r.log, r.name+" fork "+from+">"+to) })
	hk.ThreadDeleted = append(hk.ThreadDeleted, func(id string) { *r.log = append(*r.log, r.name+" delete "+id) })
	return nil
}

type namedTool string

func (n namedTool) Spec() tool.Spec { return tool.Spec(`{"name":"` + string(n) + `"}`) }
func (n namedTool) Handle(context.Context, *tool.Env, tool.Call) (tool.Result, error) {
	return tool.Result{}, nil
}

type thread struct{ id string }

func (t thread) ID() string                           { return t.id }
func (t thread) FeatureEnabled(n string, d bool) bool { return n != "off" }
func (t thread) Ephemeral() bool                      { return false }
func (t thread) Submit(protocol.Op) (string, error)   { return "", nil }

// Extensions start in the order given, are found by name and type, and their hooks run in
// that order; what a hook returns reaches the host's caller.
func TestExtensionHooksInOrder(t *testing.T) {
	var log []string
	a, b, off := &recorder{name: "a", log: &log}, &recorder{name: "b", log: &log}, &recorder{name: "off", log: &log}
	set, err := New(Options{CodexHome: t.TempDir()}, a, b, off)
	if err != nil {
		t.Fatal(err)
	}
	if set.Extension("b") != b || set.Extension("c") != nil {
		t.Errorf("Extension(b) = %v, Extension(c) = %v", set.Extension("b"), set.Extension("c"))
	}
	if got, ok := Find[*recorder](set); !ok || got != a {
		t.Errorf("Find = %v %v, want the first recorder", got, ok)
	}
	th := thread{"t1"}
	tools := set.Tools(th.FeatureEnabled)
	if len(tools) != 2 || string(tools[0].Spec()) != `{"name":"a"}` || string(tools[1].Spec()) != `{"name":"b"}` {
		t.Errorf("tools = %v, want a's and b's (off's feature is off)", tools)
	}
	notes := set.BeforeEvent(th, protocol.Event{Msg: protocol.TurnStartedEvent{}}, "turn1")
	if len(notes) != 3 || notes[0].Method != "a/before" || notes[2].Method != "off/before" {
		t.Errorf("before notes = %v", notes)
	}
	if ended := set.TurnEnded(th, protocol.Event{Msg: protocol.TurnStartedEvent{}}); ended != nil {
		t.Errorf("a turn's start told as its end: %v", ended)
	}
	ended := set.TurnEnded(th, protocol.Event{Msg: protocol.TurnCompleteEvent{TurnID: "turn1"}})
	if len(ended) != 3 || ended[1].Method != "b/ended" || ended[1].Params != "turn1" {
		t.Errorf("turn end notes = %v", ended)
	}
	set.AfterEvent(th, protocol.Event{Msg: protocol.TurnStartedEvent{}})
	set.ThreadForked("t1", "t2")
	set.ThreadDeleted("t2")
	want := "a before turn1,b before turn1,off before turn1,a after t1,b after t1,off after t1," +
		"a fork t1>t2,b fork t1>t2,off fork t1>t2,a delete t2,b delete t2,off delete t2"
	if got := strings.Join(log, ","); got != want {
		t.Errorf("hooks ran\n %s\nwant\n %s", got, want)
	}
}

// A host does not start with two extensions of one name or one that cannot start, and
// takes no hooks once started.
func TestExtensionSetRefusals(t *testing.T) {
	var log []string
	if _, err := New(Options{}, &recorder{name: "a", log: &log}, &recorder{name: "a", log: &log}); err == nil || !strings.Contains(err.Error(), `"a" registered twice`) {
		t.Errorf("duplicate names: err = %v", err)
	}
	boom := errors.New("boom")
	if _, err := New(Options{}, &recorder{name: "x", fail: boom}); !errors.Is(err, boom) || !strings.Contains(err.Error(), "extension x") {
		t.Errorf("failing Init: err = %v", err)
	}
	set, err := New(Options{CodexHome: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if recover() == nil {
			t.Errorf("hooks taken after the host started")
		}
	}()
	set.Hooks()
}
