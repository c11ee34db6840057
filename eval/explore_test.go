package eval_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/sqlmcp/sqlmcp/agent"
	"github.com/sqlmcp/sqlmcp/eval"
	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/internal/mcptest"
	"github.com/sqlmcp/sqlmcp/internal/modeltest"
	"github.com/sqlmcp/sqlmcp/internal/toolstest"
	"github.com/sqlmcp/sqlmcp/notes"
	"github.com/sqlmcp/sqlmcp/source"
)

// exploreServe serves db through the real sqlmcp server and returns a
// client session over in-memory transports.
func exploreServe(t *testing.T, db *source.DB) *mcp.ClientSession {
	t.Helper()
	return toolstest.ServeDB(t, db, nil)
}

// exploreScript says how the fake model misbehaves: the request numbers
// (from 1) it answers without a list of queries, and with an HTTP 400.
type exploreScript struct {
	unparseable, status400 int
}

// The fake's queries for a fragment, the only good one first among those
// that start "SELECT count(*)"; from is the fragment's FROM clause and
// first its first table as SQL writes it.
func exploreGood(from string) string { return "SELECT count(*) AS n " + from }

func exploreQueries(from, first string) []map[string]string {
	return []map[string]string{
		{"sql": "SELECT no_such_column " + from, "description": "fails: no such column"},
		{"sql": "SELECT 1 AS one " + from + " WHERE 1 = 0", "description": "returns no rows"},
		{"sql": "DELETE FROM " + first + " WHERE EXISTS (SELECT 1 " + from + ")", "description": "a write the guard refuses"},
		{"sql": exploreGood(from), "description": "  How many rows\n the join   has. "},
		{"sql": "select   COUNT(*) as N\n" + from + " ;", "description": "the good one again"},
		{"sql": "SELECT NULL AS missing " + from + " LIMIT 1", "description": "a row of NULLs"},
		{"sql": "SELECT 'extra' AS x " + from + " LIMIT 1", "description": "one more than asked for"},
	}
}

// exploreBad are fragments of every query the fake writes that must never
// be kept.
var exploreBad = []string{"no_such_column", "WHERE 1 = 0", "DELETE", "NULL AS missing", "'extra'", "COUNT(*) as N"}

// exploreFake is a model that answers each fragment with exploreQueries,
// wrapped in the ways models wrap JSON.
func exploreFake(t *testing.T, s exploreScript) (*modeltest.Server, agent.Model) {
	var n atomic.Int32
	fake := modeltest.New(t, func(r *modeltest.Request) modeltest.Reply {
		k := int(n.Add(1))
		switch k {
		case s.status400:
			return modeltest.Reply{Status: http.StatusBadRequest, Text: "the fake refuses this request"}
		case s.unparseable:
			return modeltest.Reply{Text: "I would rather not [sorry]."}
		}
		// "Write 6 queries over "Order Items", "order" as a JSON list."
		user := r.FirstUser()
		names := user[strings.Index(user, " over ")+len(" over ") : strings.LastIndex(user, " as a JSON list")]
		first, _, _ := strings.Cut(names, ", ")
		from := "FROM " + names
		for _, line := range strings.Split(r.System(), "\n") {
			if f, ok := strings.CutPrefix(line, "As a FROM clause: "); ok {
				from = f
			}
		}
		b, _ := json.MarshalIndent(exploreQueries(from, first), "", "  ")
		switch k % 3 {
		case 1:
			return modeltest.Reply{Text: string(b)}
		case 2:
			return modeltest.Reply{Text: "<think>Maybe [1, 2]? No.</think>\n```json\n" + string(b) + "\n```"}
		}
		return modeltest.Reply{Text: "Here are the queries [as asked]:\n" + string(b) + "\nEach is a SELECT."}
	})
	return fake, agent.NewOpenAI(agent.OpenAIOptions{BaseURL: fake.BaseURL(), Model: "fake"})
}

type exploreProgress struct {
	done, total int
	tables      []string
	kept        int
}

