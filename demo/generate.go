package demo

import (
	"cmp"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"
)

var (
	snapshot = day(2024, 3, 15) // the day the district exported this data
	years    = []struct {
		label      string
		start, end time.Time // first and last day of instruction
	}{
		{"2022-2023", day(2022, 8, 22), day(2023, 6, 9)},
		{"2023-2024", day(2023, 8, 21), day(2024, 6, 7)},
	}
)

func day(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
func date(t time.Time) string                  { return t.Format(time.DateOnly) }
func later(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// grade spells grade level g as stored: "K" for 0, else the number.
func grade(g int) string {
	if g == 0 {
		return "K"
	}
	return strconv.Itoa(g)
}

type school struct {
	id               int
	cds, name, typ   string
	lo, hi           int // grades served, 0 = K
	weight           float64
	freeRate, effect float64 // share of students eligible for free meals; score effect
	census           [2]int  // students enrolled on census day per year
	teachers         []*teacher
}

type teacher struct {
	id      int
	subject string
	left    bool
}

type student struct {
	id, school   int
	grade, lastY int // grade in the last year attended, and that year's index in years
	entry, left  time.Time
	ability      float64
	schools      [2]*school // school attended each year, nil if not enrolled
}

// window returns the days student s was enrolled in year y, up to the snapshot.
func (s *student) window(y int) (from, to time.Time, ok bool) {
	if s.schools[y] == nil {
		return
	}
	from, to = years[y].start, years[y].end
	if s.entry.After(from) {
		from = s.entry
	}
	if !s.left.IsZero() && s.left.Before(to) {
		to = s.left
	}
	if snapshot.Before(to) {
		to = snapshot
	}
	return from, to, from.Before(to)
}

// gen fills the tables from a fixed-seed generator; the first insert error sticks in err.
type gen struct {
	r       *rand.Rand
	ins     map[string]*sql.Stmt
	err     error
	schools []*school
}

func (g *gen) insert(table string, args ...any) {
	if g.err != nil {
		return
	}
	if _, err := g.ins[table].Exec(args...); err != nil {
		g.err = fmt.Errorf("inserting into %s: %w", table, err)
	}
}

func (g *gen) name() (string, string) { return pick(g.r, firstNames), pick(g.r, lastNames) }
func (g *gen) chance(p float64) bool  { return g.r.Float64() < p }
func (g *gen) phone() string          { return fmt.Sprintf("(562) 555-%04d", g.r.IntN(10000)) }
func (g *gen) days(t time.Time, n int) time.Time {
	return t.AddDate(0, 0, g.r.IntN(n))
}
func (g *gen) stamp(t time.Time, fromHour, hours int) string {
	return t.Add(time.Duration(fromHour*3600+g.r.IntN(hours*3600)) * time.Second).Format(time.DateTime)
}

func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

func weekday(t time.Time) time.Time {
	for t.Weekday() == time.Saturday || t.Weekday() == time.Sunday {
		t = t.AddDate(0, 0, 1)
	}
	return t
}

// nullable returns nil (SQL NULL) when keep is false.
func nullable(keep bool, v any) any {
	if !keep {
		return nil
	}
	return v
}

func (g *gen) run() error {
	g.planSchools()
	students := g.planStudents()
	g.planTeachers()
	g.insertSchools()
	for i, cr := range courseList {
		credits := nullable(cr.lo >= 9, 5.0)
		g.insert("courses", i+1, cr.code, cr.title, cr.subject, grade(cr.lo), grade(cr.hi), credits, strings.HasPrefix(cr.title, "AP "))
	}
	g.insertTeachers()
	g.insertStudents(students)
	g.insertVendorsAndOrders()
	g.insertMeals()
	g.insertEnrollments(students)
	g.insertTests(students)
	g.insertAttendance(students)
	return g.err
}

func (g *gen) planSchools() {
	words := slices.Clone(schoolWords)
	g.r.Shuffle(len(words), func(i, j int) { words[i], words[j] = words[j], words[i] })
	add := func(typ, suffix string, lo, hi int, weight float64) {
		i := len(g.schools)
		s := &school{id: i + 1, name: words[i] + " " + suffix, typ: typ, lo: lo, hi: hi,
			cds:      fmt.Sprintf("1964733%07d", 6010000+i*3371+g.r.IntN(1000)),
			weight:   weight * (0.6 + 0.8*g.r.Float64()),
			freeRate: 0.08 + 0.64*g.r.Float64(),
		}
		s.effect = 20*g.r.NormFloat64() - 70*(s.freeRate-0.4)
		g.schools = append(g.schools, s)
	}
	for range 12 {
		add("Elementary", "Elementary", 0, 5, 1)
	}
	for range 6 {
		add("Middle", "Middle School", 6, 8, 1)
	}
	for range 4 {
		add("High", "High School", 9, 12, 1)
	}
	add("Charter", "Charter Academy", 0, 8, 0.4)
	add("Charter", "Preparatory Academy", 6, 12, 0.4)
	add("Charter", "STEM Charter High", 9, 12, 0.5)
	for _, s := range g.schools {
		if s.typ == "Charter" {
			s.effect += 30
		}
	}
}

// covering returns the schools serving grade gr.
func (g *gen) covering(gr int) []*school {
	var out []*school
	for _, s := range g.schools {
		if s.lo <= gr && gr <= s.hi {
			out = append(out, s)
		}
	}
	return out
}

func (g *gen) planStudents() []*student {
	var out []*student
	for i := range 5000 {
		s := &student{id: 100001 + i, grade: g.r.IntN(13), lastY: 1, ability: g.r.NormFloat64()}
		switch x := g.r.Float64(); {
		case x < 0.06:
			s.grade, s.lastY = 12, 0
		case x < 0.15:
			s.left = weekday(g.days(day(2022, 9, 6), 550))
			if s.left.Before(years[1].start) {
				s.lastY = 0
			}
		}
		cands := g.covering(s.grade)
		total := 0.0
		for _, c := range cands {
			total += c.weight
		}
		w, cur := g.r.Float64()*total, cands[len(cands)-1]
		for _, c := range cands {
			if w -= c.weight; w < 0 {
				cur = c
				break
			}
		}
		s.school = cur.id
		// Most students started in kindergarten; the rest joined in a later grade.
		back := s.grade
		if g.chance(0.3) {
			back = g.r.IntN(s.grade + 1)
		}
		first := s.lastY - back
		entryYear := years[0].start.Year() + first
		s.entry = day(entryYear, 8, 21+g.r.IntN(4))
		if g.chance(0.15) { // a transfer in during the year
			s.entry = weekday(g.days(day(entryYear, 9, 1), 190))
		}
		if !s.left.IsZero() && !s.entry.Before(s.left) {
			s.entry = years[s.lastY].start.AddDate(0, 0, -3)
		}
		for y := range years {
			gy := s.grade - (s.lastY - y)
			if y > s.lastY || gy < 0 || entryYear > years[y].start.Year() {
				continue
			}
			if s.schools[y] = cur; gy < cur.lo || gy > cur.hi {
				c := g.covering(gy)
				s.schools[y] = c[s.id%len(c)]
			}
			census := day(years[y].start.Year(), 10, 4)
			if from, to, ok := s.window(y); ok && !from.After(census) && !to.Before(census) {
				s.schools[y].census[y]++
			}
		}
		out = append(out, s)
	}
	return out
}

func (g *gen) planTeachers() {
	id := 1
	for _, s := range g.schools {
		var subjects []string
		if s.lo <= 5 {
			subjects = append(subjects, "General Education", "General Education", "General Education", "Arts", "General Education", "Physical Education")
		}
		for _, cr := range courseList {
			if cr.lo >= 6 && cr.lo <= s.hi && cr.hi >= s.lo && !slices.Contains(subjects, cr.subject) {
				subjects = append(subjects, cr.subject)
			}
		}
		n := max(6, int(math.Round(float64(s.census[1])/14.5)))
		for i := range n {
			s.teachers = append(s.teachers, &teacher{id: id, subject: subjects[i%len(subjects)], left: g.chance(0.05)})
			id++
		}
	}
}

func (g *gen) insertSchools() {
	for _, s := range g.schools {
		var badge []byte
		if g.chance(0.8) { // a symmetric 16x16 pattern, like an identicon
			badge = []byte("P4\n16 16\n")
			for range 16 {
				half := byte(g.r.IntN(256))
				var mirror byte
				for b := range 8 {
					mirror |= (half >> b & 1) << (7 - b)
				}
				badge = append(badge, half, mirror)
			}
		}
		first, last := g.name()
		g.insert("schools", s.id, s.cds, s.name, s.typ, grade(s.lo), grade(s.hi),
			fmt.Sprintf("%d %s %s", 100+g.r.IntN(9800), pick(g.r, streets), pick(g.r, []string{"St", "Ave", "Blvd", "Rd"})),
			pick(g.r, cities), fmt.Sprint(90800+g.r.IntN(20)), nullable(g.chance(0.9), g.phone()),
			first+" "+last, date(g.days(day(1952, 9, 1), 365*68)), s.freeRate > 0.5, badge)
	}
}

func (g *gen) insertTeachers() {
	emails := map[string]int{}
	for _, s := range g.schools {
		for _, t := range s.teachers {
			first, last := g.name()
			user := strings.ToLower(first[:1] + last)
			if emails[user]++; emails[user] > 1 {
				user += fmt.Sprint(emails[user])
			}
			hired := g.days(day(1994, 8, 1), 365*29)
			salary := 52000 + 1650*float64(snapshot.Year()-hired.Year()) + float64(g.r.IntN(40)*100)
			phone := nullable(g.chance(0.7), strings.NewReplacer("(", "", ") ", "-").Replace(g.phone()))
			g.insert("teachers", t.id, s.id, first, last, user+"@riverbend.k12.example", phone,
				t.subject, date(hired), salary, g.chance(0.92), t.left)
		}
	}
}

func (g *gen) insertStudents(students []*student) {
	for _, s := range students {
		first, last := g.name()
		born := g.days(day(2016-s.grade+s.lastY, 9, 1), 365)
		status, left, grad := "active", any(nil), any(nil)
		if s.lastY == 0 && s.left.IsZero() {
			status, grad = "graduated", 2023
		} else if !s.left.IsZero() {
			status, left = "withdrawn", date(s.left)
		}
		gender := pick(g.r, []any{"F", "M", "F", "M", "F", "M", "F", "M", "X", nil})
		lang := pick(g.r, languages)
		phone := any(nil)
		if g.chance(0.88) { // typed by different office staff: "(562) 555-0134" or "5625550134"
			phone = pick(g.r, []func(string) string{strings.TrimSpace, strings.NewReplacer("(", "", ") ", "", "-", "").Replace})(g.phone())
		}
		g.insert("students", s.id, s.school, first, last, date(born), gender, grade(s.grade), status,
			date(s.entry), left, grad, lang, lang != "English" && g.chance(0.6), g.chance(0.12), phone)
	}
}

func (g *gen) insertMeals() {
	for _, s := range g.schools {
		for y, yr := range years {
			enr := float64(s.census[y])
			free := math.Round(enr * s.freeRate * (0.96 + 0.08*g.r.Float64()))
			frpm := free + math.Round(enr*(0.03+0.07*g.r.Float64()))
			var freeV, frpmV, pFree, pFRPM any = free, frpm, math.Round(free/enr*1e4) / 1e4, math.Round(frpm/enr*1e4) / 1e4
			if s.typ == "Charter" && s.lo == 6 && y == 1 { // one charter missed the state deadline
				freeV, frpmV, pFree, pFRPM = nil, nil, nil, nil
			}
			g.insert("StateMealProgram", s.cds, yr.label, "Alameda", "Riverbend Unified", strings.ToUpper(s.name),
				s.typ == "Charter", enr, freeV, pFree, frpmV, pFRPM)
		}
	}
}

type drop struct {
	student, course int
	term, at        string
	reason          any
}

func (g *gen) insertEnrollments(students []*student) {
	var drops []drop
	reasons := []any{"schedule conflict", "changed level", "parent request", "teacher recommendation", "moved to online section", nil}
	for _, s := range students {
		for y, yr := range years {
			from, to, ok := s.window(y)
			if !ok {
				continue
			}
			gy, sc := s.grade-(s.lastY-y), s.schools[y]
			var eligible []int
			for i, cr := range courseList {
				if cr.lo <= gy && gy <= cr.hi {
					eligible = append(eligible, i)
				}
			}
			perm := g.r.Perm(len(eligible))
			for _, p := range perm[:2] {
				ci, cr := eligible[p], courseList[eligible[p]]
				var teacherID any
				if g.chance(0.98) {
					teacherID = g.teacherFor(sc, cr.subject).id
				}
				terms := []struct {
					code       string
					start, end time.Time
				}{
					{fmt.Sprintf("%d-FA", yr.start.Year()), yr.start, day(yr.start.Year(), 12, 16)},
					{fmt.Sprintf("%d-SP", yr.end.Year()), day(yr.end.Year(), 1, 9), yr.end},
				}
				for _, tm := range terms {
					if !tm.start.Before(to) || !tm.end.After(from) {
						continue
					}
					begin := later(from, tm.start)
					at := g.stamp(begin.AddDate(0, 0, -g.r.IntN(14)), 7, 10)
					status, score, letter := "completed", any(nil), any(nil)
					switch x := g.r.Float64(); {
					case !s.left.IsZero() && s.left.Before(tm.end):
						status = "dropped"
						drops = append(drops, drop{s.id, ci + 1, tm.code, g.stamp(s.left, 9, 8), "withdrew from school"})
					case x < 0.03:
						status = "dropped"
						drops = append(drops, drop{s.id, ci + 1, tm.code, g.stamp(g.days(begin, 30), 8, 9), pick(g.r, reasons)})
					case snapshot.Before(tm.end):
						status = "enrolled"
					case x < 0.035:
						status, letter = "incomplete", "I"
					default:
						v := math.Round(10*max(35, min(100, 80+7*s.ability+sc.effect/8+7*g.r.NormFloat64()))) / 10
						score, letter = v, string("FFFFFFDCBAA"[int(v)/10])
					}
					g.insert("enrollments", s.id, ci+1, tm.code, teacherID, at, status, score, letter, g.chance(0.004))
				}
			}
		}
	}
	slices.SortStableFunc(drops, func(a, b drop) int { return cmp.Compare(a.at, b.at) })
	staff := []string{"mreyes", "jokafor", "registrar", "tlam", "admin"}
	for i, d := range drops {
		g.insert("drop_log", i+1, d.student, d.course, d.term, d.at, d.reason, pick(g.r, staff))
	}
}

// teacherFor picks a current teacher at s for the subject (any subject if empty),
// falling back to any current teacher there.
func (g *gen) teacherFor(s *school, subject string) *teacher {
	var byDept, all []*teacher
	for _, t := range s.teachers {
		if t.left {
			continue
		}
		all = append(all, t)
		if subject == "" || t.subject == subject || t.subject == "General Education" {
			byDept = append(byDept, t)
		}
	}
	if len(byDept) > 0 {
		return pick(g.r, byDept)
	}
	if len(all) > 0 {
		return pick(g.r, all)
	}
	return s.teachers[0]
}

func (g *gen) insertTests(students []*student) {
	admins := []struct {
		name   string
		m      time.Month
		d, len int
		shift  float64
	}{{"Fall Interim", 10, 10, 14, -22}, {"Winter Interim", 1, 23, 10, -9}, {"Spring Summative", 5, 1, 20, 0}}
	id := 1
	for _, s := range students {
		for y, yr := range years {
			from, to, ok := s.window(y)
			gy := s.grade - (s.lastY - y)
			if !ok || gy < 3 || (gy > 8 && gy != 11) {
				continue
			}
			for _, a := range admins {
				year := yr.start.Year()
				if a.m < 8 {
					year++
				}
				when := weekday(g.days(day(year, a.m, a.d), a.len))
				if when.Before(from) || when.After(to) {
					continue
				}
				for _, subj := range []string{"Math", "ELA", "Science"} {
					if subj == "Science" && (a.name != "Spring Summative" || gy%3 != 2) {
						continue
					}
					mean := 2380 + 28*float64(min(gy, 9)-3) + a.shift
					var score, level any
					if g.chance(0.985) {
						v := math.Round(mean + s.schools[y].effect + 60*s.ability + 25*g.r.NormFloat64())
						lvl := 1
						for _, cut := range []float64{-45, 0, 50} {
							if v >= mean+cut {
								lvl++
							}
						}
						score, level = v, lvl
					}
					g.insert("test_scores", id, s.id, s.schools[y].id, subj, a.name, date(when), grade(gy), score, level)
					id++
				}
			}
		}
	}
}

func (g *gen) insertAttendance(students []*student) {
	excuses := []string{"illness", "illness", "illness", "medical appointment", "family emergency", "religious observance", "bereavement"}
	for _, s := range students {
		gap := 25 + 60*g.r.Float64()
		if g.chance(0.08) { // chronically absent
			gap = 4 + 6*g.r.Float64()
		}
		for y := range years {
			from, to, ok := s.window(y)
			for d := from.AddDate(0, 0, 1+g.r.IntN(int(2*gap))); ok; d = d.AddDate(0, 0, 1+g.r.IntN(int(2*gap))) {
				if d = weekday(d); !d.Before(to) {
					break
				}
				status, excused, reason, late := "absent", false, any(nil), any(nil)
				recorded := g.stamp(d, 9, 3)
				switch x := g.r.Float64(); {
				case x < 0.30:
					status, late, recorded = "tardy", 3+g.r.IntN(48), g.stamp(d, 8, 1)
					excused = g.chance(0.15)
				case x < 0.37:
					status, excused, reason, recorded = "early_dismissal", true, pick(g.r, excuses[:4]), g.stamp(d, 11, 4)
				case x < 0.385:
					reason = "suspension"
				case g.chance(0.5):
					excused, reason = true, pick(g.r, excuses)
				}
				if g.chance(0.05) { // entered late by the office
					recorded = g.stamp(weekday(d.AddDate(0, 0, 1+g.r.IntN(5))), 8, 8)
				}
				g.insert("attendance", s.id, date(d), status, excused, reason, late, recorded)
			}
		}
	}
}

func (g *gen) insertVendorsAndOrders() {
	vendors := []struct{ name, category, email string }{
		{"Acme School Supply", "Classroom Supplies", "orders@acmeschoolsupply.example"},
		{"Bright Minds Educational", "Classroom Supplies", ""},
		{"TechWorks Direct", "Technology", "k12@techworks.example"},
		{"Chromatic Computer Co.", "Technology", "sales@chromatic.example"},
		{"Sturdy Seating Inc.", "Furniture", "bids@sturdyseating.example"},
		{"CleanPro Janitorial", "Cleaning", "service@cleanpro.example"},
		{"Pacific Paper & Sanitation", "Cleaning", ""},
		{"Page Turner Books", "Books", "schools@pageturner.example"},
		{"Golden State Food Service", "Food Service", "accounts@gsfood.example"},
		{"LabLine Scientific", "Science Lab", "edu@labline.example"},
		{"Discount Desk Depot", "Furniture", "info@deskdepot.example"},
	}
	for i, v := range vendors {
		g.insert("vendors", i+1, v.name, v.category, nullable(v.email != "", v.email), g.phone(), i != len(vendors)-1)
	}
	items := []struct {
		name, category string
		price          float64
		most           int
	}{
		{"Copy paper, case of 10 reams", "Classroom Supplies", 54.99, 20}, {"Dry-erase markers, 12 pack", "Classroom Supplies", 11.49, 30},
		{"Composition notebooks, 24 pack", "Classroom Supplies", 28.80, 10}, {"#2 pencils, 144 count", "Classroom Supplies", 17.25, 12},
		{"Chromebook", "Technology", 289.00, 35}, {"Chromebook charger", "Technology", 34.50, 20}, {"Student headphones", "Technology", 12.99, 40},
		{"Document camera", "Technology", 119.00, 3}, {"Student desk", "Furniture", 139.00, 30}, {"Stacking chair", "Furniture", 48.75, 36},
		{"Bookshelf", "Furniture", 210.00, 4}, {"Disinfectant wipes, case", "Cleaning", 64.20, 15}, {"Paper towels, case", "Cleaning", 38.40, 25},
		{"Library books, assorted", "Books", 15.95, 60}, {"Class novel set (30 copies)", "Books", 269.00, 4},
		{"Lunch trays, 500 count", "Food Service", 79.00, 10}, {"Microscope", "Science Lab", 189.00, 12}, {"Safety goggles, 12 pack", "Science Lab", 46.00, 6},
	}
	var when []time.Time
	for range 1400 {
		when = append(when, weekday(g.days(day(2022, 8, 1), int(snapshot.Sub(day(2022, 8, 1)).Hours()/24))))
	}
	slices.SortFunc(when, func(a, b time.Time) int { return a.Compare(b) })
	notes := []any{"rush", "replaces damaged stock", "for STEM night", "split shipment OK", "grant funded"}
	for i, t := range when {
		s := g.schools[g.r.IntN(len(g.schools))]
		it := pick(g.r, items)
		var vs []int
		for v, vd := range vendors {
			if vd.category == it.category && v != len(vendors)-1 {
				vs = append(vs, v+1)
			}
		}
		var by any
		if g.chance(0.7) {
			by = g.teacherFor(s, "").id
		}
		price := math.Round(it.price*(1+0.04*float64(t.Year()-2022))*100) / 100
		status, received := "received", any(nil)
		switch age, x := int(snapshot.Sub(t).Hours()/24), g.r.Float64(); {
		case age < 5:
			status = "pending"
		case age < 12:
			status = "approved"
		case age < 30 || x < 0.04:
			status = "shipped"
		case x < 0.1:
			status = "cancelled"
		default:
			received = date(weekday(g.days(t.AddDate(0, 0, 4), 20)))
		}
		g.insert("order", i+1, s.id, pick(g.r, vs), by, g.stamp(t, 7, 10), it.name, it.category,
			1+g.r.IntN(it.most), price, status, received, nullable(g.chance(0.15), pick(g.r, notes)))
	}
}
