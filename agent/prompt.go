package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// submitTool is the agent's own tool: the model ends by calling it.
var submitTool = Tool{
	Name: "submit_answer",
	Description: "Submit your final answer: the SQL whose result answers the question, and a short answer in plain " +
		"words. The SQL is run again before it is accepted; if it fails you get the error and must fix it. Call it " +
		"once you have tested the query with run_query. The user sees the SQL, its result and your answer.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{` +
		`"sql":{"type":"string","description":"one read-only SQL statement whose result answers the question: exactly the columns asked for"},` +
		`"answer":{"type":"string","description":"the answer in one or two plain sentences, with the numbers or names from the result"}` +
		`},"required":["sql","answer"],"additionalProperties":false}`),
	Strict: true,
}

// submitToolFor is submit_answer on a server of several databases, the
// model choosing one: the SQL names the database it runs in.
func submitToolFor(databases []DatabaseSummary) Tool {
	names := make([]string, len(databases))
	for i, d := range databases {
		names[i] = d.Name
	}
	enum, _ := json.Marshal(names)
	t := submitTool
	t.InputSchema = json.RawMessage(`{"type":"object","properties":{` +
		`"database":{"type":"string","enum":` + string(enum) + `,"description":"the database the SQL runs in"},` +
		`"sql":{"type":"string","description":"one read-only SQL statement whose result answers the question: exactly the columns asked for"},` +
		`"answer":{"type":"string","description":"the answer in one or two plain sentences, with the numbers or names from the result, saying which database it comes from"}` +
		`},"required":["database","sql","answer"],"additionalProperties":false}`)
	return t
}

// DialectRule is how to write SQL for a dialect Client.Dialect names, in a
// sentence or three for a model's prompt.
func DialectRule(dialect string) string { return dialectRules[dialect] }

var dialectRules = map[string]string{
	"sqlite":   `The database is SQLite. Quote identifiers that hold spaces, punctuation, capitals or reserved words in double quotes ("Order Items", "order"); strings go in single quotes. = on text is case-sensitive; LIKE is case-insensitive for ASCII. Integer division truncates: multiply by 1.0 or CAST(x AS REAL) for ratios and percentages. Dates are usually text: use date(), strftime() and substr(), and check the format with sample_values first.`,
	"postgres": `The database is PostgreSQL. Unquoted identifiers fold to lower case: quote names that hold capitals, spaces, punctuation or reserved words in double quotes ("SchoolStats", "order"); strings go in single quotes. ILIKE matches without case. Integer division truncates: cast to numeric for ratios and percentages, and round with ROUND(x::numeric, 2). Tables outside the search path need schema.table.`,
	"duckdb":   `The database is DuckDB. Quote identifiers that hold spaces, punctuation, capitals or reserved words in double quotes ("Order Items", "order"); strings go in single quotes. ILIKE matches without case, and a query may start with FROM (FROM t SELECT a, or FROM t alone). / always returns a double, even on integers, and // is integer division. Dates: date_trunc('month', d), strftime(d, '%Y-%m'), extract(year FROM d). The tables and views listed are what there is: never read files with read_csv, read_parquet or a file path.`,
	"mysql":    "The database is MySQL or MariaDB. Quote identifiers that hold spaces, punctuation or reserved words in backticks (`order items`, `order`); strings go in single quotes. Use LIMIT n, never TOP or FETCH FIRST. / returns a decimal even on integers, and DIV is integer division. Dates: DATE_FORMAT(d, '%Y-%m'), YEAR(d), MONTH(d), DATEDIFF(a, b) in days. There is no FULL OUTER JOIN on MariaDB: UNION a LEFT and a RIGHT JOIN. String comparison (=, LIKE) ignores case under the default collations.",
	"":         `Write standard SQL. Quote identifiers that hold spaces, punctuation, capitals or reserved words in double quotes; strings go in single quotes.`,
}

// systemPrompt is the stable part of every request: how to work, the
// dialect, what the server says of itself, and the schema. With databases
// (a server of several, none chosen), the model chooses one and the
// dialect rules are those of their engines.
func systemPrompt(dialect, serverInstructions, schema string, maxTurns int, databases []DatabaseSummary) string {
	var b strings.Builder
	if len(databases) == 0 {
		b.WriteString("You answer questions about a SQL database by writing SQL and testing it with tools.\n\nHow to work:\n")
	} else {
		fmt.Fprintf(&b, `You answer questions about SQL databases by writing SQL and testing it with tools. This server has %d databases (listed below): choose the one whose tables answer the question.

How to work:
0. Every tool call, submit_answer too, names the database it is for in its database argument; list_tables with database lists that database's tables. Say in your answer which database you used.
`, len(databases))
	}
	fmt.Fprintf(&b, `1. Find the tables and columns you need in the schema below. describe_table shows a table that is not described here; search_schema finds columns by meaning.
2. Before you filter on a value (a name, a status, a code, a date), check how it is really written with distinct_values or sample_values: case, spelling, abbreviations, formats, units.
3. Test the query with run_query and read the result: does it answer exactly what was asked, at the right grain, without duplicates or NULLs you did not expect?
4. Call submit_answer with the final SQL and a short answer in plain words. The SQL runs again and its result is what the user sees, so select exactly the columns the question asks for.

Rules:
- The database is read-only: one SELECT (or WITH ... SELECT, UNION, VALUES) per query.
%s
- Call several tools in one turn when they do not depend on each other: they run at the same time.
- When a tool reports an error, read it, fix the call and try again.
- A hint, when given, is outside knowledge about the data: trust it.
- You have at most %d turns. Always finish with submit_answer; an answer in plain text is not read.
`, rulesFor(dialect, databases), maxTurns)
	if s := strings.TrimSpace(serverInstructions); s != "" {
		fmt.Fprintf(&b, "\nThe server says:\n%s\n", s)
	}
	fmt.Fprintf(&b, "\n%s", schema)
	return b.String()
}

