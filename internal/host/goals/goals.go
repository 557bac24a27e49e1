// Package goals is the host extension that keeps and pursues thread goals, as Codex 0.169
// does (observed, see e2e/testdata/codex_goal_continuation_observed.json): a goal is kept
// in the thread state file (goals, goalTimeMs), the model gets three tools to read and
// change it (tools.go), and while it is active its tokens and time are counted and a new
// turn is started each time the thread goes idle (pursuit.go).
package goals

import (
	"sync"
	"time"

	"github.com/gocodex/gocodex/internal/host/ext"
	"github.com/gocodex/gocodex/internal/jsonrpc"
)

// Name is the extension's name.
const Name = "goals"

// Goal is Codex's ThreadGoal.
type Goal struct {
	ThreadID        string `json:"threadId"`
	Objective       string `json:"objective"`
	Status          string `json:"status"`
	TokenBudget     *int64 `json:"tokenBudget"`
	TokensUsed      int64  `json:"tokensUsed"`
	TimeUsedSeconds int64  `json:"timeUsedSeconds"`
	CreatedAt       int64  `json:"createdAt"`
	UpdatedAt       int64  `json:"updatedAt"`
}

// Updated is thread/goal/updated's params.
type Updated struct {
	ThreadID string  `json:"threadId"`
	TurnID   *string `json:"turnId"`
	Goal     Goal    `json:"goal"`
}

// statuses are ThreadGoalStatus's values.
var statuses = map[string]bool{"active": true, "paused": true, "blocked": true, "usageLimited": true, "budgetLimited": true, "complete": true}

// ValidStatus says whether s is a ThreadGoalStatus.
func ValidStatus(s string) bool { return statuses[s] }

// state is the extension's part of the thread state file.
type state struct {
	Goals map[string]Goal `json:"goals,omitempty"`
	// GoalTimeMs is the time each active goal's turns took, to the millisecond.
	GoalTimeMs map[string]int64 `json:"goalTimeMs,omitempty"`
}

func (s *state) set(g Goal) {
	if s.Goals == nil {
		s.Goals = map[string]Goal{}
	}
	s.Goals[g.ThreadID] = g
}

// Extension keeps the goals and pursues the active ones.
type Extension struct {
	ext.Stateful[state]

	mu sync.Mutex
	// syncs are the goal tools waiting for the event pump.
	syncs map[string]chan struct{}
	// completing are the threads whose goal a response just completed: its usage counts.
	completing map[string]bool
	// queued are the threads with a goal turn submitted and not yet started; fresh those
	// whose next goal turn gives the objective again.
	queued map[string]bool
	fresh  map[string]bool
	// settings counts the goal settings (thread/goal/set) in flight per thread.
	settings map[string]int
}

// New is the extension, ready for ext.New.
func New() *Extension {
	return &Extension{syncs: map[string]chan struct{}{}, completing: map[string]bool{}, queued: map[string]bool{},
		fresh: map[string]bool{}, settings: map[string]int{}}
}

func (e *Extension) Name() string { return Name }

// Init adds the goals to the thread state file, the goal tools to every thread whose
// configuration has the goals feature, and the pursuit to the thread's events.
func (e *Extension) Init(h ext.Host) error {
	e.Keep(h, nil)
	hooks := h.Hooks()
	hooks.Tools = append(hooks.Tools, e.tools)
	hooks.BeforeEvent = append(hooks.BeforeEvent, e.beforeEvent)
	hooks.AfterEvent = append(hooks.AfterEvent, e.afterEvent)
	hooks.ThreadDeleted = append(hooks.ThreadDeleted, e.forget)
	return nil
}

// Of is a thread's goal, nil when it has none.
func (e *Extension) Of(threadID string) (*Goal, error) {
	var goal *Goal
	err := e.Part.Read(func(s *state) {
		if g, ok := s.Goals[threadID]; ok {
			goal = &g
		}
	})
	return goal, err
}

// Set sets a thread's goal: a new objective is a new goal (usage starts again, active
// unless status says otherwise); without one, the existing goal's status and budget
// change.
func (e *Extension) Set(threadID string, objective, status *string, budget *int64) (Goal, error) {
	var goal Goal
	err := e.Part.Update(func(s *state) error {
		now := time.Now().Unix()
		g, ok := s.Goals[threadID]
		switch {
		case objective != nil && (!ok || g.Objective != *objective):
			g = Goal{ThreadID: threadID, Objective: *objective, Status: "active", CreatedAt: now}
			delete(s.GoalTimeMs, threadID)
		case !ok:
			return &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: "thread has no goal to update; set an objective"}
		}
		if status != nil {
			g.Status = *status
		}
		if budget != nil {
			b := *budget
			g.TokenBudget = &b
		}
		g.UpdatedAt = now
		s.set(g)
		goal = g
		return nil
	})
	return goal, err
}

// Clear removes a thread's goal; cleared says it had one.
func (e *Extension) Clear(threadID string) (cleared bool, err error) {
	err = e.Part.Update(func(s *state) error {
		_, cleared = s.Goals[threadID]
		delete(s.Goals, threadID)
		delete(s.GoalTimeMs, threadID)
		return nil
	})
	return cleared, err
}

func (e *Extension) forget(id string) {
	e.UpdateOrWarn("goal not cleaned after delete", id, func(s *state) error {
		delete(s.Goals, id)
		delete(s.GoalTimeMs, id)
		return nil
	})
}
