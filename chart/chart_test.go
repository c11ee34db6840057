package chart

import (
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"image/png"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// svgDoc is what the tests read back from an SVG file.
type svgDoc struct {
	bars   int      // rect elements of class bar
	lines  int      // polylines
	texts  []string // every text element's content
	series []string // data-name of line series
	fills  map[string]int
}

func readSVG(t testing.TB, path string) svgDoc {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc := svgDoc{fills: map[string]int{}}
	dec := xml.NewDecoder(f)
	var inText bool
	root := ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("the SVG is not XML: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if root == "" {
				root = el.Name.Space + " " + el.Name.Local
			}
			attr := map[string]string{}
			for _, a := range el.Attr {
				attr[a.Name.Local] = a.Value
			}
			switch {
			case el.Name.Local == "rect" && attr["class"] == "bar":
				doc.bars++
				doc.fills[attr["fill"]]++
			case el.Name.Local == "polyline":
				doc.lines++
			case el.Name.Local == "g" && attr["class"] == "series":
				doc.series = append(doc.series, attr["data-name"])
			case el.Name.Local == "text":
				inText = true
				doc.texts = append(doc.texts, "")
			}
		case xml.CharData:
			if inText {
				doc.texts[len(doc.texts)-1] += string(el)
			}
		case xml.EndElement:
			inText = false
		}
	}
	if root != "http://www.w3.org/2000/svg svg" {
		t.Errorf("the root element is %q, want an svg element", root)
	}
	return doc
}

func (d svgDoc) hasText(s string) bool {
	for _, t := range d.texts {
		if t == s {
			return true
		}
	}
	return false
}

func TestSVGBars(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.svg")
	rows := [][]any{{"book", int64(3)}, {"game", json.Number("2")}, {"toy & <doll>", "1.5"}, {nil, 0.25}}
	if err := Write(path, []string{"category", "n"}, rows); err != nil {
		t.Fatal(err)
	}
	doc := readSVG(t, path)
	if doc.bars != 4 || doc.lines != 0 {
		t.Errorf("got %d bars and %d lines, want 4 bars", doc.bars, doc.lines)
	}
	for _, want := range []string{"n by category", "book", "game", "toy & <doll>", "NULL", "0.0", "3.0", "n"} {
		if !doc.hasText(want) {
			t.Errorf("no text %q in %q", want, doc.texts)
		}
	}
}

func TestSVGGroupedBars(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.svg")
	rows := [][]any{{"north", 10, 4.5}, {"south", -3, nil}, {"east", 7, 8}}
	if err := Write(path, []string{"region", "sales", "returns"}, rows); err != nil {
		t.Fatal(err)
	}
	doc := readSVG(t, path)
	if doc.bars != 5 || len(doc.fills) != 2 {
		t.Errorf("got %d bars in %d colours, want 5 (one NULL left out) in 2", doc.bars, len(doc.fills))
	}
	for _, want := range []string{"sales and returns by region", "sales", "returns", "north", "-5"} {
		if !doc.hasText(want) {
			t.Errorf("no text %q in %q", want, doc.texts)
		}
	}
}

func TestSVGLines(t *testing.T) {
	tests := []struct {
		name    string
		columns []string
		rows    [][]any
		series  int
		label   string
	}{
		{"years as numbers", []string{"year", "students"}, [][]any{{int64(2019), int64(120)}, {int64(2020), int64(130)}, {int64(2022), int64(90)}}, 1, "2020"},
		{"years as text, descending", []string{"year", "n"}, [][]any{{"2024", 5}, {"2023", 7}, {"2021", 6}}, 1, "2023"},
		{"dates with two series", []string{"day", "orders", "returns"}, [][]any{{"2024-01-01", 5, 1}, {"2024-01-02", 7, nil}, {"2024-01-05", 6, 2}}, 2, "2024-01-02"},
		{"months", []string{"month", "revenue"}, [][]any{{"2024-01", 5.5}, {"2024-02", 7.25}}, 1, "2024-02"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.svg")
			if err := Write(path, tt.columns, tt.rows); err != nil {
				t.Fatal(err)
			}
			doc := readSVG(t, path)
			if doc.bars != 0 || len(doc.series) != tt.series || doc.lines < tt.series {
				t.Errorf("got %d bars, series %q, %d lines; want a line chart of %d series", doc.bars, doc.series, doc.lines, tt.series)
			}
			if !doc.hasText(tt.label) {
				t.Errorf("no label %q in %q", tt.label, doc.texts)
			}
		})
	}
}

func TestUnorderedNumbersMakeBars(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c.svg")
	if err := Write(path, []string{"id", "n"}, [][]any{{3, 1}, {1, 2}, {2, 3}}); err != nil {
		t.Fatal(err)
	}
	if doc := readSVG(t, path); doc.bars != 3 {
		t.Errorf("got %d bars, want 3", doc.bars)
	}
}

