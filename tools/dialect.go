package tools

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/sqlmcp/sqlmcp"
	"github.com/sqlmcp/sqlmcp/guard"
	"github.com/sqlmcp/sqlmcp/internal/sqlscan"
	"github.com/sqlmcp/sqlmcp/schema"
	"github.com/sqlmcp/sqlmcp/source"
)

// otherDialect maps a function of another SQL dialect to how this engine
// says it, for the model that reached for it.
var otherDialect = map[sqlmcp.Dialect]map[string]string{
	sqlmcp.Postgres: {
		"strftime":       "PostgreSQL formats dates with to_char(ts, 'YYYY-MM-DD'), truncates them with date_trunc('month', ts) and reads a part with extract(year FROM ts)",
		"julianday":      "subtract dates (d2 - d1 gives days) or use extract(epoch FROM t2 - t1) / 86400",
		"datetime":       "use now(), current_date, or a literal such as timestamp '2024-01-01 10:00'",
		"ifnull":         "use coalesce(a, b)",
		"nvl":            "use coalesce(a, b)",
		"iif":            "use CASE WHEN ... THEN ... ELSE ... END",
		"instr":          "use strpos(s, sub) or position(sub IN s)",
		"charindex":      "use strpos(s, sub)",
		"group_concat":   "use string_agg(x::text, ',')",
		"printf":         "use format('%s', x) or to_char",
		"total":          "use sum(x)",
		"len":            "use length(x)",
		"getdate":        "use now()",
		"curdate":        "use current_date",
		"date_format":    "use to_char(ts, 'YYYY-MM-DD')",
		"datediff":       "subtract: d2 - d1 for dates, or extract(epoch FROM t2 - t1)",
		"dateadd":        "add an interval: ts + interval '1 day'",
		"unix_timestamp": "use extract(epoch FROM ts)",
		"from_unixtime":  "use to_timestamp(n)",
		"str_to_date":    "use to_date(s, 'YYYY-MM-DD')",
	},
	sqlmcp.MySQL: {
		"strftime":        "MySQL formats dates with DATE_FORMAT(d, '%Y-%m-%d') and reads a part with YEAR(d), MONTH(d) or EXTRACT(YEAR FROM d)",
		"to_char":         "use DATE_FORMAT(d, '%Y-%m-%d')",
		"date_trunc":      "use DATE_FORMAT(d, '%Y-%m-01') for the month, or DATE(d) for the day",
		"date_part":       "use EXTRACT(YEAR FROM d), or YEAR(d)",
		"julianday":       "use DATEDIFF(d2, d1) for days, or TIMESTAMPDIFF(SECOND, t1, t2)",
		"string_agg":      "use GROUP_CONCAT(x SEPARATOR ',')",
		"array_agg":       "use JSON_ARRAYAGG(x), or GROUP_CONCAT(x)",
		"strpos":          "use LOCATE(sub, s)",
		"charindex":       "use LOCATE(sub, s)",
		"nvl":             "use IFNULL(a, b) or COALESCE(a, b)",
		"iif":             "use IF(cond, a, b)",
		"len":             "use CHAR_LENGTH(x)",
		"getdate":         "use NOW()",
		"to_date":         "use STR_TO_DATE(s, '%Y-%m-%d')",
		"to_timestamp":    "use FROM_UNIXTIME(n)",
		"datetime":        "use NOW(), or a literal such as TIMESTAMP '2024-01-01 10:00:00'",
		"dateadd":         "use DATE_ADD(d, INTERVAL 1 DAY)",
		"total":           "use SUM(x)",
		"generate_series": "write a recursive CTE: WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 10) SELECT i FROM n",
	},
	sqlmcp.SQLite: {
		"to_char":      "SQLite formats dates with strftime('%Y-%m-%d', x)",
		"date_trunc":   "use date(x, 'start of month'), or strftime('%Y-%m', x)",
		"date_part":    "use strftime('%Y', x), cast to INTEGER",
		"extract":      "use strftime('%Y', x), cast to INTEGER",
		"array_agg":    "use json_group_array(x)",
		"now":          "use datetime('now') or CURRENT_TIMESTAMP",
		"getdate":      "use datetime('now')",
		"to_date":      "use date(x)",
		"to_timestamp": "use datetime(n, 'unixepoch')",
		"left":         "use substr(x, 1, n)",
		"right":        "use substr(x, -n)",
		"strpos":       "use instr(s, sub)",
		"position":     "use instr(s, sub)",
		"greatest":     "use max(a, b), which takes several arguments in SQLite",
		"least":        "use min(a, b), which takes several arguments in SQLite",
		"datediff":     "use julianday(b) - julianday(a)",
		"isnull":       "use ifnull(x, y)",
		"nvl":          "use ifnull(x, y)",
		"len":          "use length(x)",
		"date_format":  "use strftime('%Y-%m-%d', x)",
	},
}

