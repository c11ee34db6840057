package sources

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/sqlmcp/sqlmcp/source"
)

// Ready says whether the set can answer, for /readyz: each source is
// asked to answer within ctx (a source not open is tried
// now), and is not ready when it does not answer or when queries the
// database did not stop hold all its turns. With one source, its state is
// the answer, as it always was: an error when it is not ready, and a
// note of queries left running. With several, the set is ready when one
// source is, and the note says how each is; the error, when none is,
// names each.
func (s *Set) Ready(ctx context.Context) (note string, err error) {
	states := make([]error, len(s.list))
	notes := make([]string, len(s.list))
	var wg sync.WaitGroup
	for i, src := range s.list {
		wg.Go(func() { notes[i], states[i] = src.ready(ctx) })
	}
	wg.Wait()
	if len(s.list) == 1 {
		return notes[0], states[0]
	}
	var parts []string
	ready := 0
	for i, src := range s.list {
		switch {
		case states[i] != nil:
			parts = append(parts, src.Config.Name+" not ready: "+strings.TrimPrefix(states[i].Error(), "database "+src.Config.Name+" is unavailable: "))
		case notes[i] != "":
			ready++
			parts = append(parts, src.Config.Name+" ok: "+notes[i])
		default:
			ready++
			parts = append(parts, src.Config.Name+" ok")
		}
	}
	if ready == 0 {
		return "", errors.New(strings.Join(parts, "; "))
	}
	return strings.Join(parts, "; "), nil
}

// ready is one source's readiness.
func (src *Source) ready(ctx context.Context) (string, error) {
	db, _, err := src.Open(ctx)
	if err != nil {
		return "", err
	}
	return Readiness(ctx, db, src.Config.MaxConcurrency)
}

// Readiness is one database's readiness: it answers (source.DB.Ready)
// within ctx, and the statements it did not stop when asked do not hold
// all maxTurns turns (0: no limit). The note counts such statements. An
// error is the database's *source.UnavailableError, a *NotAnsweringError,
// or says the turns are held.
func Readiness(ctx context.Context, db *source.DB, maxTurns int) (string, error) {
	if err := db.Ready(ctx); err != nil {
		if ue := new(source.UnavailableError); errors.As(err, &ue) {
			return "", ue
		}
		return "", &NotAnsweringError{Err: err}
	}
	left, _ := db.LeftRunning()
	switch {
	case left > 0 && maxTurns > 0 && left >= maxTurns:
		return "", fmt.Errorf("every turn is held by %d queries the database did not stop", left)
	case left > 0:
		return fmt.Sprintf("%d queries the database did not stop are still running", left), nil
	}
	return "", nil
}

// NotAnsweringError is a database that did not answer /readyz's check
// for a reason other than being unreachable. Its text says only that, for
// whoever probes; Err, the reason, is for the log.
type NotAnsweringError struct{ Err error }

func (e *NotAnsweringError) Error() string { return "the database did not answer" }
func (e *NotAnsweringError) Unwrap() error { return e.Err }
