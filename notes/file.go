package notes

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"

	"github.com/sqlmcp/sqlmcp/internal/text"
)

// kind is one of the three files: its name, what Save writes before the
// entries, the keys it knows in the order Save writes them, and how its
// entries map to and from Notes.
type kind struct {
	file   string
	header string
	keys   []string
	add    func(n *Notes, e entry)
	render func(n *Notes) []string
}

var kinds = []kind{
	{
		file: LessonsFile,
		header: "# Lessons\n\n" +
			"What was learned from wrong answers on this database. An entry is a \"## \" heading (\"## Question N\" ties it\n" +
			"to a question) and Question:, Hint:, Lesson: lines, then Wrong SQL: and Right SQL:, each above a ```sql block.\n" +
			"Indent a line to continue the value above it. You may edit or delete entries; an unknown key is an error.\n",
		keys: []string{"Question", "Hint", "Lesson", "Wrong SQL", "Right SQL"},
		add: func(n *Notes, e entry) {
			n.Lessons = append(n.Lessons, Lesson{
				QuestionID: questionID(e.heading),
				Question:   e.values["Question"],
				Hint:       e.values["Hint"],
				Lesson:     e.values["Lesson"],
				WrongSQL:   e.values["Wrong SQL"],
				SQL:        e.values["Right SQL"],
			})
		},
		render: func(n *Notes) []string {
			var out []string
			for _, l := range n.Lessons {
				var b strings.Builder
				writeHeading(&b, l.QuestionID, "Lesson")
				writeText(&b, "Question", l.Question)
				writeText(&b, "Hint", l.Hint)
				writeText(&b, "Lesson", l.Lesson)
				writeCode(&b, "Wrong SQL", l.WrongSQL)
				writeCode(&b, "Right SQL", l.SQL)
				out = append(out, b.String())
			}
			return out
		},
	},
	{
		file: ExamplesFile,
		header: "# Examples\n\n" +
			"Solved questions on this database. An entry is a \"## \" heading (\"## Question N\" ties it to a question)\n" +
			"and Question:, Hint: lines, then SQL: above a ```sql block. Indent a line to continue the value above it.\n" +
			"You may edit or delete entries; an unknown key is an error.\n",
		keys: []string{"Question", "Hint", "SQL"},
		add: func(n *Notes, e entry) {
			n.Examples = append(n.Examples, Example{
				QuestionID: questionID(e.heading),
				Question:   e.values["Question"],
				Hint:       e.values["Hint"],
				SQL:        e.values["SQL"],
			})
		},
		render: func(n *Notes) []string {
			var out []string
			for _, x := range n.Examples {
				var b strings.Builder
				writeHeading(&b, x.QuestionID, "Example")
				writeText(&b, "Question", x.Question)
				writeText(&b, "Hint", x.Hint)
				writeCode(&b, "SQL", x.SQL)
				out = append(out, b.String())
			}
			return out
		},
	},
	{
		file: ExploredFile,
		header: "# Explored\n\n" +
			"Queries that ran on this database and returned rows. An entry is a \"## \" heading (for people: the tables)\n" +
			"and Tables: (comma-separated), Join:, Description: lines, then SQL: above a ```sql block.\n" +
			"Indent a line to continue the value above it. You may edit or delete entries; an unknown key is an error.\n",
		keys: []string{"Tables", "Join", "Description", "SQL"},
		add: func(n *Notes, e entry) {
			var tables []string
			for _, t := range strings.FieldsFunc(e.values["Tables"], func(r rune) bool { return r == ',' || r == '\n' }) {
				if t = strings.TrimSpace(t); t != "" {
					tables = append(tables, t)
				}
			}
			n.Triplets = append(n.Triplets, Triplet{
				Tables:      tables,
				Join:        e.values["Join"],
				Description: e.values["Description"],
				SQL:         e.values["SQL"],
			})
		},
		render: func(n *Notes) []string {
			var out []string
			for _, t := range n.Triplets {
				var tables []string
				for _, name := range t.Tables {
					if name = strings.Join(strings.Fields(name), " "); name != "" {
						tables = append(tables, name)
					}
				}
				heading := strings.Join(tables, ", ")
				if heading == "" {
					heading = "Query"
				}
				var b strings.Builder
				b.WriteString("## " + heading + "\n")
				writeText(&b, "Tables", strings.Join(tables, ", "))
				writeText(&b, "Join", t.Join)
				writeText(&b, "Description", t.Description)
				writeCode(&b, "SQL", t.SQL)
				out = append(out, b.String())
			}
			return out
		},
	},
}

// text is the whole file: the header, then the entries, a blank line
// before each.
func (k kind) text(entries []string) []byte {
	var b strings.Builder
	b.WriteString(k.header)
	for _, e := range entries {
		b.WriteString("\n")
		b.WriteString(e)
	}
	return []byte(b.String())
}

// questionID returns N for a heading "Question N", N a whole number 0 or
// more, else NoQuestion.
func questionID(heading string) int {
	f := strings.Fields(heading)
	if len(f) != 2 || !strings.EqualFold(f[0], "Question") {
		return NoQuestion
	}
	id, err := strconv.Atoi(f[1])
	if err != nil || id < 0 {
		return NoQuestion
	}
	return id
}

func writeHeading(b *strings.Builder, id int, plain string) {
	if id >= 0 {
		fmt.Fprintf(b, "## Question %d\n", id)
		return
	}
	b.WriteString("## " + plain + "\n")
}