// TestExplore walks the fixture's foreign keys, asks the fake about each
// fragment and keeps only the queries that ran and returned values.
func TestExplore(t *testing.T) {
	path := dbtest.SQLiteFile(t)
	before := dbtest.Fingerprint(t, path)
	engines := []dbtest.Engine{{Name: "sqlite", DB: dbtest.Open(t, path, nil)}}
	if os.Getenv(dbtest.PostgresEnv) != "" {
		engines = append(engines, dbtest.Engine{Name: "postgres", DB: dbtest.Postgres(t, nil)})
	}
	for _, e := range engines {
		t.Run(e.Name, func(t *testing.T) {
			cs := exploreServe(t, e.DB)
			fake, model := exploreFake(t, exploreScript{unparseable: 3})
			var progress []exploreProgress
			triplets, stats, err := eval.Explore(t.Context(), cs, &eval.ExploreOptions{
				Model: model, PerFragment: 6, PerCluster: 100, MaxFragments: 100,
				OnFragment: func(done, total int, tables []string, kept int) {
					progress = append(progress, exploreProgress{done, total, tables, kept})
				},
			})
			if err != nil {
				t.Fatal(err)
			}

			// Hubs first: "Order Items" holds two keys and sorts before
			// "order", which takes part in two; tables without keys last.
			want := [][]string{
				{"Order Items"}, {"Order Items", "order"}, {"Order Items", "products"}, {"Order Items", "order", "customers"},
				{"order"}, {"order", "customers"},
				{"customers"}, {"products"},
				{"SchoolStats"}, {"customer_totals"}, {"drop_log"},
			}
			if e.Name == "postgres" {
				want = append(want, []string{"types"})
			}
			var got [][]string
			for i, p := range progress {
				got = append(got, p.tables)
				wantKept := i + 1
				if i >= 2 {
					wantKept = i // the third reply holds no list
				}
				if p.done != i+1 || p.total != len(want) || p.kept != wantKept {
					t.Errorf("progress %d: got done %d, total %d, kept %d; want %d, %d, %d", i, p.done, p.total, p.kept, i+1, len(want), wantKept)
				}
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("fragments (-want +got):\n%s", diff)
			}

			// Per parsed fragment: six written (the seventh ignored), the
			// unknown column and the DELETE failed, WHERE 1 = 0 and the row
			// of NULLs empty, one kept, the repeat not run.
			n := len(want) - 1
			wantStats := &eval.ExploreStats{Fragments: len(want), Written: 6 * n, Failed: 2*n + 1, Empty: 2 * n, Kept: n}
			if diff := cmp.Diff(wantStats, stats); diff != "" {
				t.Errorf("stats (-want +got):\n%s", diff)
			}
			if len(triplets) != stats.Kept {
				t.Errorf("got %d triplets, stats say %d kept", len(triplets), stats.Kept)
			}
			exploreCheckKept(t, e.DB, triplets)

			joins := map[string]string{}
			for _, tr := range triplets {
				joins[strings.Join(tr.Tables, "|")] = tr.Join
				if tr.Description != "How many rows the join has." {
					t.Errorf("%v: description %q, want it trimmed to one line", tr.Tables, tr.Description)
				}
			}
			wantJoins := map[string]string{
				"Order Items":                 "",
				"Order Items|order":           `"Order Items".order_id = "order".id`,
				"Order Items|order|customers": `"Order Items".order_id = "order".id AND "order".customer_id = customers.id`,
				"order":                       "",
				"order|customers":             `"order".customer_id = customers.id`,
				"customers":                   "",
				"products":                    "",
				"SchoolStats":                 "",
				"customer_totals":             "",
				"drop_log":                    "",
			}
			if e.Name == "postgres" {
				wantJoins["types"] = ""
			}
			if diff := cmp.Diff(wantJoins, joins); diff != "" {
				t.Errorf("triplets' joins by tables (-want +got):\n%s", diff)
			}

			// Every foreign key is some two-table fragment's join.
			for _, name := range []string{"Order Items", "order"} {
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "describe_table", Arguments: map[string]any{"table": name}})
				if err != nil {
					t.Fatal(err)
				}
				var d struct {
					ForeignKeys []struct {
						Table    string `json:"table"`
						RefTable string `json:"ref_table"`
					} `json:"foreign_keys"`
				}
				b, _ := json.Marshal(res.StructuredContent)
				json.Unmarshal(b, &d)
				for _, k := range d.ForeignKeys {
					if !slices.ContainsFunc(got, func(f []string) bool {
						return len(f) == 2 && (f[0] == k.Table && f[1] == k.RefTable || f[1] == k.Table && f[0] == k.RefTable)
					}) {
						t.Errorf("no two-table fragment joins %s to %s", k.Table, k.RefTable)
					}
				}
			}

			// The prompt holds the tables' descriptions, sample rows and the
			// join, and offers no tools.
			dialect := map[string]string{"sqlite": "The database is SQLite.", "postgres": "The database is PostgreSQL."}[e.Name]
			var asked *modeltest.Request
			for _, r := range fake.Requests() {
				if len(r.Tools) > 0 {
					t.Errorf("request %q offers tools %v", r.FirstUser(), r.Tools)
				}
				if r.FirstUser() == `Write 6 queries over "Order Items", "order" as a JSON list.` {
					asked = r
				}
			}
			if asked == nil {
				t.Fatal("no request asked about Order Items joined to order")
			}
			for _, want := range []string{
				exploreDescribe(t, cs, "Order Items"), exploreDescribe(t, cs, "order"),
				`Join path: "Order Items".order_id = "order".id`, dialect, "read-only SELECT",
				// A few real rows of each table, for filters on values that exist.
				"sample rows:\n<data-ID>\norder_id | product_id | quantity\n", "sample rows:\n<data-ID>\nid | customer_id | placed_at | status\n",
			} {
				if !strings.Contains(mcptest.Unmark(asked.System()), mcptest.Unmark(want)) {
					t.Errorf("the prompt lacks %q:\n%s", want, asked.System())
				}
			}
		})
	}
	if after := dbtest.Fingerprint(t, path); after != before {
		t.Error("exploring changed the SQLite database file")
	}
}

