package schema_test

import (
	"database/sql"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/schema"
)

func TestWords(t *testing.T) {
	tests := []struct {
		text string
		want []string
	}{
		{"Free Meal Count (K-12)", []string{"free", "meal", "count", "k", "12"}},
		{"freeMealCount", []string{"free", "meal", "count"}},
		{"CDSCode", []string{"cds", "code"}},
		{"delete_flag", []string{"delete", "flag"}},
		{"Percent (%) Eligible FRPM (K-12)", []string{"percent", "eligible", "frpm", "k", "12"}},
		{"HTTPServer", []string{"http", "server"}},
		{"enrollment2024", []string{"enrollment", "2024"}},
		{"free meals", []string{"free", "meal"}},                   // a plural "s" is dropped
		{"class address bus", []string{"class", "address", "bus"}}, // but not "ss", nor from short words
		{"Élève_Nom", []string{"élève", "nom"}},
		{"  --  ", nil},
		{"", nil},
	}
	for _, tt := range tests {
		t.Run(tt.text, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, schema.Words(tt.text), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Words(%q) (-want +got):\n%s", tt.text, diff)
			}
		})
	}
}

func TestClosest(t *testing.T) {
	names := []string{"customers", "products", "order", "Order Items", "drop_log", "SchoolStats", "customer_totals"}
	tests := []struct {
		name string
		n    int
		want []string
	}{
		{"customer", 3, []string{"customers", "customer_totals"}}, // contained, in the order given
		{"CUSTOMERS", 3, []string{"customers"}},
		{"customer", 1, []string{"customers"}},
		{"prodcuts", 3, []string{"products"}}, // a typo
		{"orders", 3, []string{"order"}},
		{"Order_Items", 3, []string{"order", "Order Items"}}, // containment before distance
		{"schoolstat", 3, []string{"SchoolStats"}},
		{"xyz", 3, nil},
		{"", 3, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, schema.Closest(tt.name, names, tt.n), cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("Closest(%q, %d) (-want +got):\n%s", tt.name, tt.n, diff)
			}
		})
	}
}

func TestSearchDemo(t *testing.T) {
	cat := demoCatalog(t)
	tests := []struct {
		name, query string
		table       string // of the best match
		column      string
		matched     []string
	}{
		{"spaces and punctuation in a name", "free meal", "StateMealProgram", "Free Meal Count (K-12)", []string{"name", "table name", "table description"}},
		{"plural", "free meals", "StateMealProgram", "Free Meal Count (K-12)", []string{"name", "table name", "table description"}},
		{"acronym split from a word", "cds code", "schools", "CDSCode", []string{"name", "join key"}},
		{"a word only in a description", "poverty", "schools", "is_title_i", []string{"description"}},
		{"a word only in a value note", "voided", "enrollments", "is_deleted", []string{"values"}},
		{"a prefix", "principa", "schools", "principal", []string{"name"}}, // each word counts in its best field
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			matches, err := cat.Search(t.Context(), tt.query, 5)
			if err != nil {
				t.Fatal(err)
			}
			if len(matches) == 0 {
				t.Fatalf("Search(%q) found nothing", tt.query)
			}
			best := matches[0]
			got := []any{best.Table, best.Column, best.Matched}
			want := []any{tt.table, tt.column, tt.matched}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Search(%q): best match (table, column, matched) (-want +got):\n%s\nall: %+v", tt.query, diff, matches)
			}
		})
	}
}

