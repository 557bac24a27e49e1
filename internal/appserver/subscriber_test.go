package appserver

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gocodex/gocodex/internal/items"
)

// What a subscriber's queue holds after a burst it has not sent yet: deltas merge only once
// the queue is half full, only into the last entry, and only within one stream.
func TestSubscriberMerge(t *testing.T) {
	agent := func(item, d string) items.V2Notification {
		return items.V2Notification{Method: "item/agentMessage/delta", Params: items.V2Delta{ThreadID: "t", TurnID: "u", ItemID: item, Delta: d}}
	}
	summary := func(idx int, d string) items.V2Notification {
		return items.V2Notification{Method: "item/reasoning/summaryTextDelta", Params: items.V2SummaryDelta{ThreadID: "t", TurnID: "u", ItemID: "r", Delta: d, SummaryIndex: idx}}
	}
	output := func(d string) items.V2Notification {
		return items.V2Notification{Method: "item/commandExecution/outputDelta", Params: items.V2Delta{ThreadID: "t", TurnID: "u", ItemID: "c", Delta: d}}
	}
	other := items.V2Notification{Method: "item/completed", Params: "x"}
	o := other
	cases := []struct {
		name  string
		limit int
		push  []items.V2Notification
		want  []items.V2Notification
	}{
		{"below half: kept apart", 8, []items.V2Notification{agent("m", "a"), agent("m", "b")},
			[]items.V2Notification{agent("m", "a"), agent("m", "b")}},
		{"from half: merged", 4, []items.V2Notification{o, agent("m", "a"), agent("m", "b"), agent("m", "c")},
			[]items.V2Notification{o, agent("m", "abc")}},
		{"another item", 4, []items.V2Notification{o, agent("m", "a"), agent("n", "b"), agent("n", "c")},
			[]items.V2Notification{o, agent("m", "a"), agent("n", "bc")}},
		{"another method, same item id", 4, []items.V2Notification{o, o, agent("c", "a"), output("b")},
			[]items.V2Notification{o, o, agent("c", "a"), output("b")}},
		{"another summary part", 8, []items.V2Notification{o, o, o, o, summary(0, "a"), summary(0, "b"), summary(1, "c")},
			[]items.V2Notification{o, o, o, o, summary(0, "ab"), summary(1, "c")}},
		{"not across another notification", 8, []items.V2Notification{o, o, o, o, agent("m", "a"), o, agent("m", "b")},
			[]items.V2Notification{o, o, o, o, agent("m", "a"), o, agent("m", "b")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			q := &subscriber{limit: tc.limit, wake: make(chan struct{}, 1), room: make(chan struct{}, 1), quit: make(chan struct{})}
			for _, n := range tc.push {
				q.push(n)
			}
			var got []items.V2Notification
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
	q.push(items.V2Notification{Method: "a"})
	b := q.barrier()
	select {
	case <-b:
		t.Fatal("barrier released before the queue was sent")
	default:
	}
	q.stop()
	<-b
	q.push(items.V2Notification{Method: "b"})
	if len(q.queue) != 0 {
		t.Errorf("stopped queue holds %d entries", len(q.queue))
	}
	<-q.barrier()
}