// exploreCheckKept checks kept triplets: each is the fragment's good query,
// none repeats, and each still returns a value run on the database
// directly.
func exploreCheckKept(t *testing.T, db *source.DB, triplets []notes.Triplet) {
	t.Helper()
	seen := map[string]bool{}
	for _, tr := range triplets {
		if !strings.HasPrefix(tr.SQL, "SELECT count(*) AS n FROM ") || seen[tr.SQL] {
			t.Errorf("kept %q, which is not a new good query", tr.SQL)
		}
		seen[tr.SQL] = true
		for _, bad := range exploreBad {
			if strings.Contains(tr.SQL, bad) {
				t.Errorf("kept %q, which holds %q", tr.SQL, bad)
			}
		}
		res, err := db.Query(t.Context(), tr.SQL, 5)
		if err != nil {
			t.Errorf("kept %q, which fails: %v", tr.SQL, err)
			continue
		}
		if len(res.Rows) == 0 || slices.IndexFunc(res.Rows[0], func(v any) bool { return v != nil }) < 0 {
			t.Errorf("kept %q, which returns no value: %v", tr.SQL, res.Rows)
		}
	}
}

// exploreDescribe is describe_table's text for table.
func exploreDescribe(t *testing.T, cs *mcp.ClientSession, table string) string {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "describe_table", Arguments: map[string]any{"table": table}})
	if err != nil || res.IsError {
		t.Fatalf("describing %s: %v %v", table, err, res)
	}
	return strings.TrimRight(res.Content[0].(*mcp.TextContent).Text, "\n")
}