func TestSearchResults(t *testing.T) {
	cat := demoCatalog(t)
	t.Run("a table", func(t *testing.T) {
		matches, err := cat.Search(t.Context(), "vendors", 20)
		if err != nil {
			t.Fatal(err)
		}
		want := schema.Match{Table: "vendors", Matched: []string{"name"}, Why: "name: vendor", Description: "Suppliers the district buys from."}
		for _, m := range matches {
			if m.Table == "vendors" && m.Column == "" {
				if diff := cmp.Diff(want, m, cmpopts.IgnoreFields(schema.Match{}, "Score"), cmpopts.IgnoreUnexported(schema.Match{})); diff != "" || m.Score <= 0 {
					t.Errorf("the table's match (-want +got):\n%s", diff)
				}
				return
			}
		}
		t.Errorf("Search(%q) did not find the table: %+v", "vendors", matches)
	})
	t.Run("best first, at most limit", func(t *testing.T) {
		matches, err := cat.Search(t.Context(), "school", 4)
		if err != nil {
			t.Fatal(err)
		}
		if len(matches) != 4 {
			t.Fatalf("got %d matches, want 4", len(matches))
		}
		for i := 1; i < len(matches); i++ {
			if matches[i].Score > matches[i-1].Score {
				t.Errorf("match %d scores %v, more than match %d's %v", i, matches[i].Score, i-1, matches[i-1].Score)
			}
		}
	})
	t.Run("no limit", func(t *testing.T) {
		all, err := cat.Search(t.Context(), "school", 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(all) <= 4 {
			t.Errorf("got %d matches with no limit, want more than 4", len(all))
		}
	})
	for _, query := range []string{"", "  ?! ", "zzzqqq"} {
		t.Run("nothing for "+query, func(t *testing.T) {
			matches, err := cat.Search(t.Context(), query, 5)
			if err != nil {
				t.Fatal(err)
			}
			if matches == nil || len(matches) != 0 {
				t.Errorf("Search(%q) = %#v, want an empty, non-nil list", query, matches)
			}
		})
	}
}

// TestSearchValues: a question's words find the column whose values hold
// them, once the value index is built, and the match shows the value.
func TestSearchValues(t *testing.T) {
	cat := demoCatalog(t)
	if err := cat.IndexValues(t.Context()); err != nil {
		t.Fatal(err)
	}
	matches, err := cat.Search(t.Context(), "Who is the principal of Lincoln High School?", 10)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range matches {
		if m.Table == "schools" && m.Column == "name" {
			if m.Value != "Lincoln High School" || !slices.Contains(m.Matched, "value") {
				t.Errorf("schools.name matched %v with value %q, want the value Lincoln High School", m.Matched, m.Value)
			}
			return
		}
	}
	t.Errorf("schools.name is not among %+v", matches)
}

// TestSearchCovers: the list covers the question's words, a name
// compared with a value means the columns holding the value, a time in
// the question raises its tables' date columns, and a very common word
// cannot flood it.
func TestSearchCovers(t *testing.T) {
	cat := demoCatalog(t)
	if err := cat.IndexValues(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		query string
		want  []string // table.column, each within the first 10
		first string   // the first match, when set
	}{
		{"Which students got an incomplete grade in Biology?", []string{"courses.title", "students.student_id"}, ""},
		{"status = 'absent'", []string{"attendance.status"}, "attendance.status"},
		{"How many attendance exceptions were there in March 2023?", []string{"attendance.attendance_date"}, ""},
		{"gradelevel = 9", []string{"students.grade_level"}, "students.grade_level"}, // a whole name, its underscores aside
	} {
		matches, err := cat.Search(t.Context(), c.query, 10)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i, m := range matches {
			got = append(got, m.Table+"."+m.Column)
			if i > 0 && m.Score > matches[i-1].Score {
				t.Errorf("%q: score %v at %d follows %v", c.query, m.Score, i, matches[i-1].Score)
			}
		}
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("%q: %s is not among %v", c.query, w, got)
			}
		}
		if c.first != "" && (len(got) == 0 || got[0] != c.first) {
			t.Errorf("%q: first is not %s: %v", c.query, c.first, got)
		}
	}
}