var (
	fence      = regexp.MustCompile("(?s)^\\s*```[A-Za-z]*\\s*\\n(.*?)\\n?```\\s*$")
	ilike      = regexp.MustCompile(`\bILIKE\b`)
	selectTop  = regexp.MustCompile(`^\s*SELECT\s+TOP\s+\d`)
	limitComma = regexp.MustCompile(`\bLIMIT\s+\d+\s*,\s*\d+`)
	fullJoin   = regexp.MustCompile(`\bFULL\s+(OUTER\s+)?JOIN\b`)
	fetchFirst = regexp.MustCompile(`\bFETCH\s+(FIRST|NEXT)\b`)
	anySelect  = regexp.MustCompile(`(?i)\bselect\b`)
)

// dialectHint says how this engine writes what a statement took from
// another dialect, judged from the function the engine or the guard says
// is missing and from the text; "" when nothing fits.
func dialectHint(d sqlmcp.Dialect, sql string, err error) string {
	if fn := missingFunction(err); fn != "" {
		name := strings.ToLower(fn[strings.LastIndexByte(fn, '.')+1:])
		if h, ok := otherDialect[d][name]; ok {
			return ". " + name + "() is another dialect's: " + h
		}
	}
	// Judged outside string literals and comments: 'a::b' is no cast.
	code := sqlscan.Code(sql)
	text := strings.ToUpper(code)
	switch {
	case strings.HasPrefix(strings.TrimSpace(sql), "```"):
		return ". Send the SQL alone, without the Markdown fence"
	case d == sqlmcp.SQLite && strings.Contains(code, "::"):
		return ". SQLite has no :: casts: write CAST(x AS INTEGER), CAST(x AS REAL) or CAST(x AS TEXT)"
	case d == sqlmcp.SQLite && ilike.MatchString(text):
		return ". SQLite has no ILIKE: its LIKE already ignores the case of ASCII letters"
	case selectTop.MatchString(text):
		return ". Write LIMIT n at the end instead of TOP n"
	case d == sqlmcp.Postgres && strings.Contains(code, "`"):
		return ". PostgreSQL quotes names with double quotes, not backticks"
	case d == sqlmcp.Postgres && limitComma.MatchString(text):
		return ". PostgreSQL writes LIMIT n OFFSET m"
	case d == sqlmcp.MySQL && strings.Contains(code, "::"):
		return ". MySQL has no :: casts: write CAST(x AS SIGNED), CAST(x AS DECIMAL(12,2)), CAST(x AS CHAR) or CAST(x AS DATE)"
	case d == sqlmcp.MySQL && ilike.MatchString(text):
		return ". MySQL has no ILIKE: LIKE already ignores case under the usual collations; else compare LOWER(x) LIKE 'abc%'"
	case d == sqlmcp.MySQL && fullJoin.MatchString(text):
		return ". MySQL has no FULL JOIN: combine a LEFT JOIN and a RIGHT JOIN with UNION"
	case d == sqlmcp.MySQL && fetchFirst.MatchString(text):
		return ". Write LIMIT n at the end: MySQL has no FETCH FIRST"
	case notSQL(sql):
		return ". This does not read as SQL: send one SELECT statement, not a question in words"
	}
	return ""
}

