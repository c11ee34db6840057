package schema_test

import (
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
	"github.com/sqlmcp/sqlmcp/schema"
	"github.com/sqlmcp/sqlmcp/source"
)

// sensitiveRows are the values of table accounts, column by column: the
// ones SuggestPolicy samples must never appear in what it returns.
var sensitiveRows = map[string][]string{
	"email":         {"ada@example.com", "grace@example.org", "alan@example.net", "edsger@example.com"},
	"password_hash": {"$2b$12$abcdefghijklmnopqrstuv", "$2b$12$bcdefghijklmnopqrstuvw", "$2b$12$cdefghijklmnopqrstuvwx", "$2b$12$defghijklmnopqrstuvwxy"},
	"api_key":       {"key-one", "key-two", "key-three", "key-four"},
	"Home Phone":    {"home one", "home two", "home three", "home four"},
	"contact":       {"lovelace@analytical.example", "hopper@cobol.example", "turing@bletchley.example", "dijkstra@eindhoven.example"},
	"card":          {"4111111111111111", "5500 0000 0000 0004", "378282246310005", "6011111111111117"},
	"bad_card":      {"4111111111111112", "5500000000000005", "378282246310006", "6011111111111118"},
	"bank":          {"GB82WEST12345698765432", "DE89 3704 0044 0532 0130 00", "FR1420041010050500013M02606", "NL91ABNA0417164300"},
	"reach":         {"+44 20 7946 0958", "(555) 123-4567", "+1 212 555 0199", "030 1234 5678"},
	"session":       {"ghp_16C7e42F292c6912E7710c838347Ae178B4a", "sk_live_4eC39HqLyjWDarjtT1zdp7dc", "Zx9Qw2Er7Ty4Ui1Op6As3Df8Gh5Jk0L", "q1W2e3R4t5Y6u7I8o9P0a1S2d3F4g5H6"},
	"ref":           {"123e4567-e89b-12d3-a456-426614174000", "223e4567-e89b-12d3-a456-426614174001", "323e4567-e89b-12d3-a456-426614174002", "423e4567-e89b-12d3-a456-426614174003"},
	"note":          {"first note", "second note", "third note", "fourth note"},
	"created":       {"2024-01-15", "2024-02-16", "2024-03-17", "2024-04-18"},
	"token_type":    {"bearer", "bearer", "basic", "bearer"},
}

// accountsDDL creates accounts, with the columns of sensitiveRows and a
// few of numbers, on either engine, and a view over it.
func accountsDDL(boolean, number string) []string {
	stmts := []string{`CREATE TABLE accounts (id integer PRIMARY KEY, email text, email_verified ` + boolean + `, password_hash text,
		tokens_used integer, api_key text, salary ` + number + `, "Home Phone" text, contact text, card text, bad_card text, bank text,
		reach text, session text, ref text, note text, created text, token_type text)`,
		`CREATE VIEW account_contacts AS SELECT id, contact, email FROM accounts`}
	for i := range 4 {
		vals := []string{"'" + sensitiveRows["email"][i] + "'", "true", "'" + sensitiveRows["password_hash"][i] + "'", "100", "'" + sensitiveRows["api_key"][i] + "'", "50000"}
		for _, c := range []string{"Home Phone", "contact", "card", "bad_card", "bank", "reach", "session", "ref", "note", "created", "token_type"} {
			vals = append(vals, "'"+sensitiveRows[c][i]+"'")
		}
		stmts = append(stmts, "INSERT INTO accounts VALUES ("+string(rune('1'+i))+", "+strings.Join(vals, ", ")+")")
	}
	return stmts
}

// TestSuggestPolicy builds a table of personal and secret columns and of
// look-alikes on SQLite and PostgreSQL, and checks which columns the
// suggested policy denies and masks, that the block reads back as YAML,
// and that no sampled value appears in it.
func TestSuggestPolicy(t *testing.T) {
	want := suggested{
		DenyColumns: []string{"accounts.password_hash", "accounts.api_key", "accounts.session"},
		MaskColumns: map[string]string{"accounts.email": "hash", "accounts.salary": "hash", "accounts.Home Phone": "hash",
			"accounts.contact": "hash", "accounts.card": "hash", "accounts.bank": "hash", "accounts.reach": "hash"},
	}
	t.Run("sqlite", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "accounts.db")
		w, err := sql.Open("sqlite3", path)
		if err != nil {
			t.Fatal(err)
		}
		defer w.Close()
		for _, s := range accountsDDL("BOOLEAN", "NUMERIC") {
			if _, err := w.Exec(s); err != nil {
				t.Fatalf("%s: %v", s, err)
			}
		}
		checkSuggestion(t, dbtest.Open(t, path, nil), want)
	})
	t.Run("postgres", func(t *testing.T) {
		dsn := dbtest.PostgresDSN(t) // a fresh database of its own, dropped after
		dbtest.PostgresExec(t, dsn, strings.Join(accountsDDL("boolean", "numeric(10,2)"), ";\n"))
		checkSuggestion(t, dbtest.Open(t, dsn, nil), want)
	})
}

type suggested struct {
	DenyColumns []string          `yaml:"deny_columns"`
	MaskColumns map[string]string `yaml:"mask_columns"`
}

func checkSuggestion(t *testing.T, db *source.DB, want suggested) {
	t.Helper()
	cat, err := schema.New(db, nil)
	if err != nil {
		t.Fatal(err)
	}
	s, err := cat.SuggestPolicy(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	block := s.Policy()
	var got struct{ Policy suggested }
	if err := yaml.Unmarshal([]byte(block), &got); err != nil {
		t.Fatalf("the block is not YAML: %v\n%s", err, block)
	}
	// The fixture's own tables have their own such columns (customers.email):
	// only accounts is judged here.
	var deny []string
	for _, c := range got.Policy.DenyColumns {
		if strings.HasPrefix(c, "accounts.") {
			deny = append(deny, c)
		}
	}
	mask := map[string]string{}
	for c, how := range got.Policy.MaskColumns {
		if strings.HasPrefix(c, "accounts.") {
			mask[c] = how
		}
	}
	if diff := cmp.Diff(want, suggested{deny, mask}); diff != "" {
		t.Errorf("the suggested policy (-want +got):\n%s\n%s", diff, block)
	}
	for line := range strings.Lines(block) {
		if strings.HasPrefix(strings.TrimSpace(line), "- ") || strings.Contains(line, ": hash") {
			if !strings.Contains(line, " # a secret: ") && !strings.Contains(line, " # personal: ") {
				t.Errorf("an entry without a comment saying why: %q", line)
			}
		}
	}
	for _, want := range []string{"accounts.contact: hash # personal: 4 of 4 sampled values look like e-mail addresses",
		"- accounts.password_hash # a secret: the name says password", "accounts.card: hash # personal: 4 of 4 sampled values look like card numbers"} {
		if !strings.Contains(block, want) {
			t.Errorf("the block lacks %q:\n%s", want, block)
		}
	}
	for col, vals := range sensitiveRows {
		for _, v := range vals {
			if strings.Contains(block, v) {
				t.Errorf("the block holds %s's value %q:\n%s", col, v, block)
			}
		}
	}
	if s.Unsampled != 0 {
		t.Errorf("%d columns unsampled, want 0", s.Unsampled)
	}
}
