package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/sqlmcp/sqlmcp/agent"
	"github.com/sqlmcp/sqlmcp/chart"
	"github.com/sqlmcp/sqlmcp/internal/term"
	"github.com/sqlmcp/sqlmcp/internal/text"
)

// What ask shows: the progress of the agent's turns on stderr, and each
// answer on stdout, as text with a table or as JSON.

// tableRows is how many rows of the result ask prints.
const tableRows = 20

// progress shows the agent's steps: with --verbose a line per model and
// tool call, and on a terminal a status line.
type progress struct {
	*term.Progress
	verbose bool
}

// event is the agent's OnEvent.
func (p *progress) event(e agent.Event) {
	turn := fmt.Sprintf("turn %d · ", e.Turn)
	switch e.Kind {
	case "model":
		if p.verbose {
			s := turn + "model · " + term.Duration(e.Duration)
			if e.Text != "" {
				s += " · " + text.OneLine(e.Text, 100)
			}
			p.Line(s)
		}
		p.Status(turn + "tools")
	case "tool":
		if p.verbose {
			s := turn + e.Tool + " " + describeArgs(e.Args) + " · " + term.Duration(e.Duration)
			if e.IsError {
				s += " · error: " + text.OneLine(e.Text, 160)
			}
			p.Line(s)
		}
		// The next model call starts when the turn's last tool is done.
		p.Status(fmt.Sprintf("turn %d · model", e.Turn+1))
	case "retry":
		if p.verbose {
			p.Line(turn + "asked again: " + text.OneLine(e.Text, 120))
		}
		p.Status(fmt.Sprintf("turn %d · model", e.Turn+1))
	case "answer":
		if p.verbose {
			p.Line(turn + "answer · " + text.OneLine(e.Text, 120))
		}
		p.Status("")
	}
}

// describeArgs shows a tool call's arguments briefly: the SQL of
// run_query and submit_answer on one line, others as JSON.
func describeArgs(raw json.RawMessage) string {
	var args map[string]any
	if json.Unmarshal(raw, &args) == nil {
		if sql, ok := args["sql"].(string); ok {
			return text.OneLine(sql, 160)
		}
	}
	return text.OneLine(string(raw), 160)
}

// printResult prints one answer as --json or text say, the turns it took
// with --verbose, and draws the chart with --chart.
func printResult(stdout, stderr io.Writer, p *progress, cfg *askConfig, ans *agent.Answer) error {
	var err error
	if cfg.json {
		err = printJSON(stdout, ans, cfg.model.Name())
	} else {
		printAnswer(stdout, ans)
	}
	if cfg.verbose {
		tokens := ans.Usage.Input + ans.Usage.Output + ans.Usage.CacheRead + ans.Usage.CacheWrite
		p.Line(fmt.Sprintf("%d turns · %d tokens (%d cached) · %.1f s", ans.Turns, tokens, ans.Usage.CacheRead, ans.Seconds))
	}
	if cfg.chart != "" {
		if cerr := chart.Write(cfg.chart, ans.Columns, ans.Rows); cerr != nil {
			fmt.Fprintf(stderr, "sqlmcp: no chart: %v\n", cerr)
		} else if !cfg.json {
			fmt.Fprintf(stdout, "Chart: %s\n", cfg.chart)
		}
	}
	return err
}

// printAnswer prints the answer, the SQL and the first rows of its result.
func printAnswer(w io.Writer, ans *agent.Answer) {
	if !ans.Submitted {
		fmt.Fprintln(w, "Note: the model did not submit an answer; this is the last query that ran.")
	}
	if t := strings.TrimSpace(ans.Text); t != "" {
		fmt.Fprintln(w, t)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "SQL:")
	for _, l := range strings.Split(strings.TrimSpace(ans.SQL), "\n") {
		fmt.Fprintln(w, "  "+strings.TrimRight(l, " \t\r"))
	}
	fmt.Fprintln(w)
	printTable(w, ans)
}

// printTable prints the answer's result as a table of at most tableRows rows.
func printTable(w io.Writer, ans *agent.Answer) {
	term.Table(w, term.Result{Columns: ans.Columns, Rows: ans.Rows, RowCount: ans.RowCount, Truncated: ans.Truncated}, tableRows)
}

// answerJSON is --json's output.
type answerJSON struct {
	Question  string      `json:"question"`
	Hint      string      `json:"hint,omitempty"`
	SQL       string      `json:"sql"`
	Answer    string      `json:"answer"`
	Submitted bool        `json:"submitted"`
	Columns   []string    `json:"columns"`
	Rows      [][]any     `json:"rows"`
	RowCount  int         `json:"row_count"`
	Truncated bool        `json:"truncated"`
	Turns     int         `json:"turns"`
	Tokens    agent.Usage `json:"tokens"`
	Seconds   float64     `json:"seconds"`
	Model     string      `json:"model"`
}

func printJSON(w io.Writer, ans *agent.Answer, model string) error {
	out := answerJSON{
		Question: ans.Question, Hint: ans.Hint, SQL: ans.SQL, Answer: ans.Text, Submitted: ans.Submitted,
		Columns: ans.Columns, Rows: ans.Rows, RowCount: ans.RowCount, Truncated: ans.Truncated,
		Turns: ans.Turns, Tokens: ans.Usage, Seconds: float64(int(ans.Seconds*1000)) / 1000, Model: model,
	}
	if out.Columns == nil {
		out.Columns = []string{}
	}
	if out.Rows == nil {
		out.Rows = [][]any{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}
