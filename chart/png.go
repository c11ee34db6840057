package chart

import (
	"bytes"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"strconv"

	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

var (
	black = color.RGBA{0x33, 0x33, 0x33, 0xff}
	grey  = color.RGBA{0x66, 0x66, 0x66, 0xff}
	grid  = color.RGBA{0xe5, 0xe5, 0xe5, 0xff}
)

// writePNG renders s as a PNG image, with basicfont's 7x13 letters.
func writePNG(b *bytes.Buffer, s *scene) error {
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	draw.Draw(img, img.Bounds(), image.White, image.Point{}, draw.Src)
	r := func(v float64) int { return int(math.Round(v)) }
	face := basicfont.Face7x13

	text(img, s.title, width/2, 24, black, 0)
	text(img, s.title, width/2+1, 24, black, 0) // bold
	if s.note != "" {
		text(img, s.note, width/2, 42, grey, 0)
	}
	for _, t := range s.yTicks {
		hline(img, r(s.left), r(s.right), r(t.pos), grid)
		text(img, t.text, r(s.left)-6, r(t.pos)+face.Ascent/2-1, black, 1)
	}
	for _, b := range s.bars {
		fill(img, image.Rect(r(b.x), r(b.y), max(r(b.x+b.w), r(b.x)+1), max(r(b.y+b.h), r(b.y)+1)), hex(palette[b.series]))
	}
	for k, runs := range s.lines {
		c := hex(palette[k])
		for _, run := range runs {
			for i := 1; i < len(run); i++ {
				segment(img, run[i-1], run[i], c)
			}
			if len(run) <= 100 {
				for _, p := range run {
					fill(img, image.Rect(r(p.x)-2, r(p.y)-2, r(p.x)+3, r(p.y)+3), c)
				}
			}
		}
	}
	vline(img, r(s.left), r(s.top), r(s.bottom), black)
	hline(img, r(s.left), r(s.right), r(s.bottom), black)
	for _, t := range s.xTicks {
		vline(img, r(t.pos), r(s.bottom), r(s.bottom)+4, black)
		if s.rotate {
			upward(img, t.text, r(t.pos), r(s.bottom)+8, black)
		} else {
			text(img, t.text, r(t.pos), r(s.bottom)+18, black, 0)
		}
	}
	x := r(s.legendX0)
	for k, name := range s.legend {
		fill(img, image.Rect(x, r(s.legendY)-9, x+10, r(s.legendY)+1), hex(palette[k]))
		text(img, name, x+14, r(s.legendY), black, -1)
		x += 14 + len([]rune(name))*charWidth + 20
	}
	return png.Encode(b, img)
}

// text draws t with its baseline at y: centred on x (align 0), ending at
// x (1) or starting at x (-1).
func text(img draw.Image, t string, x, y int, c color.Color, align int) {
	d := &font.Drawer{Dst: img, Src: image.NewUniform(c), Face: basicfont.Face7x13}
	w := d.MeasureString(t).Round()
	switch align {
	case 0:
		x -= w / 2
	case 1:
		x -= w
	}
	d.Dot = fixed.P(x, y)
	d.DrawString(t)
}

// upward draws t turned a quarter left, reading bottom to top, ending just
// below (x, y) and centred on x.
func upward(img *image.RGBA, t string, x, y int, c color.Color) {
	face := basicfont.Face7x13
	w := font.MeasureString(face, t).Round()
	h := face.Ascent + face.Descent
	tmp := image.NewRGBA(image.Rect(0, 0, w, h))
	text(tmp, t, 0, face.Ascent, c, -1)
	for sy := range h {
		for sx := range w {
			if p := tmp.RGBAAt(sx, sy); p.A != 0 {
				img.Set(x-h/2+sy, y+w-1-sx, p)
			}
		}
	}
}

func fill(img draw.Image, r image.Rectangle, c color.Color) {
	draw.Draw(img, r, image.NewUniform(c), image.Point{}, draw.Src)
}

func hline(img draw.Image, x0, x1, y int, c color.Color) { fill(img, image.Rect(x0, y, x1+1, y+1), c) }
func vline(img draw.Image, x, y0, y1 int, c color.Color) { fill(img, image.Rect(x, y0, x+1, y1+1), c) }

// segment draws a line two pixels thick from a to b.
func segment(img draw.Image, a, b point, c color.Color) {
	n := int(math.Ceil(max(math.Abs(b.x-a.x), math.Abs(b.y-a.y))))
	for i := 0; i <= n; i++ {
		t := 0.0
		if n > 0 {
			t = float64(i) / float64(n)
		}
		x, y := int(math.Round(a.x+t*(b.x-a.x))), int(math.Round(a.y+t*(b.y-a.y)))
		fill(img, image.Rect(x-1, y-1, x+1, y+1), c)
	}
}

// hex reads "#rrggbb".
func hex(s string) color.RGBA {
	v, _ := strconv.ParseUint(s[1:], 16, 32)
	return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 0xff}
}
