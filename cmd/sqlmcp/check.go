package main

import (
	"context"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/sqlmcp/sqlmcp/schema"
	"github.com/sqlmcp/sqlmcp/sources"
)

const checkUsage = `Usage: sqlmcp check [--config FILE | --db PATH|URL ... | --demo] [serve's flags]

Opens every database the configuration names, as serve would, and checks it:
that it answers, that what the configuration names exists, what the role may
read and write, that a SQLite file is sound. It prints the effective
configuration and, for each database, the guard layers in force, the role
check's result, the limits, every problem found, and a policy to start
from: the columns whose names or sampled values look like personal or
secret data (never the values themselves). It exits with status 1
when a database could not be opened or has an error (with --strict, a warning
too), 2 when the configuration itself is wrong, and 0 otherwise.

Flags (each also read from the environment variable shown):
`

// check is sqlmcp check: the command an operator runs before deploying.
func check(ctx context.Context, args []string, stdout io.Writer, getenv func(string) string) error {
	cfg := &config{}
	fs := newFlags(cfg, io.Discard)
	strict := fs.Bool("strict", false, "exit with status 1 on warnings too (SQLMCP_STRICT)")
	if ok, err := parseArgs(fs, args, stdout, checkUsage, "sqlmcp check --help", getenv); !ok {
		return err
	}
	if err := finishServe(cfg, fs, getenv); err != nil {
		return err
	}
	f := cfg.sources
	if f == nil {
		var err error
		if f, err = demoSource(cfg); err != nil {
			return err
		}
	}
	keyPolicies(f, cfg.maskKey)
	where := f.Path
	if where == "" {
		where = "the command line"
	}
	fmt.Fprintf(stdout, "# the configuration from %s, as it runs\n%s", where, f.Effective())
	fmt.Fprintf(stdout, "\naudit file: %s\n", cfg.audit.describe())
	auditErr := cfg.audit.problem()
	if auditErr != "" {
		printItem(stdout, "error", auditErr)
	}

	reports := make([]*sources.Report, len(f.Sources))
	suggestions := make([]*schema.Suggestion, len(f.Sources))
	var wg sync.WaitGroup
	for i, s := range f.Sources {
		wg.Go(func() {
			db, cat, r := sources.Open(ctx, s, engines)
			if db != nil {
				if cat != nil {
					suggestions[i], _ = cat.SuggestPolicy(ctx) // nil when the catalog cannot be read: no suggestion
				}
				db.Close()
			}
			reports[i] = r
		})
	}
	wg.Wait()

	errs, warnings := 0, 0
	if auditErr != "" {
		errs++
	}
	for i, r := range reports {
		fmt.Fprintf(stdout, "\ndatabase %s", r.Name)
		if r.Engine != "" {
			fmt.Fprintf(stdout, " (%s, %s)", r.Engine, r.Database)
		}
		fmt.Fprintln(stdout, ":")
		if r.Unavailable != "" {
			errs++
			printItem(stdout, "error", "unavailable: "+r.Unavailable)
			continue
		}
		printItem(stdout, "parser", r.Guard[0])
		printItem(stdout, "engine", strings.TrimPrefix(r.Guard[1], "engine: "))
		for _, line := range r.Guard[2:] {
			label, text, _ := strings.Cut(line, ": ")
			printItem(stdout, label, text) // DuckDB's sandbox: its settings, one line
		}
		if r.Role != "" {
			printItem(stdout, "role", r.Role)
		}
		l := r.Limits
		printItem(stdout, "limits", fmt.Sprintf("timeout %s, max_rows %d, max_rows_limit %d, max_bytes %d, max_cell_bytes %d, max_concurrency %d",
			l.Timeout, l.MaxRows, l.MaxRowsLimit, l.MaxBytes, l.MaxCellBytes, f.Sources[i].MaxConcurrency))
		found := fmt.Sprintf("%d tables and views", r.Tables)
		if len(r.Schemas) > 0 {
			found += " in schemas " + strings.Join(r.Schemas, ", ")
		}
		printItem(stdout, "found", found)
		for _, line := range r.Policy {
			printItem(stdout, "policy", line)
		}
		for _, p := range r.Problems {
			if p.Fatal {
				errs++
				printItem(stdout, "error", p.Msg)
			} else {
				warnings++
				printItem(stdout, "warning", p.Msg)
			}
		}
		printSuggestion(stdout, suggestions[i])
	}
	fmt.Fprintf(stdout, "\n%s, %s, %s\n", count(len(reports), "database", "databases"),
		count(errs, "error", "errors"), count(warnings, "warning", "warnings"))
	if errs > 0 || *strict && warnings > 0 {
		return fmt.Errorf("check: %s and %s", count(errs, "error", "errors"), count(warnings, "warning", "warnings"))
	}
	return nil
}

// printSuggestion prints the policy s suggests, and how much it judged
// by names alone.
func printSuggestion(w io.Writer, s *schema.Suggestion) {
	switch {
	case s == nil:
		return
	case len(s.Columns) == 0:
		printItem(w, "policy", "no column looks like personal or secret data")
	default:
		printItem(w, "policy", fmt.Sprintf("%s like personal or secret data; a policy to start from, to check and paste into the source's block:\n%s",
			count(len(s.Columns), "column looks", "columns look"), s.Policy()))
	}
	if s.Unsampled > 0 {
		printItem(w, "policy", fmt.Sprintf("%s not sampled in time, judged by name only", count(s.Unsampled, "text column", "text columns")))
	}
}

// printItem prints one labelled line of a database's report, indenting
// the lines of a long message under it.
func printItem(w io.Writer, label, text string) {
	fmt.Fprintf(w, "  %s: %s\n", label, strings.ReplaceAll(strings.TrimRight(text, "\n"), "\n", "\n    "))
}

// count words n things: "1 error", "2 errors".
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
