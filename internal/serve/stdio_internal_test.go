package serve

import (
	"testing"
	"time"
)

// spinSeen is an input that notes the spin each read asked for.
type spinSeen struct{ spins []time.Duration }

func (s *spinSeen) ReadSpin(p []byte, spin time.Duration) (int, error) {
	s.spins = append(s.spins, spin)
	return copy(p, "x"), nil
}

// TestIdleSpin: the reader spins only while every request has its reply;
// while one is in flight the processor is the call's.
func TestIdleSpin(t *testing.T) {
	c := &stdioConn{}
	in := &spinSeen{}
	r := idleSpin{in: in, c: c}
	buf := make([]byte, 1)
	for _, pending := range []int{0, 1, 3, 0} {
		c.pending = pending
		if _, err := r.Read(buf); err != nil {
			t.Fatal(err)
		}
	}
	want := []time.Duration{readSpin, 0, 0, readSpin}
	for i, s := range in.spins {
		if s != want[i] {
			t.Errorf("read %d spun %v, want %v", i, s, want[i])
		}
	}
	if readSpin <= 0 {
		t.Errorf("readSpin is %v: the reader never spins", readSpin)
	}
}
