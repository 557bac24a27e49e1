package appserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/appserver/wire"
)

// What a subscriber's queue holds after a burst it has not sent yet: deltas merge only once
// the queue is half full, only into the last entry, and only within one stream.
func TestSubscriberMerge(t *testing.T) {
	agent := func(item, d string) wire.V2Notification {
		return wire.V2Notification{Method: "item/agentMessage/delta", Params: wire.V2Delta{ThreadID: "t", TurnID: "u", ItemID: item, Delta: d}}
	}
	summary := func(idx int, d string) wire.V2Notification {
		return wire.V2Notification{Method: "item/reasoning/summaryTextDelta", Params: wire.V2SummaryDelta{ThreadID: "t", TurnID: "u", ItemID: "r", Delta: d, SummaryIndex: idx}}
	}
	output := func(d string) wire.V2Notification {
		return wire.V2Notification{Method: "item/commandExecution/outputDelta", Params: wire.V2Delta{ThreadID: "t", TurnID: "u", ItemID: "c", Delta: d}}
	}
	other := wire.V2Notification{Method: "item/completed", Params: "x"}
	o := other
	cases := []struct {
		name  string
		limit int
		push  []wire.V2Notification
		want  []wire.V2Notification
	}{
		{"below half: kept apart", 8, []wire.V2Notification{agent("m", "a"), agent("m", "b")},
			[]wire.V2Notification{agent("m", "a"), agent("m", "b")}},
		{"from half: merged", 4, []wire.V2Notification{o, agent("m", "a"), agent("m", "b"), agent("m", "c")},
			[]wire.V2Notification{o, agent("m", "abc")}},
		{"another item", 4, []wire.V2Notification{o, agent("m", "a"), agent("n", "b"), agent("n", "c")},
			[]wire.V2Notification{o, agent("m", "a"), agent("n", "bc")}},
		{"another method, same item id", 4, []wire.V2Notification{o, o, agent("c", "a"), output("b")},
			[]wire.V2Notification{o, o, agent("c", "a"), output("b")}},
		{"another summary part", 8, []wire.V2Notification{o, o, o, o, summary(0, "a"), summary(0, "b"), summary(1, "c")},
			[]wire.V2Notification{o, o, o, o, summary(0, "ab"), summary(1, "c")}},
		{"not across another notification", 8, []wire.V2Notification{o, o, o, o, agent("m", "a"), o, agent("m", "b")},
			[]wire.V2Notification{o, o, o, o, agent("m", "a"), o, agent("m", "b")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := &subscriber{limit: tc.limit, wake: make(chan struct{}, 1), room: make(chan struct{}, 1), quit: make(chan struct{})}
			for _, n := range tc.push {
				q.push(n)
			}
			var got []wire.V2Notification
			for _, e := range q.queue {
				got = append(got, e.joined())
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("queue (-want +got):\n%s", diff)
			}
		})
	}
}

// A barrier is released once what was queued before it has gone; stopping releases the
// ones still queued, and a stopped queue takes nothing more.
func TestSubscriberBarrierAndStop(t *testing.T) {
	q := &subscriber{limit: 8, wake: make(chan struct{}, 1), room: make(chan struct{}, 1), quit: make(chan struct{})}
	q.push(wire.V2Notification{Method: "a"})
	b := q.barrier()
	select {
	case <-b:
		t.Fatal("barrier released before the queue was sent")
	default:
	}
	q.stop()
	<-b
	q.push(wire.V2Notification{Method: "b"})
	if len(q.queue) != 0 {
		t.Errorf("stopped queue holds %d entries", len(q.queue))
	}
	<-q.barrier()
}