// notSQL reports whether text reads as prose rather than a statement: it
// neither begins with a word like a query's first keyword (a typo such as
// SELEC still counts as SQL) nor holds SELECT anywhere.
func notSQL(text string) bool {
	f := strings.Fields(text)
	if len(f) < 3 || anySelect.MatchString(text) {
		return false
	}
	first := strings.ToUpper(strings.Trim(f[0], "("))
	return len(schema.Closest(first, []string{"SELECT", "WITH", "VALUES", "TABLE", "EXPLAIN"}, 1)) == 0
}

// stripFence returns sql without a Markdown code fence around it, when it
// has one: the statement inside is what was meant.
func stripFence(sql string) string {
	if m := fence.FindStringSubmatch(sql); m != nil {
		return m[1]
	}
	return sql
}

// missingFunction is the function err says the database lacks, from the
// guard's refusal or the engine's error code; "" when err says no such
// thing.
func missingFunction(err error) string {
	var ge *guard.Error
	var ee *source.EngineError
	switch {
	case errors.As(err, &ge):
		return ge.MissingFunction
	case errors.As(err, &ee) && ee.Code == source.UndefinedFunction:
		return ee.Name
	}
	return ""
}

// stringForName finds, in a MySQL statement, a double-quoted string where
// an expression begins (after SELECT, a comma, an opening bracket, BY,
// WHERE, AND and the like) that spells the name of a column or a table of
// the catalog: MySQL reads it as that text, so the query would compare,
// sort, group or count a constant and answer without an error, but not
// what was asked. It returns the error that says so, or nil. An alias (AS
// "Total", or after an expression) and a value compared with something
// are left alone.
func stringForName(sql string, tables func() []*schema.Table, ident func(string) string) error {
	var names map[string]bool
	return eachQuotedAtStart(sql, func(_ []sqlscan.Token, _ int, quoted, name string) error {
		if names == nil {
			names = namesOf(tables())
		}
		if names[strings.ToLower(name)] {
			return fmt.Errorf("%s is a string in MySQL, not the name %s: double quotes make text here, so the query would use the same text on every row and answer without an error. Write the name as %s, or the text in single quotes ('%s')",
				quoted, name, ident(name), strings.ReplaceAll(name, "'", "''"))
		}
		return nil
	})
}

// eachQuotedAtStart calls f with each double-quoted token of sql that
// stands where an expression begins (expressionStart), its place among
// the statement's significant tokens and the name it quotes, until f
// returns an error, which it returns.
func eachQuotedAtStart(sql string, f func(toks []sqlscan.Token, i int, quoted, name string) error) error {
	if !strings.Contains(sql, `"`) {
		return nil
	}
	toks := significant(sqlscan.Tokens(sql))
	for i, t := range toks {
		if t.Kind == sqlscan.Quoted && t.Text[0] == '"' && len(t.Text) >= 2 && t.Text[len(t.Text)-1] == '"' &&
			i > 0 && expressionStart[strings.ToUpper(toks[i-1].Text)] {
			if err := f(toks, i, t.Text, unquoteName(t)); err != nil {
				return err
			}
		}
	}
	return nil
}

// expressionStart are the tokens after which an expression begins, where
// a string in place of a name is a mistake rather than a value or an alias.
var expressionStart = map[string]bool{
	"SELECT": true, "DISTINCT": true, ",": true, "(": true, "BY": true, "WHERE": true, "AND": true,
	"OR": true, "NOT": true, "ON": true, "HAVING": true, "WHEN": true, "CASE": true,
}