// TestSearchBaseFirst: of a table, its copies (orders_2023, stg_orders)
// and a view over it, which all hold the column a question asks for, the
// base table's comes first, and a year in the question does not draw the
// copy named after it.
func TestSearchBaseFirst(t *testing.T) {
	path := filepath.Join(t.TempDir(), "copies.sqlite")
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		"CREATE TABLE orders (order_id INTEGER PRIMARY KEY, customer TEXT, order_total REAL, placed_on TEXT)",
		"CREATE TABLE orders_2023 (order_id INTEGER PRIMARY KEY, customer TEXT, order_total REAL, placed_on TEXT)",
		"CREATE TABLE stg_orders (order_id INTEGER, customer TEXT, order_total REAL, placed_on TEXT, loaded_at TEXT)",
		"CREATE VIEW order_totals AS SELECT order_id, order_total FROM orders",
	} {
		if _, err := db.Exec(stmt); err != nil {
			t.Fatal(err)
		}
	}
	db.Close()
	cat := fixtureCatalog(t, path, nil)
	matches, err := cat.Search(t.Context(), "What was the order total of orders placed in 2023?", 10)
	if err != nil {
		t.Fatal(err)
	}
	at := map[string]int{}
	for i, m := range matches {
		key := m.Table + "." + m.Column
		if _, ok := at[key]; !ok {
			at[key] = i
		}
	}
	base, ok := at["orders.order_total"]
	if !ok {
		t.Fatalf("orders.order_total is not among %+v", matches)
	}
	for _, other := range []string{"orders_2023.order_total", "stg_orders.order_total", "order_totals.order_total"} {
		if i, ok := at[other]; ok && i < base {
			t.Errorf("%s at %d comes before orders.order_total at %d", other, i, base)
		}
	}
	if len(matches) > 0 && matches[0].Table == "orders_2023" {
		t.Errorf("the first match is orders_2023's: %+v", matches[0])
	}
}

// TestSearchAbbreviations: the words of a question find the names that
// abbreviate them as legacy schemas do, beyond the list of common short
// forms: a word's first letters (ord, disc, stat) or its first letter and
// consonants (prc, nm, cd), and only in names: the same letters in a
// description or a value are another word.
func TestSearchAbbreviations(t *testing.T) {
	path := filepath.Join(t.TempDir(), "legacy.db")
	w, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Exec(`CREATE TABLE cust (cust_id INTEGER PRIMARY KEY, cust_nm TEXT, dob TEXT, zip_cd TEXT);
CREATE TABLE ord_hdr (ord_id INTEGER PRIMARY KEY, cust_id INT, ord_dt TEXT, ship_dt TEXT, stat_cd TEXT);
CREATE TABLE ord_ln (ord_id INT, ln_no INT, prod_id INT, qty INT, unit_prc REAL, disc_pct REAL);
CREATE TABLE staff (id INTEGER PRIMARY KEY, last_name TEXT, note TEXT);
INSERT INTO staff VALUES (1, 'Ord', 'disc golf'), (2, 'Prc', 'stat');`); err != nil {
		t.Fatal(err)
	}
	w.Close()
	cat, err := schema.New(dbtest.Open(t, path, nil), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := cat.IndexValues(t.Context()); err != nil {
		t.Fatal(err)
	}
	for query, want := range map[string]string{
		"customer name":  "cust.cust_nm",
		"order date":     "ord_hdr.ord_dt",
		"unit price":     "ord_ln.unit_prc",
		"discount":       "ord_ln.disc_pct",
		"status":         "ord_hdr.stat_cd",
		"shipping date":  "ord_hdr.ship_dt",
		"zip code":       "cust.zip_cd",
		"order quantity": "ord_ln.qty",
	} {
		matches, err := cat.Search(t.Context(), query, 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(matches) == 0 || matches[0].Table+"."+matches[0].Column != want {
			t.Errorf("Search(%q): got %+v first, want %s", query, matches, want)
		}
		for _, m := range matches {
			if m.Table == "staff" && strings.Contains(m.Why, "abbreviation") {
				t.Errorf("Search(%q): %s.%s matched an abbreviation outside a name: %s", query, m.Table, m.Column, m.Why)
			}
		}
	}
}
