package guard_test

import (
	"fmt"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v6"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

// sameTree fails t when ParseTree and pg.Parse answer sql differently:
// another tree, or an error for one and not the other, or another error.
func sameTree(t *testing.T, sql string) {
	t.Helper()
	want, werr := pg.Parse(sql)
	got, fast, gerr := guard.ParseTree(sql)
	switch {
	case werr != nil || gerr != nil:
		if werr == nil || gerr == nil || werr.Error() != gerr.Error() {
			t.Fatalf("%.200q: pg.Parse: %v; ParseTree: %v", sql, werr, gerr)
		}
	case !proto.Equal(got, want):
		t.Fatalf("%.200q: ParseTree's tree (read from JSON: %v) differs from pg.Parse's:\n got %v\nwant %v", sql, fast, got, want)
	default:
		sameChildren(t, sql, got.ProtoReflect())
	}
}

// sameChildren fails t when, anywhere under m, the walks' children
// (read from the generated structs) differ from protobuf's reflection's.
func sameChildren(t *testing.T, sql string, m protoreflect.Message) {
	t.Helper()
	var want, got []protoreflect.Message
	if n, ok := m.Interface().(*pg.Node); ok {
		// A Node's child is its member's message (TestNodeInner).
		if inner := guard.NodeInner(n); inner != nil {
			want = append(want, inner)
		}
	} else {
		guard.ReflectChildren(m, func(c protoreflect.Message) bool { want = append(want, c); return true })
	}
	guard.Children(m, func(c protoreflect.Message) bool { got = append(got, c); return true })
	if len(got) != len(want) {
		t.Fatalf("%.200q: %s has %d children, want %d", sql, m.Descriptor().Name(), len(got), len(want))
	}
	for i := range want {
		if got[i].Interface() != want[i].Interface() {
			t.Fatalf("%.200q: %s's child %d differs", sql, m.Descriptor().Name(), i)
		}
		sameChildren(t, sql, got[i])
	}
}

// TestParseTreeAsParse: the tree read from the parser's JSON is, for
// every statement of the PostgreSQL corpora, the tree pg.Parse decodes,
// and the JSON is what it is read from for the usual kinds of statement.
func TestParseTreeAsParse(t *testing.T) {
	var all []string
	for _, cases := range [][]dbtest.Case{dbtest.HostilePostgres, dbtest.AllowedPostgres} {
		for _, c := range cases {
			all = append(all, c.SQL)
		}
	}
	all = append(all, fuzzPostgresSeeds...)
	all = append(all,
		`SELECT * FROM customers WHERE id = 1 + 5 * 7919 AND name <> 'x<>"\'`,
		"SELECT E'\\b\\f\\n\\r\\t\\x01\\x1f', U&'\\00e9\\+01F600', 'ünï\u2028', $$<>$$, 1.5e300, -2147483648, 9223372036854775808, NULL, true, B'101', X'ff'",
		"SELECT ARRAY[1, NULL], '{}'::int[], x FROM t GROUP BY ROLLUP (a, (b, c)) HAVING count(*) > 0 ORDER BY 1 DESC NULLS LAST",
		"WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 5) SELECT * FROM r TABLESAMPLE SYSTEM (10) REPEATABLE (0.5)",
		"SELECT xmlelement(name a, xmlattributes(1 AS b)), json_object('a': 1), interval '1' day, CAST(1 AS numeric(10, 2)), 1::float8",
		"SELECT 1; SELECT 2; ; EXPLAIN (ANALYZE false) SELECT 3",
		"SELECT '\x00'", "SELECT 'unterminated", "SELECT * FROM", "",
	)
	fast, parsed := 0, 0
	for _, sql := range all {
		if len(sql) > guard.PrescanFree && guard.PrescanPostgres(sql, 0) != nil {
			continue // the guard refuses it unparsed
		}
		parsed++
		sameTree(t, sql)
		if _, f, err := guard.ParseTree(sql); f && err == nil {
			fast++
		}
	}
	t.Logf("%d of %d statements read from the JSON", fast, parsed)
	if fast < parsed*3/4 {
		t.Errorf("only %d of %d statements were read from the JSON", fast, parsed)
	}
	if _, f, err := guard.ParseTree(all[len(all)-10]); !f || err != nil {
		t.Errorf("the point lookup was not read from the JSON (%v)", err)
	}
	if !strings.Contains(all[len(all)-10], "<>") {
		t.Fatal("the test lost its point lookup")
	}
}

// TestTreeFromJSONStrict: JSON the parser does not write is not read as a
// tree, however close it comes, and a tree it writes is.
func TestTreeFromJSONStrict(t *testing.T) {
	const (
		node  = `{"A_Const":{"ival":{"ival":1},"location":7}}`
		wrap  = `{"version":170007,"stmts":[{"stmt":{"SelectStmt":{"targetList":[{"ResTarget":{"val":%s,"location":7}}],"limitOption":"LIMIT_OPTION_DEFAULT","op":"SETOP_NONE"}}}]}`
		other = `{"ColumnRef":{"fields":[{"String":{"sval":"x"}}]}}`
	)
	js, err := pg.ParseToJSON("SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	if js != fmt.Sprintf(wrap, node) {
		t.Fatalf("the parser's JSON of SELECT 1 is now %s", js)
	}
	want, _ := pg.Parse("SELECT 1")
	if got, ok := guard.TreeFromJSON(js); !ok || !proto.Equal(got, want) {
		t.Fatalf("SELECT 1 read as %v, %v", got, ok)
	}
	for name, val := range map[string]string{
		"two of a oneof":      `{"A_Const":{"ival":{"ival":1},"location":7},"ColumnRef":{"fields":[]}}`,
		"a key twice":         `{"A_Const":{"ival":{"ival":1},"location":7,"location":8}}`,
		"an unknown key":      `{"A_Const":{"ival":{"ival":1},"locations":7}}`,
		"an escaped key":      `{"A_Const":{"ival":{"ival":1},"locatio\u006e":7}}`,
		"int32 out of range":  `{"A_Const":{"ival":{"ival":2147483648},"location":7}}`,
		"a float":             `{"A_Const":{"ival":{"ival":1.5},"location":7}}`,
		"an unknown enum":     `{"SortBy":{"node":` + other + `,"sortbyDir":"SORTBY_SIDEWAYS"}}`,
		"an unknown escape":   `{"String":{"sval":"\x41"}}`,
		"a wide escape":       `{"String":{"sval":"\u00e9"}}`,
		"invalid UTF-8":       "{\"String\":{\"sval\":\"\xff\"}}",
		"null":                `{"String":{"sval":null}}`,
		"a string for a bool": `{"A_Const":{"isnull":"true","location":7}}`,
		"unterminated":        `{"A_Const":{"ival":{"ival":1},"location":7}`,
	} {
		if tree, ok := guard.TreeFromJSON(fmt.Sprintf(wrap, val)); ok {
			t.Errorf("%s: read as %v", name, tree)
		}
	}
	if _, ok := guard.TreeFromJSON(js + "{}"); ok {
		t.Error("JSON after the tree was not refused")
	}
	// Escapes the parser writes are read.
	esc := fmt.Sprintf(wrap, `{"A_Const":{"sval":{"sval":"\u003c\u003e\b\f\n\r\t\"\\\u0001"},"location":7}}`)
	tree, ok := guard.TreeFromJSON(esc)
	if !ok {
		t.Fatal("the parser's escapes were not read")
	}
	if s := tree.Stmts[0].Stmt.GetSelectStmt().TargetList[0].GetResTarget().Val.GetAConst().GetSval().Sval; s != "<>\b\f\n\r\t\"\\\x01" {
		t.Errorf("the escapes read as %q", s)
	}
}

// FuzzParseTree holds ParseTree to pg.Parse's tree for any text.
func FuzzParseTree(f *testing.F) {
	addPostgresSeeds(f)
	f.Fuzz(func(t *testing.T, sql string) {
		if len(sql) > guard.PrescanFree && guard.PrescanPostgres(sql, 0) != nil {
			return // the guard refuses it unparsed
		}
		sameTree(t, sql)
	})
}

func BenchmarkParseTree(b *testing.B) {
	for _, way := range []struct {
		name string
		f    func(string) error
	}{
		{"json", func(s string) error { _, _, err := guard.ParseTree(s); return err }},
		{"protobuf", func(s string) error { _, err := pg.Parse(s); return err }},
	} {
		b.Run(way.name, func(b *testing.B) {
			i := 0
			for b.Loop() {
				i++
				if err := way.f(fmt.Sprintf("SELECT * FROM (\nSELECT * FROM customers WHERE id = 1 + %d * 7919 AND name <> 'x'\n) AS sqlmcp_q LIMIT 101", i)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestNodeInner: for every member of Node's oneof, the message the walks
// read directly is the one protobuf's reflection finds.
func TestNodeInner(t *testing.T) {
	od := (&pg.Node{}).ProtoReflect().Descriptor().Oneofs().Get(0)
	for i := range od.Fields().Len() {
		fd := od.Fields().Get(i)
		n := &pg.Node{}
		m := n.ProtoReflect()
		m.Set(fd, protoreflect.ValueOfMessage(m.NewField(fd).Message()))
		got := guard.NodeInner(n)
		if got == nil || got.Interface() != m.Get(fd).Message().Interface() {
			t.Errorf("%s: read %v, want the member itself", fd.Name(), got)
		}
	}
	if guard.NodeInner(&pg.Node{}) != nil || guard.NodeInner(nil) != nil {
		t.Error("an empty Node holds a message")
	}
}

// children reads each message type's fields from its generated struct:
// for every message of the parse tree's file, with every field that holds
// messages set (lists with two, and each member of a oneof in turn), it
// meets the same messages in the same order as protobuf's reflection, and
// stops where it is told to.
func TestChildren(t *testing.T) {
	msgs := pg.File_pg_query_proto.Messages()
	direct, oneofs := 0, 0
	for i := range msgs.Len() {
		md := msgs.Get(i)
		if md == (&pg.Node{}).ProtoReflect().Descriptor() {
			continue // a Node's child is its member's message: TestNodeInner
		}
		mt, err := protoregistry.GlobalTypes.FindMessageByName(md.FullName())
		if err != nil {
			t.Fatal(err)
		}
		fields := md.Fields()
		// Each pass k sets the k-th member of every oneof.
		members := 1
		for j := range md.Oneofs().Len() {
			members = max(members, md.Oneofs().Get(j).Fields().Len())
		}
		if md.Oneofs().Len() > 0 {
			oneofs++
		}
		for k := range members {
			m := mt.New()
			for j := range fields.Len() {
				fd := fields.Get(j)
				switch od := fd.ContainingOneof(); {
				case od != nil:
					if od.Fields().Get(k%od.Fields().Len()) == fd {
						if fd.Message() != nil {
							m.Set(fd, protoreflect.ValueOfMessage(m.NewField(fd).Message()))
						} else {
							m.Set(fd, m.NewField(fd))
						}
					}
				case fd.Message() == nil || fd.IsMap():
				case fd.IsList():
					l := m.Mutable(fd).List()
					l.Append(protoreflect.ValueOfMessage(l.NewElement().Message()))
					l.Append(protoreflect.ValueOfMessage(l.NewElement().Message()))
				default:
					m.Set(fd, protoreflect.ValueOfMessage(m.NewField(fd).Message()))
				}
			}
			var want, got []any
			guard.ReflectChildren(m, func(c protoreflect.Message) bool { want = append(want, c.Interface()); return true })
			guard.Children(m, func(c protoreflect.Message) bool { got = append(got, c.Interface()); return true })
			if len(got) != len(want) {
				t.Errorf("%s (member %d): %d children, want %d", md.Name(), k, len(got), len(want))
				continue
			}
			for c := range want {
				if got[c] != want[c] {
					t.Errorf("%s (member %d): child %d differs", md.Name(), k, c)
				}
			}
			if len(want) > 1 {
				direct++
				n := 0
				guard.Children(m, func(protoreflect.Message) bool { n++; return false })
				if n != 1 {
					t.Errorf("%s: %d children after being told to stop at the first", md.Name(), n)
				}
			}
		}
	}
	if direct < 100 || oneofs == 0 {
		t.Errorf("only %d message types with two children or more, %d with a oneof", direct, oneofs)
	}
}