// rulesFor is the dialect rule lines of the prompt: the dialect's, or,
// with databases, each of their engines' once.
func rulesFor(dialect string, databases []DatabaseSummary) string {
	if len(databases) == 0 {
		return "- " + DialectRule(dialect)
	}
	var lines []string
	seen := map[string]bool{}
	for _, d := range databases {
		if seen[d.Engine] {
			continue
		}
		seen[d.Engine] = true
		var names []string
		for _, o := range databases {
			if o.Engine == d.Engine {
				names = append(names, o.Name)
			}
		}
		rule := DialectRule(d.Engine)
		if rule == "" {
			rule = DialectRule("")
		}
		lines = append(lines, fmt.Sprintf("- In %s: %s", strings.Join(names, ", "), rule))
	}
	return strings.Join(lines, "\n")
}

// readDatabases writes the schema part of the system prompt on a server
// of several databases, whose list is listed: the list, then each
// database's tables (list_tables with database) in list order while they
// fit in budget bytes (budget < 0: the list alone).
func readDatabases(ctx context.Context, c *Client, listed *Tables, budget int) (string, error) {
	var b strings.Builder
	fmt.Fprintf(&b, "Schema\n\nDatabases (list_tables without database):\n%s\n", strings.TrimRight(listed.Text, "\n"))
	if budget < 0 {
		return b.String(), nil
	}
	left := budget - b.Len()
	for _, d := range listed.Databases {
		if d.Unavailable != "" {
			continue
		}
		tables, err := c.WithDatabase(d.Name).ListTables(ctx)
		var te *ToolError
		if errors.As(err, &te) {
			continue // down now; the model can ask again
		}
		if err != nil {
			return "", err
		}
		part := fmt.Sprintf("\nTables of %s (list_tables with database %q):\n%s\n", d.Name, d.Name, strings.TrimRight(tables.Text, "\n"))
		if len(part) > left {
			fmt.Fprintf(&b, "\nThe other databases' tables are not listed here: call list_tables with their database.\n")
			break
		}
		left -= len(part)
		b.WriteString(part)
	}
	b.WriteString("\nNo table is described here: call describe_table with database for the tables you need.\n")
	return b.String(), nil
}

// readSchema writes the schema part of the system prompt within budget
// bytes: list_tables' listing (cut if it alone is over), then describe_table
// for each table in list order while the descriptions fit. budget < 0
// means the listing alone.
func readSchema(ctx context.Context, c *Client, listed *Tables, budget int) (string, error) {
	list := strings.TrimRight(listed.Text, "\n")
	var b strings.Builder
	b.WriteString("Schema\n\nTables (list_tables):\n")
	if budget >= 0 && len(list) > budget {
		cut := strings.LastIndexByte(list[:budget], '\n')
		if cut < 0 {
			cut = 0
		}
		fmt.Fprintf(&b, "%s\n... (the list is cut here: call list_tables for the rest)\n", list[:cut])
		return b.String(), nil
	}
	b.WriteString(list)
	b.WriteString("\n")
	if budget < 0 {
		b.WriteString("\nNo table is described here: call describe_table for the tables you need.\n")
		return b.String(), nil
	}
	left := budget - len(list)
	var described []string
	for _, t := range listed.Tables {
		d, err := c.DescribeTable(ctx, t.Name)
		var te *ToolError
		if errors.As(err, &te) {
			continue // a table that went away, say; the model can ask
		}
		if err != nil {
			return "", err
		}
		text := strings.TrimRight(d.Text, "\n")
		if len(text)+2 > left {
			break
		}
		left -= len(text) + 2
		described = append(described, text)
	}
	switch {
	case len(described) == len(listed.Tables):
		b.WriteString("\nEvery table, described (describe_table):\n\n")
	case len(described) == 0:
		b.WriteString("\nNo table is described here (the schema is large): call describe_table for the tables you need.\n")
	default:
		fmt.Fprintf(&b, "\nThe first %d of %d tables, described (describe_table); call describe_table for the others:\n\n", len(described), len(listed.Tables))
	}
	for _, d := range described {
		b.WriteString(d)
		b.WriteString("\n\n")
	}
	return b.String(), nil
}