func TestTooManyBars(t *testing.T) {
	var rows [][]any
	for i := range 120 {
		rows = append(rows, []any{fmt.Sprintf("item %d", i), i%7 + 1})
	}
	path := filepath.Join(t.TempDir(), "c.svg")
	if err := Write(path, []string{"item", "n"}, rows); err != nil {
		t.Fatal(err)
	}
	doc := readSVG(t, path)
	if doc.bars != maxBars {
		t.Errorf("got %d bars, want %d", doc.bars, maxBars)
	}
	if !doc.hasText("the first 50 of 120 rows") {
		t.Errorf("the chart does not say rows were left out: %q", doc.texts)
	}
}

func TestPNG(t *testing.T) {
	tests := []struct {
		name    string
		columns []string
		rows    [][]any
	}{
		{"bars", []string{"category", "n"}, [][]any{{"book", 3}, {"game", 2}, {"a rather long category name", 1}}},
		{"grouped bars", []string{"region", "a", "b"}, [][]any{{"n", 1, 2}, {"s", 3, 4}}},
		{"line", []string{"year", "n"}, [][]any{{2001, 1e6}, {2002, 2.5e6}, {2004, nil}, {2005, 3e6}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "c.PNG")
			if err := Write(path, tt.columns, tt.rows); err != nil {
				t.Fatal(err)
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			img, err := png.Decode(f)
			if err != nil {
				t.Fatalf("the PNG does not decode: %v", err)
			}
			if b := img.Bounds(); b.Dx() != width || b.Dy() != height {
				t.Errorf("got %v, want %dx%d", b, width, height)
			}
			// Some pixels have the first series' colour.
			want := hex(palette[0])
			found := false
			for y := 0; y < height && !found; y++ {
				for x := 0; x < width && !found; x++ {
					r, g, b, _ := img.At(x, y).RGBA()
					found = uint8(r>>8) == want.R && uint8(g>>8) == want.G && uint8(b>>8) == want.B
				}
			}
			if !found {
				t.Error("nothing drawn in the first series' colour")
			}
		})
	}
}

func TestRefusals(t *testing.T) {
	tests := []struct {
		name    string
		path    string
		columns []string
		rows    [][]any
		want    string
	}{
		{"three text columns", "c.svg", []string{"a", "b", "c"}, [][]any{{"x", "y", "z"}},
			"a chart needs one label column and one or two numeric columns; this result has 3 text columns (a, b, c)"},
		{"one numeric column", "c.svg", []string{"n"}, [][]any{{1}, {2}},
			"a chart needs one label column and one or two numeric columns; this result has 1 numeric column (n)"},
		{"one text column", "c.svg", []string{"name"}, [][]any{{"x"}},
			"this result has 1 text column (name)"},
		{"three numbers to chart", "c.svg", []string{"name", "a", "b", "c"}, [][]any{{"x", 1, 2, 3}},
			"this result has 1 text column (name) and 3 numeric columns (a, b, c)"},
		{"two labels", "c.png", []string{"first", "last", "n"}, [][]any{{"a", "b", 1}},
			"this result has 2 text columns (first, last) and 1 numeric column (n)"},
		{"a column of NULLs", "c.svg", []string{"name", "n"}, [][]any{{"a", nil}},
			"this result has 1 text column (name) and 1 all-NULL column (n)"},
		{"no rows", "c.svg", []string{"name", "n"}, nil, "the result has no rows to chart"},
		{"wrong extension", "c.jpg", []string{"name", "n"}, [][]any{{"a", 1}}, `a chart file must end in .svg or .png, not "c.jpg"`},
		{"ragged row", "c.svg", []string{"name", "n"}, [][]any{{"a", 1}, {"b"}}, "row 2 has 1 values for 2 columns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			err := Write(filepath.Join(dir, tt.path), tt.columns, tt.rows)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("got %v, want %q", err, tt.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) > 0 {
				t.Errorf("a refused chart left a file: %v", entries[0].Name())
			}
		})
	}
}

func TestNumber(t *testing.T) {
	tests := []struct {
		in   any
		want float64
		ok   bool
	}{
		{int64(-4), -4, true}, {3.5, 3.5, true}, {json.Number("12.25"), 12.25, true}, {" 7 ", 7, true}, {"1e3", 1000, true},
		{"NaN", 0, false}, {"Inf", 0, false}, {"0x10", 0, false}, {"", 0, false}, {"abc", 0, false}, {true, 0, false}, {nil, 0, false},
	}
	for _, tt := range tests {
		got, ok := number(tt.in)
		if got != tt.want || ok != tt.ok {
			t.Errorf("number(%#v) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestWriteError(t *testing.T) {
	err := Write(filepath.Join(t.TempDir(), "no", "such", "c.svg"), []string{"a", "n"}, [][]any{{"x", 1}})
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("got %v, want a not-exist error", err)
	}
}
