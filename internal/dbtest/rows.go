package dbtest

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// SameRows says how want and got, cells as source returns them, differ
// as sets of rows, "" when they do not: text equal, numbers of any type
// within 0.0001 of each other (relative past 1), so that two engines'
// answers to one question compare, one's division rounded to MySQL's
// four decimal places, another's summed in another order.
func SameRows(want, got [][]any) string {
	w, g := normRows(want), normRows(got)
	if len(w) != len(g) {
		return fmt.Sprintf("%d rows, want %d", len(g), len(w))
	}
	for i := range w {
		if len(w[i]) != len(g[i]) {
			return fmt.Sprintf("%d columns, want %d", len(g[i]), len(w[i]))
		}
		for j := range w[i] {
			a, b := w[i][j], g[i][j]
			if a.num && b.num {
				if math.Abs(a.f-b.f) > 1e-4*math.Max(1, math.Abs(a.f)) {
					return fmt.Sprintf("row %d: %v, want %v", i, b.f, a.f)
				}
			} else if a != b {
				return fmt.Sprintf("row %d: %+v, want %+v", i, b, a)
			}
		}
	}
	return ""
}

// cell is a value as sameRows compares it.
type cell struct {
	num  bool
	f    float64
	text string
	null bool
}

// normRows turns rows into cells, without duplicates, in a stable order.
func normRows(rows [][]any) [][]cell {
	var out [][]cell
	seen := map[string]bool{}
	for _, r := range rows {
		var cs []cell
		var key strings.Builder
		for _, v := range r {
			c := toCell(v)
			cs = append(cs, c)
			if c.num {
				key.WriteString(strconv.FormatFloat(c.f, 'f', 2, 64))
			} else {
				fmt.Fprintf(&key, "%q%v", c.text, c.null)
			}
			key.WriteByte('|')
		}
		if k := key.String(); !seen[k] {
			seen[k] = true
			out = append(out, cs)
		}
	}
	slices.SortFunc(out, func(a, b []cell) int {
		for i := range min(len(a), len(b)) {
			if c := cmp.Compare(a[i].text, b[i].text); c != 0 {
				return c
			}
			if c := cmp.Compare(math.Round(a[i].f*100), math.Round(b[i].f*100)); c != 0 {
				return c
			}
		}
		return cmp.Compare(len(a), len(b))
	})
	return out
}

func toCell(v any) cell {
	switch v := v.(type) {
	case nil:
		return cell{null: true}
	case int64:
		return cell{num: true, f: float64(v)}
	case float64:
		return cell{num: true, f: v}
	case bool:
		if v {
			return cell{num: true, f: 1}
		}
		return cell{num: true}
	case json.Number:
		if f, err := v.Float64(); err == nil {
			return cell{num: true, f: f}
		}
		return cell{text: string(v)}
	case string:
		return cell{text: v}
	}
	return cell{text: fmt.Sprint(v)}
}
