package policy_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/policy"
	"github.com/sqlmcp/sqlmcp/source"
)

func cols(names ...string) []source.ColumnDef {
	out := make([]source.ColumnDef, len(names))
	for i, n := range names {
		out[i] = source.ColumnDef{Name: n}
	}
	return out
}

// catalog is a small PostgreSQL-like catalog: public on the search path,
// hr not.
func catalog() []source.TableDef {
	return []source.TableDef{
		{Schema: "public", Name: "customers", OnPath: true, Kind: "table", Columns: cols("id", "name", "email", "password_hash")},
		{Schema: "public", Name: "orders", OnPath: true, Kind: "table", Columns: cols("id", "customer_id", "total"),
			ForeignKeys: []source.KeyDef{{Columns: []string{"customer_id"}, RefSchema: "public", RefName: "customers", RefColumns: []string{"id"}}}},
		{Schema: "public", Name: "api_tokens", OnPath: true, Kind: "table", Columns: cols("id", "token")},
		{Schema: "hr", Name: "salaries", Kind: "table", Columns: cols("employee", "amount"),
			Indexes: []source.IndexDef{{Name: "by_amount", Columns: []string{"amount"}}}},
		{Schema: "public", Name: "order_totals", OnPath: true, Kind: "view", Columns: cols("customer_id", "total"),
			Reads: []source.ColumnRead{{Schema: "public", Table: "orders", Column: "customer_id"}, {Schema: "public", Table: "orders", Column: "total"}}},
		{Schema: "public", Name: "customer_mail", OnPath: true, Kind: "view", Columns: cols("name", "email"),
			Reads: []source.ColumnRead{{Schema: "public", Table: "customers", Column: "name"}, {Schema: "public", Table: "customers", Column: "email"}}},
		{Schema: "public", Name: "mail_of_mail", OnPath: true, Kind: "view", Columns: cols("email"),
			Reads: []source.ColumnRead{{Schema: "public", Table: "customer_mail", Column: "email"}}},
		{Schema: "public", Name: "opaque", OnPath: true, Kind: "view", Columns: cols("x")},
	}
}

func spec(t *testing.T, text string) *policy.Spec {
	t.Helper()
	path := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	s, err := policy.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

const shop = `policy:
  deny_tables: [api_tokens]
  deny_columns: [customers.password_hash, hr.salaries.amount]
  mask_columns:
    customers.email: hash
`

func TestResolve(t *testing.T) {
	p, err := spec(t, shop).Resolve(catalog(), false)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		schema, name string
		ok           bool
	}{
		{"", "customers", true}, {"public", "customers", true}, {"", "orders", true},
		{"", "api_tokens", false}, {"public", "api_tokens", false},
		{"", "salaries", false}, // hr is not on the search path
		{"hr", "salaries", true},
		{"", "Customers", false}, // PostgreSQL compares folded names exactly
		{"", "order_totals", true},
		{"", "customer_mail", false}, // reads a masked column
		{"", "mail_of_mail", false},  // through a view that does
		{"", "opaque", false},        // reads unknown
		{"pg_catalog", "pg_stats", false},
	} {
		_, ok := p.Relation(c.schema, c.name)
		if ok != c.ok {
			t.Errorf("Relation(%q, %q) = %v, want %v", c.schema, c.name, ok, c.ok)
		}
	}
	rel, _ := p.Relation("", "customers")
	want := []guard.Access{guard.Allowed, guard.Allowed, guard.Masked, guard.Denied}
	for i, c := range rel.Columns {
		if c.Access != want[i] {
			t.Errorf("customers.%s: access %d, want %d", c.Name, c.Access, want[i])
		}
	}

	defs := p.Filter(catalog())
	var names []string
	for _, d := range defs {
		names = append(names, d.Schema+"."+d.Name)
		for _, c := range d.Columns {
			if c.Name == "password_hash" || c.Name == "amount" {
				t.Errorf("Filter kept the denied column %s.%s", d.Name, c.Name)
			}
		}
		if d.Name == "salaries" && len(d.Indexes) != 0 {
			t.Errorf("Filter kept an index on a denied column: %v", d.Indexes)
		}
		if d.Name == "orders" && len(d.ForeignKeys) != 1 {
			t.Errorf("Filter dropped an allowed key: %v", d.ForeignKeys)
		}
	}
	if got := strings.Join(names, " "); got != "public.customers public.orders hr.salaries public.order_totals" {
		t.Errorf("Filter kept %s", got)
	}

	m := guard.MaskedColumn{Schema: "public", Table: "customers", Column: "email"}
	a, b := p.Redact(m, "ann@example.com"), p.Redact(m, "ann@example.com")
	if a != b || a == "ann@example.com" || !strings.HasPrefix(a.(string), "masked:") {
		t.Errorf("Redact: %v, %v", a, b)
	}
	if p.Redact(m, "bob@example.com") == a {
		t.Error("Redact: two values hash alike")
	}
	if p.Redact(m, nil) != nil {
		t.Error("Redact: NULL is not NULL")
	}
	// Hashed with its column: the same value as another hashed column
	// (two masks of one value, under two names) hashes apart.
	p2, err := spec(t, shop+"    orders.total: hash\n").Resolve(catalog(), false)
	if err != nil {
		t.Fatal(err)
	}
	other := guard.MaskedColumn{Schema: "public", Table: "orders", Column: "total"}
	if x, y := p2.Redact(m, "ann@example.com"), p2.Redact(other, "ann@example.com"); x == y {
		t.Errorf("Redact: one value hashes alike as %s and as %s: %v", m.Column, other.Column, x)
	}
	lines := strings.Join(p.Lines(), "\n")
	for _, want := range []string{"public.api_tokens: hidden: denied by deny_tables", "public.customers: denied columns: password_hash; masked columns: email (hash)", "public.customer_mail: hidden: reads public.customers.email"} {
		if !strings.Contains(lines, want) {
			t.Errorf("Lines lack %q:\n%s", want, lines)
		}
	}
}

