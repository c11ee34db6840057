package source

import (
	"container/heap"
	"context"
	"sync"
	"time"
)

// withDeadline is context.WithTimeout(ctx, d), except that the deadline is
// kept by callDeadlines, one timer for every call, rather than by a timer
// of its own. Arming a timer on a processor that has no earlier one wakes
// an idle thread to mind it: for a trivial call, a thread woken for
// nothing each time. With every call's timeout the same, a new deadline
// is the latest, and arms nothing.
//
// The context's Err is context.DeadlineExceeded once the deadline passes,
// as WithTimeout's is; a context derived from it sees context.Canceled
// then, with context.DeadlineExceeded as its cause.
func withDeadline(ctx context.Context, d time.Duration) (context.Context, context.CancelFunc) {
	when := time.Now().Add(d)
	if pd, ok := ctx.Deadline(); d <= 0 || ok && !pd.After(when) {
		return context.WithDeadline(ctx, when) // already due, or ctx's comes first: no timer either way
	}
	inner, cancel := context.WithCancelCause(ctx)
	e := callDeadlines.add(when, cancel)
	return &deadlineCtx{Context: inner, deadline: when}, func() {
		callDeadlines.remove(e)
		cancel(context.Canceled)
	}
}

// deadlineCtx is a context cancelled with context.DeadlineExceeded as its
// cause at deadline. It passes Value and Done through to the cancelCtx
// it wraps, so context.AfterFunc and the contexts derived from it attach
// to that one, with no goroutine of their own.
type deadlineCtx struct {
	context.Context
	deadline time.Time
}

func (c *deadlineCtx) Deadline() (time.Time, bool) { return c.deadline, true }

func (c *deadlineCtx) Err() error {
	err := c.Context.Err()
	if err != nil && context.Cause(c.Context) == context.DeadlineExceeded {
		return context.DeadlineExceeded
	}
	return err
}

// callDeadlines holds the deadlines of the calls under way.
var callDeadlines deadlineSet

// deadlineSet cancels its entries at their deadlines from one timer, set
// for the earliest, or for an earlier one already gone (it then sets
// itself again).
type deadlineSet struct {
	mu    sync.Mutex
	due   deadlineHeap
	timer *time.Timer
	at    time.Time // when timer fires; zero: it does not
}

type deadlineEntry struct {
	when   time.Time
	cancel context.CancelCauseFunc
	i      int // in the heap; -1: out of it
}

func (s *deadlineSet) add(when time.Time, cancel context.CancelCauseFunc) *deadlineEntry {
	e := &deadlineEntry{when: when, cancel: cancel}
	s.mu.Lock()
	heap.Push(&s.due, e)
	if s.at.IsZero() || when.Before(s.at) {
		s.set(when)
	}
	s.mu.Unlock()
	return e
}

func (s *deadlineSet) remove(e *deadlineEntry) {
	s.mu.Lock()
	if e.i >= 0 {
		heap.Remove(&s.due, e.i)
	}
	s.mu.Unlock()
}

// set makes the timer fire at when; s.mu is held.
func (s *deadlineSet) set(when time.Time) {
	s.at = when
	if s.timer == nil {
		s.timer = time.AfterFunc(time.Until(when), s.fire)
		return
	}
	s.timer.Reset(time.Until(when))
}

// fire cancels the entries whose deadline has passed and sets the timer
// for the next.
func (s *deadlineSet) fire() {
	var due []context.CancelCauseFunc
	s.mu.Lock()
	now := time.Now()
	for len(s.due) > 0 && !s.due[0].when.After(now) {
		due = append(due, heap.Pop(&s.due).(*deadlineEntry).cancel)
	}
	s.at = time.Time{}
	if len(s.due) > 0 {
		s.set(s.due[0].when)
	}
	s.mu.Unlock()
	for _, cancel := range due {
		cancel(context.DeadlineExceeded)
	}
}

// deadlineHeap orders entries by deadline, the earliest first.
type deadlineHeap []*deadlineEntry

func (h deadlineHeap) Len() int           { return len(h) }
func (h deadlineHeap) Less(i, j int) bool { return h[i].when.Before(h[j].when) }
func (h deadlineHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].i, h[j].i = i, j
}
func (h *deadlineHeap) Push(x any) {
	e := x.(*deadlineEntry)
	e.i = len(*h)
	*h = append(*h, e)
}
func (h *deadlineHeap) Pop() any {
	old := *h
	e := old[len(old)-1]
	old[len(old)-1] = nil
	e.i = -1
	*h = old[:len(old)-1]
	return e
}
