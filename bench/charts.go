package main

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// chartPoint is one position on a chart's x axis: a metric of a workload.
type chartPoint struct {
	Label, Workload, Metric string
}

// chart is one PNG: medians as dots with min–max bars, per subject, on a log scale (the
// reference is often an order of magnitude away from gocodex).
type chart struct {
	File, Title, YLabel string
	Points              []chartPoint
}

var charts = []chart{
	{File: "startup-and-turns.png", Title: "Start-up and one-shot turns (ms, log scale)", YLabel: "ms", Points: []chartPoint{
		{"--version", "version", "wall_ms"},
		{"exec turn", "exec-turn", "wall_ms"},
		{"exec 3 cmds+patch", "exec-tools", "wall_ms"},
		{"app-server init", "appserver-init", "init_ms"},
		{"app-server turn", "appserver-turn", "wall_ms"},
	}},
	{File: "server.png", Title: "App-server work (ms, log scale)", YLabel: "ms", Points: []chartPoint{
		{"delta p50", "threads", "p50_ms"},
		{"delta p99", "threads", "p99_ms"},
		{"session turn", "session", "turn_ms"},
		{"thread/list", "list", "list_ms"},
		{"thread/resume", "resume", "resume_ms"},
	}},
	{File: "memory.png", Title: "Peak RSS (MiB, log scale)", YLabel: "MiB", Points: []chartPoint{
		{"--version", "version", "rss_mib"},
		{"exec turn", "exec-turn", "rss_mib"},
		{"exec tools", "exec-tools", "rss_mib"},
		{"app-server turn", "appserver-turn", "rss_mib"},
		{"threads", "threads", "rss_mib"},
		{"session", "session", "rss_mib"},
		{"list", "list", "rss_mib"},
		{"resume", "resume", "rss_mib"},
	}},
}

// chartSeries are the subjects drawn: gocodex, the reference, and each workload's baseline.
var chartSeries = []struct {
	Name  string
	Color color.RGBA
	Shape draw.GlyphDrawer
}{
	{Gocodex, color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, draw.CircleGlyph{}},
	{Reference, color.RGBA{R: 0xd6, G: 0x27, B: 0x28, A: 0xff}, draw.SquareGlyph{}},
	{"baseline", color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff}, draw.TriangleGlyph{}},
}

// chartValue is the summary a series shows at a point (N == 0 when it has none).
func chartValue(r *Results, series string, p chartPoint) Summary {
	if series != "baseline" {
		return r.summary(p.Workload, series, p.Metric)
	}
	for _, w := range workloads() {
		if w.Key != p.Workload {
			continue
		}
		for _, mi := range metricOrder {
			if mi.Key == p.Metric {
				return baselineSummary(r, w, mi)
			}
		}
	}
	return Summary{}
}

// writeCharts draws every chart that has data into dir.
func writeCharts(r *Results, dir string) error {
	for _, c := range charts {
		p, ok, err := drawChart(r, c)
		if err != nil {
			return fmt.Errorf("%s: %w", c.File, err)
		}
		if !ok {
			continue
		}
		if err := p.Save(8*vg.Inch, 4.5*vg.Inch, filepath.Join(dir, c.File)); err != nil {
			return fmt.Errorf("%s: %w", c.File, err)
		}
	}
	return nil
}

func drawChart(r *Results, c chart) (*plot.Plot, bool, error) {
	p := plot.New()
	p.Title.Text = c.Title
	p.Y.Label.Text = c.YLabel
	p.Y.Scale = plot.LogScale{}
	p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	p.Legend.Top = true
	p.Add(plotter.NewGrid())
	var names []string
	for _, pt := range c.Points {
		names = append(names, pt.Label)
	}
	p.NominalX(names...)
	any := false
	lo, hi := math.Inf(1), math.Inf(-1)
	for si, s := range chartSeries {
		var xys plotter.XYs
		var errs plotter.YErrors
		for i, pt := range c.Points {
			v := chartValue(r, s.Name, pt)
			if v.N == 0 || v.Min <= 0 {
				continue
			}
			x := float64(i) + (float64(si)-1)*0.18
			xys = append(xys, plotter.XY{X: x, Y: v.Median})
			errs = append(errs, struct{ Low, High float64 }{v.Median - v.Min, v.Max - v.Median})
			lo, hi = math.Min(lo, v.Min), math.Max(hi, v.Max)
		}
		if len(xys) == 0 {
			continue
		}
		any = true
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return nil, false, err
		}
		sc.GlyphStyle = draw.GlyphStyle{Color: s.Color, Radius: vg.Points(3.5), Shape: s.Shape}
		bars := &plotter.YErrorBars{XYs: xys, YErrors: errs, LineStyle: plotter.DefaultLineStyle, CapWidth: vg.Points(6)}
		bars.LineStyle.Color = s.Color
		p.Add(bars, sc)
		p.Legend.Add(s.Name, sc)
	}
	if !any {
		return nil, false, nil
	}
	// A little room above and below on the log scale, and never a zero minimum.
	p.Y.Min, p.Y.Max = lo/1.5, hi*1.5
	p.X.Min, p.X.Max = -0.6, float64(len(c.Points))-0.4
	return p, true, nil
}
