package guard

import (
	"fmt"
	"strings"
)

// DuckDB's parser and binder do work in shapes of a statement, not only in
// its size, that neither its interrupt nor its memory_limit reach. Measured
// on DuckDB 1.4, the parse (json_serialize_sql) alone:
//   - a run of n operator characters (+-+-...) costs n³: 4 KB held a core
//     for 13 s;
//   - a chain of n ANDs or ORs costs n²: 1 MiB took 15 s;
//   - the JSON of the tree is 75 to 200 times the text: a megabyte of
//     1, 1, ... took 1.1 GB to read;
//
// and binding what the guard then accepts:
//   - each level of nested subqueries doubles the time: 30 levels, 278
//     bytes, ran past 60 s and did not stop when asked;
//   - so does each level of nested lambdas (24 levels: 3.4 s);
//   - nested calls, lists and structs cost the cube of their depth (800
//     levels of [...]: 8.5 s and 1.7 GB), and so do operators, which are
//     calls too: a chain 1 + 1 + ... is as deep as it is long (600 terms
//     of + took 4.2 s, of || 8.4 s; 64 take 7 and 12 ms, 128 take 43 and
//     89 ms, on DuckDB 1.5);
//   - a select list's output names are made unique pairwise: 8,000 items
//     took 0.5 s, 32,000 took 34 s.
//
// So the text is measured before DuckDB parses it, and the tree before
// DuckDB binds it, each bound where the cost is some tens of milliseconds.
const (
	// maxDuckDBOperatorRuns bounds the sum of the cubes of the text's
	// runs of operator characters, counted over the raw text (strings and
	// comments too): a run of 512 costs about 30 ms.
	maxDuckDBOperatorRuns = 1 << 27
	// maxDuckDBConjunctions bounds the words AND and OR, anywhere in the
	// text.
	maxDuckDBConjunctions = 10_000
	// maxDuckDBTokens bounds the words, numbers and punctuation of the
	// text, anywhere in it: about a 16 MB tree.
	maxDuckDBTokens = 100_000
	// maxDuckDBTree bounds the JSON of the tree the guard reads.
	maxDuckDBTree = 64 << 20
	// maxDuckDBSelectNesting bounds how deeply queries nest.
	maxDuckDBSelectNesting = 12
	// maxDuckDBLambdaNesting bounds how deeply lambdas nest.
	maxDuckDBLambdaNesting = 8
	// maxDuckDBCallNesting bounds how deeply calls nest: list and struct
	// literals are calls, and so are operators (+, ||), each operator of a
	// chain a level of its own. Comparisons, AND and OR, CASE and CAST
	// are cheap at depth 900 and are not counted.
	maxDuckDBCallNesting = 64
	// maxDuckDBSelectList bounds a select list's items, a * counting as
	// duckStarItems.
	maxDuckDBSelectList = 2048
	duckStarItems       = 32
)

// checkDuckDBText refuses text whose parse alone would cost too much.
func checkDuckDBText(text string) *Error {
	if work, longest := operatorRunWork(text, 3); work > maxDuckDBOperatorRuns {
		return &Error{
			Reason: fmt.Sprintf("the SQL holds long runs of operator characters (the longest is %d of + - * / < > = and the like), which DuckDB's parser reads in time that grows with the cube of their length", longest),
			Hint:   "Put spaces between operators, and shorten runs of such characters in comments and strings",
		}
	}
	words, tokens := 0, 0
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case isSpace(c):
			i++
			continue
		case wordByte(c):
			j := i
			for j < len(text) && wordByte(text[j]) {
				j++
			}
			if w := text[i:j]; strings.EqualFold(w, "and") || strings.EqualFold(w, "or") {
				words++
			}
			i = j
		default:
			i++
		}
		tokens++
	}
	switch {
	case words > maxDuckDBConjunctions:
		return &Error{
			Reason: fmt.Sprintf("the SQL joins %d conditions with AND or OR; the limit is %d", words, maxDuckDBConjunctions),
			Hint:   "Match many values with IN (...) or a join against a list, not a chain of conditions",
		}
	case tokens > maxDuckDBTokens:
		return &Error{
			Reason: fmt.Sprintf("the SQL has %d words, numbers and symbols; the limit is %d", tokens, maxDuckDBTokens),
			Hint:   "Send a shorter statement: fewer list items and columns",
		}
	}
	return nil
}

// checkDuckDBShape refuses a parse tree DuckDB would take too long to
// bind: see the bounds above.
func checkDuckDBShape(tree any) *Error {
	return (&duckShape{}).walk(tree)
}

// duckShape is how deeply the walk is nested in each kind of node.
type duckShape struct {
	selects, lambdas, calls int
	// operators is how many of the calls are operators.
	operators int
}

func (s *duckShape) walk(n any) *Error {
	switch n := n.(type) {
	case []any:
		for _, c := range n {
			if e := s.walk(c); e != nil {
				return e
			}
		}
	case map[string]any:
		in := *s
		switch {
		case n["type"] == "SELECT_NODE":
			s.selects++
			if e := selectList(n); e != nil {
				return e
			}
		case n["class"] == "LAMBDA":
			s.lambdas++
		case n["class"] == "FUNCTION":
			s.calls++
			if n["is_operator"] == true {
				s.operators++
			}
		}
		switch {
		case s.selects > maxDuckDBSelectNesting:
			return &Error{
				Reason: fmt.Sprintf("the statement nests queries more than %d deep; DuckDB's planning time doubles with each level", maxDuckDBSelectNesting),
				Hint:   "Name the inner queries in a WITH clause and join them, instead of nesting them",
			}
		case s.lambdas > maxDuckDBLambdaNesting:
			return &Error{
				Reason: fmt.Sprintf("the statement nests lambdas more than %d deep", maxDuckDBLambdaNesting),
				Hint:   "Apply the functions one after another in a WITH clause",
			}
		case s.calls > maxDuckDBCallNesting && s.operators > 0:
			return &Error{
				Reason: fmt.Sprintf("the statement nests operators and calls more than %d deep (each operator of a chain a + b + c ... is a level); DuckDB plans them in time that grows with the cube of the depth", maxDuckDBCallNesting),
				Hint:   "Add many values with list_sum([a, b, c, ...]) and join many texts with concat(a, b, c, ...), or compute parts in a WITH clause",
			}
		case s.calls > maxDuckDBCallNesting:
			return &Error{
				Reason: fmt.Sprintf("the statement nests function calls, lists or structs more than %d deep", maxDuckDBCallNesting),
				Hint:   "Nest fewer calls: compute inner values in a WITH clause",
			}
		}
		for _, c := range n {
			if e := s.walk(c); e != nil {
				return e
			}
		}
		*s = in
	}
	return nil
}

// selectList refuses a query node whose select list DuckDB would take too
// long to name.
func selectList(n map[string]any) *Error {
	list, _ := n["select_list"].([]any)
	items := 0
	for _, it := range list {
		if m, ok := it.(map[string]any); ok && (m["class"] == "STAR" || m["type"] == "COLUMNS") {
			items += duckStarItems
		} else {
			items++
		}
	}
	if items <= maxDuckDBSelectList {
		return nil
	}
	return &Error{
		Reason: fmt.Sprintf("a select list has about %d items (each * counted as %d); the limit is %d", items, duckStarItems, maxDuckDBSelectList),
		Hint:   "Select fewer columns in one query",
	}
}
