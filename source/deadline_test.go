package source

import (
	"context"
	"errors"
	"testing"
	"time"
)

// TestWithDeadline checks that withDeadline's contexts end as
// context.WithTimeout's do: at their own deadline, in order, each with
// context.DeadlineExceeded, and not once cancelled or when the parent
// ends first.
func TestWithDeadline(t *testing.T) {
	t.Parallel()
	// Armed in the reverse order of their deadlines, so each new one is
	// the earliest: the timer is set again every time.
	var ctxs []context.Context
	for _, d := range []time.Duration{300, 200, 100} {
		ctx, cancel := withDeadline(context.Background(), d*time.Millisecond)
		defer cancel()
		ctxs = append(ctxs, ctx)
	}
	long, cancelLong := withDeadline(context.Background(), time.Hour)
	defer cancelLong()
	start := time.Now()
	for i := len(ctxs) - 1; i >= 0; i-- {
		select {
		case <-ctxs[i].Done():
		case <-time.After(5 * time.Second):
			t.Fatalf("context %d did not end", i)
		}
		if err := ctxs[i].Err(); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("context %d: Err = %v", i, err)
		}
		want := time.Duration(3-i) * 100 * time.Millisecond
		if got := time.Since(start); got < want-10*time.Millisecond {
			t.Errorf("context %d ended after %s, before its deadline %s", i, got, want)
		}
		if dl, ok := ctxs[i].Deadline(); !ok || dl.IsZero() {
			t.Errorf("context %d has no deadline", i)
		}
		// A context derived from it ends too, for the same cause.
		child, stop := context.WithCancel(ctxs[i])
		if !errors.Is(context.Cause(child), context.DeadlineExceeded) {
			t.Errorf("context %d's child: cause %v", i, context.Cause(child))
		}
		stop()
	}
	if long.Err() != nil {
		t.Errorf("the hour-long context ended: %v", long.Err())
	}

	cancelled, cancel := withDeadline(context.Background(), 50*time.Millisecond)
	cancel()
	if err := cancelled.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: Err = %v", err)
	}
	parent, cancelParent := context.WithCancel(context.Background())
	child, cancelChild := withDeadline(parent, time.Hour)
	defer cancelChild()
	cancelParent()
	<-child.Done()
	if err := child.Err(); !errors.Is(err, context.Canceled) {
		t.Errorf("parent cancelled: Err = %v", err)
	}
	early, cancelEarly := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancelEarly()
	late, cancelLate := withDeadline(early, time.Hour)
	defer cancelLate()
	<-late.Done()
	if err := late.Err(); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("parent's deadline first: Err = %v", err)
	}
}

// TestDeadlineSetRemove checks that a cancelled call's deadline leaves
// the set, whatever its place in the heap.
func TestDeadlineSetRemove(t *testing.T) {
	var s deadlineSet
	now := time.Now()
	var es []*deadlineEntry
	for _, h := range []time.Duration{3, 1, 4, 1, 5, 9, 2, 6} {
		es = append(es, s.add(now.Add(h*time.Hour), func(error) {}))
	}
	for _, i := range []int{2, 0, 7, 4, 1, 3, 6, 5} {
		s.remove(es[i])
		if es[i].i != -1 {
			t.Errorf("entry %d is still at %d", i, es[i].i)
		}
		for j := 1; j < len(s.due); j++ {
			if s.due[j].when.Before(s.due[(j-1)/2].when) {
				t.Fatalf("after removing %d the heap is out of order at %d", i, j)
			}
		}
	}
	if len(s.due) != 0 {
		t.Errorf("%d entries left", len(s.due))
	}
	s.timer.Stop()
}