// namesOf is the lower-cased names of tables and their columns, made once
// for each list of tables (the catalog hands out the same list until it
// reads the schema again; a list filtered for a caller is another) and
// kept for a few lists.
func namesOf(tables []*schema.Table) map[string]bool {
	if len(tables) == 0 {
		return map[string]bool{}
	}
	key := nameKey{&tables[0], len(tables)}
	readNames.Lock()
	defer readNames.Unlock()
	if names, ok := readNames.sets[key]; ok {
		return names
	}
	if len(readNames.sets) >= 16 {
		clear(readNames.sets)
	}
	names := collectNames(tables)
	readNames.sets[key] = names
	return names
}

// nameKey names a list of tables: where its elements are, which also keeps
// them from being freed and the place reused while the key is held, and
// how many there are.
type nameKey struct {
	first **schema.Table
	n     int
}

// readNames keeps namesOf's sets.
var readNames = struct {
	sync.Mutex
	sets map[nameKey]map[string]bool
}{sets: map[nameKey]map[string]bool{}}

// collectNames is namesOf, made anew.
func collectNames(tables []*schema.Table) map[string]bool {
	names := map[string]bool{}
	for _, t := range tables {
		names[strings.ToLower(t.Name)] = true
		for _, c := range t.Columns {
			names[strings.ToLower(c.Name)] = true
		}
	}
	return names
}

// misspeltName finds, in a SQLite statement, a double-quoted name where an
// expression begins (see expressionStart) that names no column or table
// of the catalog and no alias of the statement, but nearly spells one
// ("Unit Prce" beside "Unit Price", "UnitPrice" beside "Unit Price"):
// SQLite reads a double-quoted name it cannot find as that text, so the
// query would answer the same text on every row, without an error. It
// returns the error that says so, or nil. Text in double quotes that
// resembles no name (a value, a strftime format) is left to SQLite.
func misspeltName(sql string, tables func() []*schema.Table, ident func(string) string) error {
	var defined, names map[string]bool
	var all []*schema.Table
	return eachQuotedAtStart(sql, func(toks []sqlscan.Token, i int, quoted, name string) error {
		if i+1 < len(toks) && toks[i+1].Text == "." {
			return nil // a qualifier: SQLite reads no text there
		}
		if names == nil {
			all = tables()
			names = namesOf(all)
			defined = aliases(toks)
		}
		if lower := strings.ToLower(name); names[lower] || defined[lower] {
			return nil
		}
		if near := nearName(name, all); near != "" {
			return fmt.Errorf("no column or table is named %s: SQLite reads a double-quoted name it cannot find as text, so the query would answer %s on every row. Did you mean %s? describe_table shows a table's columns",
				quoted, "'"+strings.ReplaceAll(name, "'", "''")+"'", ident(near))
		}
		return nil
	})
}

// aliases are the lower-cased names a statement defines: the words and
// quoted names beside AS (an alias after it, a common table expression's
// name before it).
func aliases(toks []sqlscan.Token) map[string]bool {
	defined := map[string]bool{}
	for i, t := range toks {
		if i > 0 && strings.EqualFold(toks[i-1].Text, "AS") || i+1 < len(toks) && strings.EqualFold(toks[i+1].Text, "AS") {
			defined[strings.ToLower(unquoteName(t))] = true
		}
	}
	return defined
}

// significant is toks without white space and comments.
func significant(toks []sqlscan.Token) []sqlscan.Token {
	out := toks[:0:0]
	for _, t := range toks {
		if t.Kind != sqlscan.Space && t.Kind != sqlscan.LineComment && t.Kind != sqlscan.BlockComment {
			out = append(out, t)
		}
	}
	return out
}

// unquoteName is a token's name: a quoted one without its quotes.
func unquoteName(t sqlscan.Token) string {
	if t.Kind == sqlscan.Quoted && len(t.Text) >= 2 {
		q := t.Text[:1]
		return strings.ReplaceAll(t.Text[1:len(t.Text)-1], q+q, q)
	}
	return t.Text
}