// TestExploreBounds: PerCluster and MaxFragments hold, and a full
// cluster's other fragments are not asked about.
func TestExploreBounds(t *testing.T) {
	db := dbtest.SQLite(t, nil)
	cs := exploreServe(t, db)
	fake, model := exploreFake(t, exploreScript{})
	var got [][]string
	triplets, stats, err := eval.Explore(t.Context(), cs, &eval.ExploreOptions{
		Model: model, PerFragment: 6, PerCluster: 2, MaxFragments: 4,
		OnFragment: func(done, total int, tables []string, kept int) {
			if total != 4 {
				t.Errorf("fragment %d: total %d, want 4", done, total)
			}
			got = append(got, tables)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	// "Order Items" fills its cluster in two fragments, and so does "order".
	want := [][]string{{"Order Items"}, {"Order Items", "order"}, {"order"}, {"order", "customers"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("fragments (-want +got):\n%s", diff)
	}
	if fake.Calls() != 4 {
		t.Errorf("the model was asked %d times, want 4", fake.Calls())
	}
	// A fragment that fills its cluster stops before the row of NULLs.
	wantStats := &eval.ExploreStats{Fragments: 4, Written: 24, Failed: 8, Empty: 6, Kept: 4}
	if diff := cmp.Diff(wantStats, stats); diff != "" {
		t.Errorf("stats (-want +got):\n%s", diff)
	}
	perHub := map[string]int{}
	for _, tr := range triplets {
		perHub[tr.Tables[0]]++
	}
	if diff := cmp.Diff(map[string]int{"Order Items": 2, "order": 2}, perHub); diff != "" {
		t.Errorf("triplets per hub (-want +got):\n%s", diff)
	}
	exploreCheckKept(t, db, triplets)
}

// TestExploreModelError: a failed model call stops Explore with the
// triplets kept so far and an error naming the fragment.
func TestExploreModelError(t *testing.T) {
	db := dbtest.SQLite(t, nil)
	cs := exploreServe(t, db)
	fake, model := exploreFake(t, exploreScript{status400: 3})
	triplets, stats, err := eval.Explore(t.Context(), cs, &eval.ExploreOptions{Model: model, PerFragment: 6})
	if err == nil {
		t.Fatal("got no error from a model that answered 400")
	}
	for _, want := range []string{"Order Items, products", "400"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if fake.Calls() != 3 {
		t.Errorf("the model was asked %d times, want 3 (a 400 is not retried)", fake.Calls())
	}
	var tables [][]string
	for _, tr := range triplets {
		tables = append(tables, tr.Tables)
	}
	if diff := cmp.Diff([][]string{{"Order Items"}, {"Order Items", "order"}}, tables); diff != "" {
		t.Errorf("partial triplets (-want +got):\n%s", diff)
	}
	if stats.Fragments != 2 || stats.Kept != 2 {
		t.Errorf("got %d fragments and %d kept, want 2 and 2", stats.Fragments, stats.Kept)
	}
	exploreCheckKept(t, db, triplets)
}

// TestExploreCancel: the end of ctx stops Explore the same way.
func TestExploreCancel(t *testing.T) {
	db := dbtest.SQLite(t, nil)
	cs := exploreServe(t, db)
	_, model := exploreFake(t, exploreScript{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	triplets, stats, err := eval.Explore(ctx, cs, &eval.ExploreOptions{Model: model, PerFragment: 6,
		OnFragment: func(done, total int, tables []string, kept int) { cancel() }})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("got error %v, want context.Canceled", err)
	}
	if !strings.Contains(err.Error(), `exploring Order Items, order`) {
		t.Errorf("error %q does not name the fragment", err)
	}
	if len(triplets) != 1 || stats.Fragments != 1 {
		t.Errorf("got %d triplets from %d fragments, want 1 from 1", len(triplets), stats.Fragments)
	}
}

// TestExploreNoModel: a Model is required.
func TestExploreNoModel(t *testing.T) {
	cs := exploreServe(t, dbtest.SQLite(t, nil))
	if _, _, err := eval.Explore(t.Context(), cs, &eval.ExploreOptions{}); err == nil {
		t.Error("got no error without a Model")
	}
}

// TestExploreSchemaQualified: on PostgreSQL, a table outside the search
// path is named schema.table, and its join is written so that it runs.
func TestExploreSchemaQualified(t *testing.T) {
	dsn := dbtest.PostgresDSN(t)
	dbtest.PostgresExec(t, dsn, `CREATE SCHEMA "Sales";
		CREATE TABLE "Sales".refund (id integer PRIMARY KEY, order_id integer NOT NULL REFERENCES "order"(id), amount numeric);
		INSERT INTO "Sales".refund VALUES (1, 1, 9.5), (2, 4, 12)`)
	db := dbtest.Open(t, dsn, nil)
	cs := exploreServe(t, db)
	_, model := exploreFake(t, exploreScript{})
	triplets, _, err := eval.Explore(t.Context(), cs, &eval.ExploreOptions{Model: model, PerFragment: 6, MaxFragments: 100, PerCluster: 100})
	if err != nil {
		t.Fatal(err)
	}
	exploreCheckKept(t, db, triplets)
	joins := map[string]string{}
	for _, tr := range triplets {
		joins[strings.Join(tr.Tables, "|")] = tr.Join
	}
	// "order" is the hub now: three keys.
	want := `"Sales".refund.order_id = "order".id`
	if got := joins["order|Sales.refund"]; got != want {
		t.Errorf("order joined to Sales.refund on %q, want %q; all: %v", got, want, joins)
	}
}
