package tools_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/rs/zerolog"

	"github.com/sqlmcp/sqlmcp/internal/dbtest"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/tools")

// TestGolden calls each tool as testdata/tools/*.txtar says, through a real
// MCP client, and compares what the model would receive.
func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "testdata", "tools", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, e := range dbtest.All(t, nil) {
		t.Run(e.Name, func(t *testing.T) { golden(t, e.Name, serve(t, e.DB, zerolog.Nop()), files) })
	}
	// MySQL's section, from the MariaDB (or MySQL) server
	// SQLMCP_TEST_MYSQL names; CI sets it.
	if os.Getenv(dbtest.MySQLEnv) != "" {
		t.Run("mysql", func(t *testing.T) { golden(t, "mysql", serve(t, dbtest.MySQL(t, nil), zerolog.Nop()), files) })
	}
}

// golden runs the calls of files through cs and compares the results with
// the files' section for engine.
func golden(t *testing.T, engine string, cs *mcp.ClientSession, files []string) {
	schemas := outputSchemas(t, cs)
	for _, file := range files {
		t.Run(strings.TrimSuffix(filepath.Base(file), ".txtar"), func(t *testing.T) {
			raw, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			a := parseTxtar(raw)
			call := strings.SplitN(strings.TrimSpace(a.section("call")), "\n", 2)
			if len(call) != 2 {
				t.Fatalf("the call section needs a tool name line and a JSON arguments line")
			}
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: call[0], Arguments: json.RawMessage(call[1])})
			if err != nil {
				t.Fatalf("protocol error: %v", err)
			}
			if !res.IsError {
				// The server no longer checks its output on every call:
				// every golden result is checked here instead.
				if err := schemas[call[0]].Validate(res.StructuredContent); err != nil {
					t.Errorf("the structured content does not match %s's output schema: %v", call[0], err)
				}
			}
			got := render(t, res)
			if *update {
				a.set(engine, got)
				if err := os.WriteFile(file, a.format(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			if want := a.section(engine); got != want {
				t.Errorf("%s\n--- got ---\n%s--- want ---\n%s", file, got, want)
			}
		})
	}
}

// outputSchemas resolves each tool's output schema as the client lists it.
func outputSchemas(t *testing.T, cs *mcp.ClientSession) map[string]*jsonschema.Resolved {
	t.Helper()
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]*jsonschema.Resolved{}
	for _, tl := range res.Tools {
		raw, err := json.Marshal(tl.OutputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(raw, &s); err != nil {
			t.Fatalf("%s's output schema: %v", tl.Name, err)
		}
		if out[tl.Name], err = s.Resolve(nil); err != nil {
			t.Fatalf("%s's output schema: %v", tl.Name, err)
		}
	}
	return out
}

var (
	elapsed = regexp.MustCompile(`"elapsed_ms": [\d.e+-]+`)
	dataID  = regexp.MustCompile(`<(/?)data-([0-9a-f]{8})>`)
)

// render writes a result as the model receives it: the error flag, the text
// and the structured content, with timings zeroed and the nonce of the
// database text's markers written ID, once checked to be one per result.
func render(t *testing.T, res *mcp.CallToolResult) string {
	t.Helper()
	var b strings.Builder
	ids := map[string]bool{}
	if res.IsError {
		b.WriteString("isError: true\n")
	}
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("content of type %T", c)
		}
		for _, m := range dataID.FindAllStringSubmatch(tc.Text, -1) {
			ids[m[2]] = true
		}
		b.WriteString(dataID.ReplaceAllString(tc.Text, "<${1}data-ID>"))
		if !strings.HasSuffix(tc.Text, "\n") {
			b.WriteByte('\n')
		}
	}
	if len(ids) > 1 {
		t.Errorf("the markers of one result hold %d nonces, want one", len(ids))
	}
	if res.StructuredContent != nil {
		raw, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		var pretty bytes.Buffer
		json.Indent(&pretty, raw, "", "  ")
		b.WriteString("structured:\n")
		b.WriteString(elapsed.ReplaceAllString(pretty.String(), `"elapsed_ms": 0`))
		b.WriteByte('\n')
	}
	return b.String()
}

// txtar is a comment and named sections, as golang.org/x/tools/txtar.
type txtar struct {
	comment string
	names   []string
	bodies  map[string]string
}

var marker = regexp.MustCompile(`(?m)^-- (\S+) --$`)

func parseTxtar(raw []byte) *txtar {
	s := string(raw)
	a := &txtar{bodies: map[string]string{}}
	locs := marker.FindAllStringSubmatchIndex(s, -1)
	if len(locs) == 0 {
		a.comment = s
		return a
	}
	a.comment = s[:locs[0][0]]
	for i, l := range locs {
		name := s[l[2]:l[3]]
		end := len(s)
		if i+1 < len(locs) {
			end = locs[i+1][0]
		}
		a.names = append(a.names, name)
		a.bodies[name] = strings.TrimPrefix(s[l[1]:end], "\n")
	}
	return a
}

func (a *txtar) section(name string) string { return a.bodies[name] }

func (a *txtar) set(name, body string) {
	if _, ok := a.bodies[name]; !ok {
		a.names = append(a.names, name)
	}
	a.bodies[name] = body
}

func (a *txtar) format() []byte {
	var b strings.Builder
	b.WriteString(a.comment)
	for _, n := range a.names {
		b.WriteString("-- " + n + " --\n")
		b.WriteString(a.bodies[n])
	}
	return []byte(b.String())
}