// nearName is the column or table name of tables that name nearly spells,
// ignoring case, spaces and underscores and allowing a typo (one edit in
// five letters or more, two in nine or more); "" when there is none.
func nearName(name string, tables []*schema.Table) string {
	squash := strings.NewReplacer(" ", "", "_", "", "-", "").Replace
	n := strings.ToLower(squash(name))
	allowed := 0
	switch {
	case len(n) >= 9:
		allowed = 2
	case len(n) >= 5:
		allowed = 1
	}
	best, bestD := "", allowed+1
	try := func(cand string) {
		if d := schema.EditDistance(n, strings.ToLower(squash(cand))); d < bestD {
			best, bestD = cand, d
		}
	}
	for _, t := range tables {
		try(t.Name)
		for _, c := range t.Columns {
			try(c.Name)
		}
	}
	return best
}

// constantKey finds a string literal standing alone as a key of ORDER BY,
// GROUP BY or PARTITION BY ('price', or 'a', 'b'), which SQLite and MySQL
// accept as a constant: the same on every row, so the order is left as it
// was, and every row falls in one group, without an error (PostgreSQL and
// DuckDB refuse it themselves). It returns the error that says so, or nil.
func constantKey(sql string, _ func() []*schema.Table, ident func(string) string) error {
	if !strings.Contains(sql, "'") {
		return nil
	}
	toks := significant(sqlscan.Tokens(sql))
	depth, byDepth := 0, -1 // byDepth: the depth of the key list being read
	clause := ""
	for i, t := range toks {
		word := strings.ToUpper(t.Text)
		switch {
		case t.Text == "(":
			depth++
		case t.Text == ")":
			depth--
			if depth < byDepth {
				byDepth = -1
			}
		case word == "BY" && i > 0 && keyClauses[strings.ToUpper(toks[i-1].Text)] != "":
			byDepth, clause = depth, keyClauses[strings.ToUpper(toks[i-1].Text)]
		case depth == byDepth && t.Kind == sqlscan.Word && keyListEnds[word]:
			byDepth = -1
		case depth == byDepth && t.Kind == sqlscan.String && (toks[i-1].Text == "," || strings.EqualFold(toks[i-1].Text, "BY")) &&
			(i+1 == len(toks) || keyFollows[strings.ToUpper(toks[i+1].Text)]):
			text := strings.ReplaceAll(t.Text[1:max(len(t.Text)-1, 1)], "''", "'")
			return fmt.Errorf("%s BY %s is the text %s, the same on every row, so it %s without an error. Write the column's name (%s) or its position in the select list",
				clause, t.Text, t.Text, keyEffect[clause], ident(text))
		}
	}
	return nil
}

// keyClauses are the words before BY that begin a list of keys.
var keyClauses = map[string]string{"ORDER": "ORDER", "GROUP": "GROUP", "PARTITION": "PARTITION"}

// keyEffect is what a constant key does in each clause.
var keyEffect = map[string]string{
	"ORDER":     "leaves the order as it was",
	"GROUP":     "puts every row in one group",
	"PARTITION": "puts every row in one partition",
}

// keyListEnds are the words that end a list of keys.
var keyListEnds = map[string]bool{"ORDER": true, "HAVING": true, "LIMIT": true, "OFFSET": true, "WINDOW": true, "UNION": true,
	"EXCEPT": true, "INTERSECT": true, "ROWS": true, "RANGE": true, "GROUPS": true, "FETCH": true, "WITH": true}

// keyFollows are the tokens after which a literal stood alone as a key.
var keyFollows = map[string]bool{",": true, ")": true, ";": true, "ASC": true, "DESC": true, "NULLS": true, "COLLATE": true, "ORDER": true,
	"LIMIT": true, "OFFSET": true, "HAVING": true, "WINDOW": true, "UNION": true, "EXCEPT": true, "INTERSECT": true, "ROWS": true, "RANGE": true}
