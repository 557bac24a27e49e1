package main

import (
	"math"
	"sort"
)

// Summary is what the table shows of a metric's samples: the median and the spread (the
// smallest and the largest sample), so a reader sees how much one run can differ from another.
type Summary struct {
	N      int     `json:"n"`
	Median float64 `json:"median"`
	Min    float64 `json:"min"`
	Max    float64 `json:"max"`
}

// Summarize returns the median and range of xs; NaN samples (a run that failed to report the
// metric) are left out. An empty input gives N == 0 and NaN figures.
func Summarize(xs []float64) Summary {
	var v []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return Summary{Median: math.NaN(), Min: math.NaN(), Max: math.NaN()}
	}
	sort.Float64s(v)
	return Summary{N: len(v), Median: median(v), Min: v[0], Max: v[len(v)-1]}
}

// median of sorted, non-empty v: the middle value, or the mean of the two middle ones.
func median(v []float64) float64 {
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// Spread is half the range relative to the median (0.05 means the samples lie within about
// ±5 % of it); NaN when the median is 0 or unknown.
func (s Summary) Spread() float64 {
	if s.N == 0 || s.Median == 0 {
		return math.NaN()
	}
	return (s.Max - s.Min) / 2 / math.Abs(s.Median)
}

// Percentile returns the p-th percentile (0..100) of xs by the nearest-rank method; NaN for
// an empty input. xs is not modified.
func Percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	v := append([]float64(nil), xs...)
	sort.Float64s(v)
	rank := int(math.Ceil(p / 100 * float64(len(v))))
	rank = min(max(rank, 1), len(v))
	return v[rank-1]
}

// Ratio is a/b, NaN when either is unknown or b is 0.
func Ratio(a, b float64) float64 {
	if math.IsNaN(a) || math.IsNaN(b) || b == 0 {
		return math.NaN()
	}
	return a / b
}
