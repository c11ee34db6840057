// Package chart draws a query result as a bar or line chart, as SVG or
// PNG, for `sqlmcp ask --chart`. It sits beside the command and knows
// nothing of databases or MCP: it takes column names and rows of plain
// values.
//
// A result can be charted when it has one label column and one or two
// numeric columns. The label column is the one text column, or the first
// column when all are numeric. When the labels are dates, years or other
// numbers in order, the chart is a line chart; otherwise it has one bar, or
// a group of two, per row.
package chart

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// The picture: its size in pixels (SVG user units), and how much is drawn.
const (
	width       = 800
	height      = 500
	maxBars     = 50   // bars (or groups of two) in a bar chart; later rows are left out, and the chart says so
	maxPoints   = 1000 // points per line in a line chart
	maxLabel    = 18   // characters of a label shown under the x axis
	charWidth   = 7    // pixels per character: basicfont's advance, and about a 12px sans-serif
	maxXLabels  = 12   // labels under the x axis of a line chart
	maxYTickGap = 6    // about how many steps the y axis has
)

// palette colours the first and second numeric column.
var palette = [2]string{"#4e79a7", "#f28e2b"}

// Write draws columns and rows as a chart into path, an SVG file when it
// ends in .svg and a PNG image (800 by 500 pixels) when it ends in .png.
// Values may be int64, float64 (or any Go integer or float), json.Number,
// or strings holding numbers or dates; nil is NULL, drawn as a gap. Only
// the first 50 rows of a bar chart are drawn, and the chart says so.
//
// When the result cannot be charted Write returns an error saying why in
// plain words and writes nothing; other errors come from writing the file.
func Write(path string, columns []string, rows [][]any) error {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".svg" && ext != ".png" {
		return fmt.Errorf("a chart file must end in .svg or .png, not %q", filepath.Base(path))
	}
	d, err := plan(columns, rows)
	if err != nil {
		return err
	}
	s := layout(d)
	var buf bytes.Buffer
	if ext == ".svg" {
		writeSVG(&buf, s)
	} else if err := writePNG(&buf, s); err != nil {
		return fmt.Errorf("encoding the PNG: %w", err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing the chart: %w", err)
	}
	return nil
}

// data is a result understood as a chart.
type data struct {
	line   bool      // a line chart; else bars
	xs     []float64 // line: each label's position (a number, or a date's Unix seconds)
	labels []string
	series []series // one or two
	title  string
	note   string // what was left out, if anything
}

type series struct {
	name   string
	values []float64 // NaN for NULL
}

// plan decides what kind of chart the result makes, or why it makes none.
func plan(columns []string, rows [][]any) (*data, error) {
	if len(columns) == 0 {
		return nil, errors.New("the result has no columns to chart")
	}
	if len(rows) == 0 {
		return nil, errors.New("the result has no rows to chart")
	}
	for i, r := range rows {
		if len(r) != len(columns) {
			return nil, fmt.Errorf("row %d has %d values for %d columns", i+1, len(r), len(columns))
		}
	}
	var text, numeric, empty []int
	for c := range columns {
		seen, allNumbers := false, true
		for _, r := range rows {
			if r[c] == nil {
				continue
			}
			seen = true
			if _, ok := number(r[c]); !ok {
				allNumbers = false
				break
			}
		}
		switch {
		case !seen:
			empty = append(empty, c)
		case allNumbers:
			numeric = append(numeric, c)
		default:
			text = append(text, c)
		}
	}
	label, values := -1, numeric
	switch {
	case len(text) == 1:
		label = text[0]
	case len(text) == 0 && len(numeric) > 0:
		label, values = numeric[0], numeric[1:]
	}
	if label < 0 || len(empty) > 0 || len(values) < 1 || len(values) > 2 {
		return nil, fmt.Errorf("a chart needs one label column and one or two numeric columns; this result has %s",
			describe(columns, text, numeric, empty))
	}

	d := &data{}
	n := len(rows)
	xs, ordered := positions(rows, label)
	d.line = ordered && n >= 2
	limit := maxBars
	if d.line {
		limit = maxPoints
	}
	if n > limit {
		n = limit
		d.note = fmt.Sprintf("the first %d of %d rows", limit, len(rows))
	}
	rows = rows[:n]
	for _, r := range rows {
		d.labels = append(d.labels, labelText(r[label]))
	}
	for _, c := range values {
		s := series{name: columns[c]}
		for _, r := range rows {
			v, ok := number(r[c])
			if !ok {
				v = math.NaN()
			}
			s.values = append(s.values, v)
		}
		d.series = append(d.series, s)
	}
	if d.line {
		d.xs = xs[:n]
	}
	names := []string{d.series[0].name}
	if len(d.series) == 2 {
		names = append(names, d.series[1].name)
	}
	d.title = strings.Join(names, " and ") + " by " + columns[label]
	return d, nil
}

// describe says what columns a result has: "3 text columns (a, b, c)".
func describe(columns []string, text, numeric, empty []int) string {
	var parts []string
	for _, g := range []struct {
		kind string
		cols []int
	}{{"text", text}, {"numeric", numeric}, {"all-NULL", empty}} {
		if len(g.cols) == 0 {
			continue
		}
		var names []string
		for _, c := range g.cols {
			names = append(names, columns[c])
		}
		plural := "s"
		if len(g.cols) == 1 {
			plural = ""
		}
		parts = append(parts, fmt.Sprintf("%d %s column%s (%s)", len(g.cols), g.kind, plural, strings.Join(names, ", ")))
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// number reads v as a finite number.
func number(v any) (float64, bool) {
	var f float64
	switch x := v.(type) {
	case int:
		f = float64(x)
	case int8:
		f = float64(x)
	case int16:
		f = float64(x)
	case int32:
		f = float64(x)
	case int64:
		f = float64(x)
	case uint:
		f = float64(x)
	case uint8:
		f = float64(x)
	case uint16:
		f = float64(x)
	case uint32:
		f = float64(x)
	case uint64:
		f = float64(x)
	case float32:
		f = float64(x)
	case float64:
		f = x
	case json.Number:
		var err error
		if f, err = x.Float64(); err != nil {
			return 0, false
		}
	case string:
		s := strings.TrimSpace(x)
		if s == "" || strings.ContainsAny(s, "nNiIxX") { // no NaN, Inf or hex floats
			return 0, false
		}
		var err error
		if f, err = strconv.ParseFloat(s, 64); err != nil {
			return 0, false
		}
	default:
		return 0, false
	}
	return f, !math.IsNaN(f) && !math.IsInf(f, 0)
}

// dateLayouts are the date and time forms a label column may hold.
var dateLayouts = []string{
	"2006-01-02", "2006-01", "2006-01-02 15:04:05", "2006-01-02 15:04", "2006-01-02T15:04:05",
	time.RFC3339, "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04:05-07", "2006/01/02",
}

// positions reads the label column as places on a line: numbers, or dates
// as Unix seconds. It reports whether every label is one and they run
// strictly up or strictly down.
func positions(rows [][]any, label int) ([]float64, bool) {
	xs := make([]float64, len(rows))
	for i, r := range rows {
		if f, ok := number(r[label]); ok {
			xs[i] = f
			continue
		}
		t, ok := date(r[label])
		if !ok {
			return nil, false
		}
		xs[i] = float64(t.Unix())
	}
	up, down := true, true
	for i := 1; i < len(xs); i++ {
		up = up && xs[i] > xs[i-1]
		down = down && xs[i] < xs[i-1]
	}
	return xs, up || down
}

func date(v any) (time.Time, bool) {
	switch x := v.(type) {
	case time.Time:
		return x, true
	case string:
		s := strings.TrimSpace(x)
		for _, layout := range dateLayouts {
			if t, err := time.Parse(layout, s); err == nil {
				return t, true
			}
		}
	}
	return time.Time{}, false
}

func labelText(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return x
	case time.Time:
		return x.Format(time.RFC3339)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}

// shorten cuts s to n characters, marking the cut with two dots (PNG
// letters are ASCII).
func shorten(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n-2]) + ".."
}

// scene is a chart laid out in pixels, for either renderer.
type scene struct {
	title, note       string
	left, top         float64 // the plot area
	right, bottom     float64
	yTicks            []tick // y is pos
	xTicks            []tick // x is pos
	rotate            bool   // x labels run upwards
	bars              []bar
	lines             [][][]point // per series, its unbroken runs
	legend            []string
	legendY, legendX0 float64
}

type tick struct {
	pos  float64
	text string
}

type bar struct {
	x, y, w, h float64
	series     int
	tip        string
}

type point struct{ x, y float64 }

// layout places everything.
func layout(d *data) *scene {
	s := &scene{title: d.title, note: d.note}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, sr := range d.series {
		for _, v := range sr.values {
			if !math.IsNaN(v) {
				lo, hi = min(lo, v), max(hi, v)
			}
		}
	}
	if math.IsInf(lo, 1) { // every value NULL
		lo, hi = 0, 1
	}
	if !d.line { // bars start at zero
		lo, hi = min(lo, 0), max(hi, 0)
	}
	if lo == hi {
		lo, hi = lo-1, hi+1
		if lo == -1 && !d.line {
			lo = 0
		}
	}
	step := niceStep((hi - lo) / maxYTickGap)
	lo, hi = math.Floor(lo/step)*step, math.Ceil(hi/step)*step
	unit, suffix := 1.0, ""
	switch big := max(math.Abs(lo), math.Abs(hi)); {
	case big >= 1e9:
		unit, suffix = 1e9, "B"
	case big >= 1e6:
		unit, suffix = 1e6, "M"
	case big >= 1e4:
		unit, suffix = 1e3, "k"
	}
	decimals := 0
	if step/unit < 1 {
		decimals = int(math.Ceil(-math.Log10(step/unit) - 1e-9))
	}
	var ticks []float64
	widest := 0
	for v := lo; v <= hi+step/2; v += step {
		ticks = append(ticks, v)
		t := strconv.FormatFloat(v/unit, 'f', decimals, 64)
		if t == "-0" {
			t = "0"
		}
		s.yTicks = append(s.yTicks, tick{text: t + suffix})
		widest = max(widest, len(t+suffix))
	}

	// The x labels, and which way they run.
	var labels []string
	var centers []float64 // filled once the plot's width is known
	idx := make([]int, 0, len(d.labels))
	if d.line && len(d.labels) > maxXLabels {
		k := maxXLabels
		for j := range k {
			idx = append(idx, j*(len(d.labels)-1)/(k-1))
		}
	} else {
		for i := range d.labels {
			idx = append(idx, i)
		}
	}
	longest := 0
	for _, i := range idx {
		l := shorten(d.labels[i], maxLabel)
		labels = append(labels, l)
		longest = max(longest, utf8.RuneCountInString(l))
	}

	s.left = float64(16 + widest*charWidth)
	s.right = width - 24
	s.top = 56
	if s.note != "" {
		s.top += 16
	}
	s.legendY = s.top - 14
	s.top += 12
	plotW := s.right - s.left
	slot := plotW / float64(len(idx))
	if d.line && len(idx) > 1 {
		slot = plotW / float64(len(idx)-1)
	}
	s.rotate = float64(longest*charWidth) > slot-6
	s.bottom = height - 34
	if s.rotate {
		s.bottom = height - float64(14+longest*charWidth)
	}
	plotH := s.bottom - s.top
	y := func(v float64) float64 { return s.bottom - (v-lo)/(hi-lo)*plotH }
	for i, v := range ticks {
		s.yTicks[i].pos = y(v)
	}

	if d.line {
		// Keep the end points and their labels off the axis and the edge.
		pad := 10.0
		if !s.rotate {
			pad = max(pad, float64(longest*charWidth)/2)
		}
		x0, x1 := slices.Min(d.xs), slices.Max(d.xs)
		x := func(v float64) float64 { return s.left + pad + (v-x0)/(x1-x0)*(plotW-2*pad) }
		for _, i := range idx {
			centers = append(centers, x(d.xs[i]))
		}
		// Draw left to right, whichever way the rows ran.
		order := make([]int, len(d.xs))
		for i := range order {
			order[i] = i
		}
		slices.SortFunc(order, func(a, b int) int { return cmp.Compare(d.xs[a], d.xs[b]) })
		for _, sr := range d.series {
			var runs [][]point
			var run []point
			for _, i := range order {
				if math.IsNaN(sr.values[i]) {
					if len(run) > 0 {
						runs, run = append(runs, run), nil
					}
					continue
				}
				run = append(run, point{x(d.xs[i]), y(sr.values[i])})
			}
			if len(run) > 0 {
				runs = append(runs, run)
			}
			s.lines = append(s.lines, runs)
		}
	} else {
		gap := slot * 0.2
		bw := (slot - gap) / float64(len(d.series))
		for i := range d.labels {
			left := s.left + float64(i)*slot + gap/2
			centers = append(centers, left+(slot-gap)/2)
			for k, sr := range d.series {
				v := sr.values[i]
				if math.IsNaN(v) {
					continue
				}
				top, base := y(max(v, 0)), y(min(v, 0))
				s.bars = append(s.bars, bar{
					x: left + float64(k)*bw, y: top, w: bw, h: base - top, series: k,
					tip: d.labels[i] + ": " + strconv.FormatFloat(v, 'f', -1, 64),
				})
			}
		}
	}
	for j, l := range labels {
		s.xTicks = append(s.xTicks, tick{pos: centers[j], text: l})
	}
	for _, sr := range d.series {
		s.legend = append(s.legend, shorten(sr.name, 40))
	}
	s.legendX0 = s.left
	return s
}

// niceStep rounds a step up to 1, 2 or 5 times a power of ten.
func niceStep(raw float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= raw*(1-1e-9) {
			return m * p
		}
	}
	return 10 * p
}
