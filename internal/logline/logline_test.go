package logline_test

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/internal/logline"
)

// TestHeld: lines logged through a Held wait for Flush, then go out in
// one write; a line after Flush goes out at once; a context without a
// Held logs as the logger always does.
func TestHeld(t *testing.T) {
	var out countingWriter
	base := zerolog.New(&out).Level(zerolog.InfoLevel)
	h := logline.New(&out)
	log := logline.Logger(logline.With(context.Background(), h), base)
	log.Info().Str("event", "one").Send()
	log.Debug().Str("event", "below the level").Send()
	log.Info().Str("event", "two").Send()
	if out.writes != 0 {
		t.Fatalf("%d writes before Flush, want 0", out.writes)
	}
	if err := h.Flush(); err != nil {
		t.Fatal(err)
	}
	if out.writes != 1 || strings.Count(out.String(), "\n") != 2 || strings.Index(out.String(), `"one"`) > strings.Index(out.String(), `"two"`) {
		t.Fatalf("after Flush: %d writes of %q, want one write of both lines in order", out.writes, out.String())
	}
	log.Info().Str("event", "late").Send()
	if out.writes != 2 || !strings.Contains(out.String(), `"late"`) {
		t.Errorf("a line after Flush: %d writes of %q, want it written at once", out.writes, out.String())
	}
	plain := logline.Logger(context.Background(), base)
	plain.Info().Str("event", "plain").Send()
	if out.writes != 3 || !strings.Contains(out.String(), `"plain"`) {
		t.Errorf("without a Held: %d writes of %q, want the line written at once", out.writes, out.String())
	}
}

type countingWriter struct {
	bytes.Buffer
	writes int
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.writes++
	return w.Buffer.Write(p)
}
