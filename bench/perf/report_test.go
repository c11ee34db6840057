package main

import (
	"math"
	"strings"
	"testing"
)

// Each round's ratio is sqlmcp over the best peer of that round: the
// lowest for a latency, the highest for a rate; a missing or non-positive
// peer value is left out, and a round without any peer gives NaN.
func TestRatios(t *testing.T) {
	b := &bench{config: config{rounds: 3}, res: results{}}
	k := key{"s", "w", "m"}
	for r, v := range []float64{1, 2, 3} {
		b.res.add(k, sqlmcp, r+1, 3, v)
	}
	for r, v := range []float64{2, 4, -1} {
		b.res.add(k, dbhub, r+1, 3, v)
	}
	b.res.add(k, spg, 1, 3, 4)
	b.res.add(k, spg, 2, 3, 1)
	got := b.ratios(row{k: k, peers: []string{dbhub, spg}})
	if got[0] != 0.5 || got[1] != 2 || !math.IsNaN(got[2]) {
		t.Errorf("lower is better: %v, want [0.5 2 NaN]", got)
	}
	got = b.ratios(row{k: k, higher: true, peers: []string{dbhub, spg}})
	if got[0] != 0.25 || got[1] != 0.5 {
		t.Errorf("higher is better: %v, want [0.25 0.5 NaN]", got)
	}
	if c := ratioCell([]float64{0.5, 2, math.NaN()}); c != "1.25× (0.500–2.00)" {
		t.Errorf("cell %q", c)
	}
	if met("<=", 0.5, 0.5) != "yes" || met("<", 1, 1) != "**no**" || met(">=", 3, 2.9) != "**no**" || met("", 0, 1) != "" {
		t.Error("met() misjudges a bound")
	}
}

// The report has a row per measure with figures and says which goals a
// run met.
func TestReport(t *testing.T) {
	b := &bench{config: config{rounds: 1, engines: []string{"sqlite"}, sections: map[string]bool{"stdio": true}, customers: 10}, res: results{}}
	b.res.add(key{"stdio-sqlite", "select1", "p50_ms"}, sqlmcp, 1, 1, 0.2)
	b.res.add(key{"stdio-sqlite", "select1", "p50_ms"}, dbhub, 1, 1, 0.4)
	md := b.report()
	if !strings.Contains(md, "| stdio SQLite: SELECT 1, p50 ms | 0.200 | 0.400 | – | – | 0.500× (0.500–0.500) | < 1.00 | yes |") {
		t.Errorf("no SELECT 1 row with its ratio in:\n%s", md)
	}
	if strings.Contains(md, "point lookup, p50") {
		t.Errorf("a row without figures is printed:\n%s", md)
	}
	// The MySQL profile's rows are named for the server it measures.
	b = &bench{config: config{rounds: 1, engines: []string{"mysql"}, sections: map[string]bool{"http": true}}, res: results{}}
	b.res.add(key{"http-mysql", "c8", "calls_per_s"}, sqlmcp, 1, 1, 300)
	b.res.add(key{"http-mysql", "c8", "calls_per_s"}, dbhub, 1, 1, 100)
	if md := b.report(); !strings.Contains(md, "| HTTP MariaDB c8: calls/s | 300 | 100 | – | – | 3.00× (3.00–3.00) | >= 3.00 | yes |") {
		t.Errorf("no MariaDB row in:\n%s", md)
	}
}
