package guard

import (
	pg "github.com/pganalyze/pg_query_go/v6"
)

// sqliteForPostgres is sql as the masked-column check hands it to
// PostgreSQL's parser (CheckPolicySQL), which resolves a SQLite statement
// that reads a masked column: SQLite's comments blanked, each byte a
// space (line breaks kept), so that positions stay where they were. ok is
// false when the two grammars would still read the text apart: where
// PostgreSQL sees a comment SQLite does not (PostgreSQL nests /* */,
// SQLite does not), or a string or quoted name that does not start and
// end where SQLite's does (a dollar-quoted string, an escape string with
// its E prefix, a [name]). Two parsers that split a text differently
// judge different statements, and the check would place the masks of one
// on the columns of the other.
func sqliteForPostgres(sql string) (string, bool) {
	b := []byte(sql)
	type span struct{ start, end int }
	var quoted []span
	sqliteTokens(sql, func(kind byte, _ string, start, end int) {
		switch kind {
		case 'c':
			for i := start; i < end; i++ {
				if b[i] != '\n' && b[i] != '\r' {
					b[i] = ' '
				}
			}
		case 'n':
			quoted = append(quoted, span{start, end})
		}
	})
	text := string(b)
	res, err := pg.Scan(text)
	if err != nil {
		return "", false
	}
	var theirs []span
	for _, t := range res.Tokens {
		start, end := int(t.Start), int(t.End)
		switch t.Token {
		case pg.Token_SQL_COMMENT, pg.Token_C_COMMENT:
			return "", false
		case pg.Token_SCONST, pg.Token_USCONST, pg.Token_BCONST, pg.Token_XCONST:
			theirs = append(theirs, span{start, end})
		case pg.Token_IDENT, pg.Token_UIDENT:
			if start < end && (text[start] == '"' || text[start] == 'U' || text[start] == 'u') && end-start > 1 && text[end-1] == '"' {
				theirs = append(theirs, span{start, end})
			}
		}
	}
	if len(theirs) != len(quoted) {
		return "", false
	}
	for i := range quoted {
		if quoted[i] != theirs[i] {
			return "", false
		}
	}
	return text, true
}