// writeText writes "Key: first line" and the value's other lines indented,
// or nothing for an empty value.
func writeText(b *strings.Builder, key, value string) {
	var lines []string
	for l := range strings.SplitSeq(value, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			lines = append(lines, l)
		}
	}
	if len(lines) == 0 {
		return
	}
	b.WriteString(key + ": " + lines[0] + "\n")
	for _, l := range lines[1:] {
		b.WriteString("  " + l + "\n")
	}
}

// writeCode writes "Key:" and sql in a fenced block, or nothing for "".
// The fence is longer than any run of backticks in sql, so no line of sql
// can close it.
func writeCode(b *strings.Builder, key, sql string) {
	if sql == "" {
		return
	}
	longest, run := 0, 0
	for i := 0; i < len(sql); i++ {
		if sql[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", max(3, longest+1))
	b.WriteString(key + ":\n" + fence + "sql\n" + sql + "\n" + fence + "\n")
}

// entry is one "## " section of a file: its heading and its values by key.
type entry struct {
	heading string
	values  map[string]string
}

// parse reads a file's entries, allowing only keys; path is for errors.
func parse(path string, data []byte, keys []string) ([]entry, error) {
	body := strings.TrimPrefix(string(data), "\ufeff")
	lines := strings.Split(body, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	fail := func(i int, format string, args ...any) error {
		return fmt.Errorf("%s line %d: %s", path, i+1, fmt.Sprintf(format, args...))
	}

	var (
		entries []entry
		cur     *entry
		seen    map[string]int // key → line index, in cur
		open    string         // key whose value an indented line continues
		want    string         // key with no value yet, which a code block may give
	)
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		trimmed := strings.TrimSpace(line)
		if line == "##" || strings.HasPrefix(line, "## ") {
			entries = append(entries, entry{heading: strings.TrimSpace(line[2:]), values: map[string]string{}})
			cur, seen, open, want = &entries[len(entries)-1], map[string]int{}, "", ""
			continue
		}
		if cur == nil || trimmed == "" {
			// Before the first heading is the header, for people. A blank
			// line ends a value but not the wait for a code block.
			open = ""
			continue
		}
		fence, isFence := fenceOf(trimmed)
		if isFence && want != "" {
			end, code, ok := readBlock(lines, i, fence)
			if !ok {
				return nil, fail(i, "the code block starting here is not closed: end it with a line %s", fence)
			}
			cur.values[want] = code
			i, open, want = end, "", ""
			continue
		}
		indented := line[0] == ' ' || line[0] == '\t'
		if indented && open != "" {
			if v := cur.values[open]; v != "" {
				cur.values[open] = v + "\n" + trimmed
			} else {
				cur.values[open] = trimmed
			}
			want = ""
			continue
		}
		if isFence {
			return nil, fail(i, "a code block must follow a key line such as %q with nothing between", keys[len(keys)-1]+":")
		}
		if indented {
			return nil, fail(i, "an indented line continues the value on the line above, but there is none; remove the indent or join it to a key line")
		}
		key, value, ok := splitKey(line)
		if !ok {
			return nil, fail(i, "want %q or a \"## \" heading, got %q; the keys in %s are %s",
				"Key: value", text.Clip(trimmed, 41), filepath.Base(path), strings.Join(keys, ", "))
		}
		canon := ""
		for _, k := range keys {
			if strings.EqualFold(k, key) {
				canon = k
			}
		}
		if canon == "" {
			return nil, fail(i, "unknown key %q; the keys in %s are %s", key, filepath.Base(path), strings.Join(keys, ", "))
		}
		if first, dup := seen[canon]; dup {
			return nil, fail(i, "%s appears twice in this entry (first on line %d)", canon, first+1)
		}
		seen[canon] = i
		cur.values[canon] = value
		open, want = canon, ""
		if value == "" {
			want = canon
		}
	}
	return entries, nil
}

// fenceOf returns the fence a trimmed line opens (its run of three or more
// backticks or tildes) and whether it opens one.
func fenceOf(trimmed string) (string, bool) {
	if !strings.HasPrefix(trimmed, "```") && !strings.HasPrefix(trimmed, "~~~") {
		return "", false
	}
	n := 0
	for n < len(trimmed) && trimmed[n] == trimmed[0] {
		n++
	}
	return trimmed[:n], true
}

// readBlock reads the code block whose opening fence is lines[start]. It
// returns the index of the closing fence and the lines between, with the
// opening fence's indentation taken off each. A closing fence is a line of
// only the fence character, at least as many as open it.
func readBlock(lines []string, start int, fence string) (end int, code string, ok bool) {
	indent := len(lines[start]) - len(strings.TrimLeft(lines[start], " "))
	var body []string
	for i := start + 1; i < len(lines); i++ {
		t := strings.TrimSpace(lines[i])
		if len(t) >= len(fence) && strings.Trim(t, fence[:1]) == "" {
			return i, strings.Join(body, "\n"), true
		}
		l := lines[i]
		for j := 0; j < indent && strings.HasPrefix(l, " "); j++ {
			l = l[1:]
		}
		body = append(body, l)
	}
	return 0, "", false
}

// splitKey splits "Key: value" at the first colon, where Key is letters
// and spaces ("Wrong SQL"). Spaces in the key are collapsed.
func splitKey(line string) (key, value string, ok bool) {
	i := strings.IndexByte(line, ':')
	if i <= 0 {
		return "", "", false
	}
	for _, r := range line[:i] {
		if !unicode.IsLetter(r) && r != ' ' {
			return "", "", false
		}
	}
	key = strings.Join(strings.Fields(line[:i]), " ")
	return key, strings.TrimSpace(line[i+1:]), key != ""
}
