// Package notes keeps what a text-to-SQL system learned about a database,
// as plain Markdown files a person can read and edit: lessons from its own
// mistakes (each beside the wrong SQL and the right SQL), solved examples,
// and (tables, SQL, description) triplets found by exploring the database
// before any question. At question time the most relevant entries are
// retrieved by a BM25 ranking and written into the prompt.
//
// notes sits beside agent, under eval: it holds files and ranks text, and
// imports only the standard library and the shared helpers of
// internal/text and internal/files. eval learns and explores; the
// experienced system reads.
//
// Each file is a "# " title, a few lines for people (ignored when read,
// rewritten on save), then one entry per "## " heading. "## Question 12"
// ties an entry to question 12; any other heading marks an entry a person
// wrote (QuestionID NoQuestion), and Save writes such an entry back under a plain
// heading ("## Lesson", "## Example") or, in explored.md, its tables. Under
// the heading come "Key: value" lines, a value continued on following
// lines that are indented, and "Key:" lines followed by a fenced code block
// (```sql ... ```), which Save uses for every SQL. Text values are kept
// line by line with surrounding spaces and blank lines dropped; SQL is kept
// exactly, fenced with more backticks than it holds in a row. A key the
// file does not know is an error, so a typo is not silently lost:
//
//	## Question 12
//	Question: How many schools in Alameda have a free meal rate above 0.5?
//	Hint: free meal rate = `Free Meal Count (K-12)` / `Enrollment (K-12)`
//	Lesson: The free meal counts are in frpm, per school; join on CDSCode.
//	Wrong SQL:
//	```sql
//	SELECT COUNT(*) FROM schools WHERE County = 'Alameda'
//	```
//	Right SQL:
//	```sql
//	SELECT COUNT(*) FROM frpm WHERE `County Name` = 'Alameda'
//	  AND `Free Meal Count (K-12)` / `Enrollment (K-12)` > 0.5
//	```
package notes

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/sqlmcp/sqlmcp/internal/files"
)

// The files of one database's notes, in DIR/<db_id>/.
const (
	LessonsFile  = "lessons.md"
	ExamplesFile = "examples.md"
	ExploredFile = "explored.md"
)

// NoQuestion is the QuestionID of an entry tied to no question: one a
// person wrote.
const NoQuestion = -1

// Lesson is what the system learned from one wrong answer.
type Lesson struct {
	// QuestionID is the question's id in its question set (BIRD's start
	// at 0); NoQuestion for an entry a person wrote.
	QuestionID int
	Question   string
	Hint       string
	// Lesson is one line: what to do differently next time.
	Lesson string
	// WrongSQL is the system's SQL, "" when it gave none; SQL the right one.
	WrongSQL string
	SQL      string
}

// Example is a solved question.
type Example struct {
	QuestionID int
	Question   string
	Hint       string
	SQL        string
}

// Triplet is a query that ran on the database and returned rows, found by
// exploring: the tables and join path it covers, the SQL, and one line
// saying what it returns.
type Triplet struct {
	Tables      []string
	Join        string // e.g. "orders.customer_id = customers.id"; "" for one table
	Description string
	SQL         string
}

// Notes are one database's notes. The zero value is empty notes. Methods
// that only read (Has, Len, Prompt, Save) may run concurrently with each
// other, not with changes to the slices.
type Notes struct {
	Lessons  []Lesson
	Examples []Example
	Triplets []Triplet
}

// Load reads the notes in dir (DIR/<db_id>). A missing dir or file counts
// as empty notes, not an error. A malformed file gives an error naming it
// and the line, "DIR/db/lessons.md line 14: unknown key ...", written for
// the person who edited it.
//
// Text values come back as Save wrote them: lines trimmed and blank lines
// dropped; a Triplet without tables has nil Tables. So Load after Save
// returns equal Notes for values already in that form, and SQL always
// round-trips exactly (except a carriage return ending one of its lines).
func Load(dir string) (*Notes, error) {
	n := &Notes{}
	for _, k := range kinds {
		path := filepath.Join(dir, k.file)
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("reading notes: %w", err)
		}
		entries, err := parse(path, data, k.keys)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			k.add(n, e)
		}
	}
	return n, nil
}

// Save writes the notes to dir, creating it when needed. Each file is
// replaced atomically (a temporary file in dir, then a rename), keeping an
// existing file's permissions. A kind's file is written only when it has
// entries or already exists, so notes holding only triplets create no
// lessons.md; an existing file with no entries left keeps just its header.
// The file is rewritten from n: a header a person changed goes back to the
// standard one, and a free heading becomes "## Lesson", "## Example" or, in
// explored.md, the entry's tables.
func (n *Notes) Save(dir string) error {
	if n == nil {
		n = &Notes{}
	}
	for _, k := range kinds {
		path := filepath.Join(dir, k.file)
		entries := k.render(n)
		perm := fs.FileMode(0o644)
		fi, err := os.Stat(path)
		switch {
		case err == nil:
			perm = fi.Mode().Perm()
		case !errors.Is(err, fs.ErrNotExist):
			return fmt.Errorf("saving notes: %w", err)
		case len(entries) == 0:
			continue
		}
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("saving notes: %w", err)
		}
		if err := files.Write(path, k.text(entries), perm); err != nil {
			return fmt.Errorf("saving notes: %w", err)
		}
	}
	return nil
}

// PlainName reports whether name can name a database's folder, in a
// notes folder or under a --db-root: not empty, no slash, not "." or "..".
func PlainName(name string) bool {
	return name != "" && !strings.ContainsAny(name, `/\`) && name != "." && name != ".."
}

// DatabaseName names a database for its notes folder, as question sets
// name it by db_id: a SQLite file's name without its extension, or a
// PostgreSQL database's name; "" when dsn names neither.
func DatabaseName(dsn string) string {
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return ""
		}
		return strings.Trim(u.Path, "/")
	}
	path := strings.TrimPrefix(strings.TrimPrefix(dsn, "sqlite:"), "file:")
	path, _, _ = strings.Cut(path, "?")
	base := filepath.Base(path)
	return strings.TrimSuffix(base, filepath.Ext(base))
}

// Has reports whether a lesson or an example carries questionID. It is
// false for NoQuestion, the id of entries a person wrote.
func (n *Notes) Has(questionID int) bool {
	if n == nil || questionID < 0 {
		return false
	}
	for _, l := range n.Lessons {
		if l.QuestionID == questionID {
			return true
		}
	}
	for _, e := range n.Examples {
		if e.QuestionID == questionID {
			return true
		}
	}
	return false
}

// Len returns the number of entries of all kinds.
func (n *Notes) Len() int {
	if n == nil {
		return 0
	}
	return len(n.Lessons) + len(n.Examples) + len(n.Triplets)
}
