package mcpbench

import (
	"math"
	"sort"
	"time"
)

// Quantile returns the q-quantile (0..1) of xs by the nearest-rank rule;
// NaN for none. xs is sorted in place.
func Quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	sort.Float64s(xs)
	i := int(math.Ceil(q*float64(len(xs)))) - 1
	return xs[max(0, min(i, len(xs)-1))]
}

// Median is the middle of xs (the mean of the two middle values for an
// even count); NaN for none. xs is not changed.
func Median(xs []float64) float64 {
	s := finite(xs)
	if len(s) == 0 {
		return math.NaN()
	}
	sort.Float64s(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// Range returns the least and the greatest finite value of xs.
func Range(xs []float64) (lo, hi float64) {
	s := finite(xs)
	if len(s) == 0 {
		return math.NaN(), math.NaN()
	}
	sort.Float64s(s)
	return s[0], s[len(s)-1]
}

func finite(xs []float64) []float64 {
	s := make([]float64, 0, len(xs))
	for _, x := range xs {
		if !math.IsNaN(x) && !math.IsInf(x, 0) {
			s = append(s, x)
		}
	}
	return s
}

// Ms is d in milliseconds.
func Ms(d time.Duration) float64 { return float64(d.Nanoseconds()) / 1e6 }
