package main

import (
	"math"
	"testing"
)

func TestSummarize(t *testing.T) {
	nan := math.NaN()
	for _, tc := range []struct {
		name          string
		in            []float64
		n             int
		med, min, max float64
	}{
		{"odd", []float64{5, 1, 3}, 3, 3, 1, 5},
		{"even takes the mean of the middle two", []float64{4, 1, 3, 10}, 4, 3.5, 1, 10},
		{"one", []float64{7}, 1, 7, 7, 7},
		{"failed runs (NaN) are left out", []float64{nan, 2, nan, 4}, 2, 3, 2, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Summarize(tc.in)
			if s.N != tc.n || s.Median != tc.med || s.Min != tc.min || s.Max != tc.max {
				t.Errorf("Summarize(%v) = %+v, want n=%d median=%g min=%g max=%g", tc.in, s, tc.n, tc.med, tc.min, tc.max)
			}
		})
	}
	if s := Summarize(nil); s.N != 0 || !math.IsNaN(s.Median) {
		t.Errorf("Summarize(nil) = %+v, want N 0 and a NaN median", s)
	}
	in := []float64{3, 1, 2}
	Summarize(in)
	if in[0] != 3 || in[1] != 1 {
		t.Errorf("Summarize sorted its input: %v", in)
	}
}

func TestSpread(t *testing.T) {
	if got := Summarize([]float64{9, 10, 11}).Spread(); math.Abs(got-0.1) > 1e-12 {
		t.Errorf("spread of 9,10,11 = %g, want 0.1 (±10%%)", got)
	}
	if got := (Summary{N: 1}).Spread(); !math.IsNaN(got) {
		t.Errorf("spread around a zero median = %g, want NaN", got)
	}
}

func TestPercentile(t *testing.T) {
	xs := make([]float64, 100)
	for i := range xs {
		xs[i] = float64(100 - i) // 100..1, unsorted
	}
	for _, tc := range []struct{ p, want float64 }{{50, 50}, {99, 99}, {100, 100}, {0, 1}, {1, 1}} {
		if got := Percentile(xs, tc.p); got != tc.want {
			t.Errorf("p%g = %g, want %g", tc.p, got, tc.want)
		}
	}
	if xs[0] != 100 {
		t.Error("Percentile sorted its input")
	}
	if !math.IsNaN(Percentile(nil, 50)) {
		t.Error("Percentile of nothing is not NaN")
	}
	if got := Percentile([]float64{4}, 99); got != 4 {
		t.Errorf("p99 of one sample = %g", got)
	}
}

func TestRatio(t *testing.T) {
	if Ratio(1, 4) != 0.25 || !math.IsNaN(Ratio(1, 0)) || !math.IsNaN(Ratio(math.NaN(), 1)) {
		t.Error("Ratio: want a/b, and NaN for a zero or unknown divisor")
	}
}