func TestVouchedAndDefaultDeny(t *testing.T) {
	p, err := spec(t, `default: deny
tables: [orders, customer_mail]
mask_columns: [customers.email]
`).Resolve(catalog(), false)
	if err != nil {
		t.Fatal(err)
	}
	for name, ok := range map[string]bool{"orders": true, "customer_mail": true, "customers": false, "order_totals": false, "api_tokens": false} {
		if _, got := p.Relation("", name); got != ok {
			t.Errorf("Relation(%q) = %v, want %v", name, got, ok)
		}
	}
}

func TestFailsClosed(t *testing.T) {
	for text, want := range map[string]string{
		"deny_tables: [nosuch]":                                            `no table or view named "nosuch"`,
		"deny_columns: [customers.nosuch]":                                 `has no column named "nosuch"`,
		"deny_columns: [customers]":                                        `names no column`,
		"deny_tables: [salaries]":                                          `no table or view named "salaries"`, // not on the path: qualify it
		"default: deny\ntables: [orders]\ndeny_tables: [orders]":           "both tables and deny_tables",
		"deny_columns: [customers.email]\nmask_columns: [customers.email]": "both denied and masked",
	} {
		_, err := spec(t, text).Resolve(catalog(), false)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
	for text, want := range map[string]string{
		"default: maybe":            "allow or deny",
		"default: deny":             "needs tables",
		"tables: [orders]":          "under default: allow",
		"mask_columns: {a.b: blur}": "hash or redact",
		"deny: [x]":                 `unknown key "deny"`,
		"deny_columns: {a: b}":      "list of names",
	} {
		path := filepath.Join(t.TempDir(), "p.yaml")
		os.WriteFile(path, []byte(text), 0o600)
		_, err := policy.Load(path)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", text, err, want)
		}
	}
}

func TestFoldedNames(t *testing.T) {
	defs := []source.TableDef{{Name: "Users", Kind: "table", Columns: cols("ID", "Email")}}
	p, err := spec(t, "mask_columns: [users.email]").Resolve(defs, true)
	if err != nil {
		t.Fatal(err)
	}
	rel, ok := p.Relation("", "USERS")
	if !ok || rel.Columns[1].Access != guard.Masked {
		t.Errorf("Relation(USERS) = %+v, %v", rel, ok)
	}
}

var _ source.Policy = (*policy.Policy)(nil)

// TestGeneratedColumns: a generated column of a table the policy restricts
// is denied, since it may be computed from the restricted column, unless
// the policy masks it; a table with nothing restricted keeps its own.
func TestGeneratedColumns(t *testing.T) {
	gen := func(c source.ColumnDef) source.ColumnDef { c.Generated = true; return c }
	defs := []source.TableDef{
		{Schema: "public", Name: "pay", OnPath: true, Kind: "table", Columns: []source.ColumnDef{
			{Name: "id"}, {Name: "salary"}, gen(source.ColumnDef{Name: "yearly"}), gen(source.ColumnDef{Name: "label"})}},
		{Schema: "public", Name: "plain", OnPath: true, Kind: "table", Columns: []source.ColumnDef{
			{Name: "a"}, gen(source.ColumnDef{Name: "b"})}},
		{Schema: "public", Name: "yearly_pay", OnPath: true, Kind: "view", Columns: cols("yearly"),
			Reads: []source.ColumnRead{{Schema: "public", Table: "pay", Column: "yearly"}}},
	}
	p, err := spec(t, "policy:\n  deny_columns: [pay.salary]\n  mask_columns:\n    pay.label: redact\n").Resolve(defs, false)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]guard.Access{"pay.id": guard.Allowed, "pay.salary": guard.Denied, "pay.yearly": guard.Denied,
		"pay.label": guard.Masked, "plain.a": guard.Allowed, "plain.b": guard.Allowed}
	for _, table := range []string{"pay", "plain"} {
		rel, ok := p.Relation("", table)
		if !ok {
			t.Fatalf("%s is not readable", table)
		}
		for _, c := range rel.Columns {
			if got := c.Access; got != want[table+"."+c.Name] {
				t.Errorf("%s.%s: access %v, want %v", table, c.Name, got, want[table+"."+c.Name])
			}
		}
	}
	if _, ok := p.Relation("", "yearly_pay"); ok {
		t.Error("a view over a denied generated column is readable")
	}
}

// TestEqual: two resolutions of a policy against an unchanged catalog are
// equal; a catalog whose restricted table gained a column is not.
func TestEqual(t *testing.T) {
	s := spec(t, shop)
	a, _ := s.Resolve(catalog(), false)
	b, _ := s.Resolve(catalog(), false)
	if !a.Equal(b) {
		t.Error("two resolutions of one catalog differ")
	}
	changed := catalog()
	changed[0].Columns = append(changed[0].Columns, source.ColumnDef{Name: "ssn"})
	c, _ := s.Resolve(changed, false)
	if a.Equal(c) || a.Equal(nil) {
		t.Error("a changed catalog resolves alike")
	}
}
