package chart

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"strconv"
	"strings"
)

// writeSVG renders s as a standalone SVG document, written by hand.
func writeSVG(b *bytes.Buffer, s *scene) {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) }
	esc := func(t string) string {
		var e strings.Builder
		xml.EscapeText(&e, []byte(t))
		return e.String()
	}
	fmt.Fprintf(b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="sans-serif" font-size="12">`+"\n",
		width, height, width, height)
	fmt.Fprintf(b, "<title>%s</title>\n", esc(s.title))
	b.WriteString(`<rect width="100%" height="100%" fill="white"/>` + "\n")
	fmt.Fprintf(b, `<text class="title" x="%d" y="26" text-anchor="middle" font-size="16" font-weight="bold">%s</text>`+"\n", width/2, esc(s.title))
	if s.note != "" {
		fmt.Fprintf(b, `<text class="note" x="%d" y="44" text-anchor="middle" fill="#666">%s</text>`+"\n", width/2, esc(s.note))
	}

	b.WriteString(`<g class="y-axis">` + "\n")
	for _, t := range s.yTicks {
		fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#e5e5e5"/>`+"\n", f(s.left), f(t.pos), f(s.right), f(t.pos))
		fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="end" dominant-baseline="middle">%s</text>`+"\n", f(s.left-6), f(t.pos), esc(t.text))
	}
	b.WriteString("</g>\n")

	for k, runs := range s.lines {
		fmt.Fprintf(b, `<g class="series" data-name="%s" stroke="%s" fill="%s">`+"\n", esc(s.legend[k]), palette[k], palette[k])
		for _, run := range runs {
			var pts []string
			for _, p := range run {
				pts = append(pts, f(p.x)+","+f(p.y))
			}
			fmt.Fprintf(b, `<polyline class="line" fill="none" stroke-width="2" points="%s"/>`+"\n", strings.Join(pts, " "))
			if len(run) <= 100 {
				for _, p := range run {
					fmt.Fprintf(b, `<circle cx="%s" cy="%s" r="3"/>`+"\n", f(p.x), f(p.y))
				}
			}
		}
		b.WriteString("</g>\n")
	}
	if len(s.bars) > 0 {
		b.WriteString(`<g class="bars">` + "\n")
		for _, r := range s.bars {
			fmt.Fprintf(b, `<rect class="bar" x="%s" y="%s" width="%s" height="%s" fill="%s"><title>%s</title></rect>`+"\n",
				f(r.x), f(r.y), f(r.w), f(r.h), palette[r.series], esc(s.legend[r.series]+" · "+r.tip))
		}
		b.WriteString("</g>\n")
	}

	fmt.Fprintf(b, `<g class="axes" stroke="#333"><line x1="%s" y1="%s" x2="%s" y2="%s"/><line x1="%s" y1="%s" x2="%s" y2="%s"/></g>`+"\n",
		f(s.left), f(s.top), f(s.left), f(s.bottom), f(s.left), f(s.bottom), f(s.right), f(s.bottom))
	b.WriteString(`<g class="x-axis">` + "\n")
	for _, t := range s.xTicks {
		fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="#333"/>`+"\n", f(t.pos), f(s.bottom), f(t.pos), f(s.bottom+4))
		if s.rotate {
			y := s.bottom + 8
			fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="end" dominant-baseline="middle" transform="rotate(-90 %s %s)">%s</text>`+"\n",
				f(t.pos), f(y), f(t.pos), f(y), esc(t.text))
		} else {
			fmt.Fprintf(b, `<text x="%s" y="%s" text-anchor="middle">%s</text>`+"\n", f(t.pos), f(s.bottom+18), esc(t.text))
		}
	}
	b.WriteString("</g>\n")

	b.WriteString(`<g class="legend">` + "\n")
	x := s.legendX0
	for k, name := range s.legend {
		fmt.Fprintf(b, `<rect x="%s" y="%s" width="10" height="10" fill="%s"/>`, f(x), f(s.legendY-9), palette[k])
		fmt.Fprintf(b, `<text x="%s" y="%s">%s</text>`+"\n", f(x+14), f(s.legendY), esc(name))
		x += float64(14+len([]rune(name))*charWidth) + 20
	}
	b.WriteString("</g>\n</svg>\n")
}
