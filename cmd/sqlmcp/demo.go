package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/sqlmcp/sqlmcp/demo"
)

const demoUsage = `Usage: sqlmcp demo --parquet DIR [--cache-dir DIR]
       sqlmcp demo --mysql FILE [--cache-dir DIR]

Writes the bundled demo (the database sqlmcp serve --demo serves) as a
folder of Parquet files, one per table and view, each described in its
Parquet metadata, to try the DuckDB engine on:

  sqlmcp demo --parquet school && sqlmcp serve --db school/

DIR must not exist yet, or be empty. Or writes it as a MySQL and MariaDB
script (tables with their keys and comments, rows, views) to FILE, - for
standard output, to load into an empty database:

  sqlmcp demo --mysql demo.sql && mariadb -e 'CREATE DATABASE demo' && mariadb demo < demo.sql
  sqlmcp eval --demo --db mysql://reader@127.0.0.1:3306/demo --system agent

sqlmcp never writes to a server itself.

Flags (each also read from the environment variable shown):
`

// demoCommand is sqlmcp demo: the demo database written out in another
// form.
func demoCommand(ctx context.Context, args []string, stdout io.Writer, getenv func(string) string) error {
	fs := flag.NewFlagSet("demo", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var f dbFlags
	out := fs.String("parquet", "", "the folder to write the demo's Parquet files to (SQLMCP_PARQUET)")
	script := fs.String("mysql", "", "the file to write the demo to as a MySQL script, - for standard output (SQLMCP_MYSQL)")
	fs.StringVar(&f.cacheDir, "cache-dir", "", "where the demo database is built (SQLMCP_CACHE_DIR; default: the user cache directory)")
	if ok, err := parseArgs(fs, args, stdout, demoUsage, "sqlmcp demo --help", getenv); !ok {
		return err
	}
	switch {
	case *out == "" && *script == "":
		return usagef("demo: give --parquet DIR, the folder to write the Parquet files to, or --mysql FILE, the script to write")
	case *out != "" && *script != "":
		return usagef("demo: give --parquet DIR or --mysql FILE, not both")
	case *script != "":
		return demoMySQL(ctx, &f, *script, stdout)
	}
	if entries, err := os.ReadDir(*out); err == nil && len(entries) > 0 {
		return usagef("demo: %s is not empty; give a new or empty folder", *out)
	}
	path, err := f.demoPath()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	n, err := writeDemoParquet(ctx, path, *out)
	if err != nil {
		return fmt.Errorf("writing the demo as Parquet: %w", err)
	}
	fmt.Fprintf(stdout, "wrote %d Parquet files to %s; serve them with: sqlmcp serve --db %s\n", n, *out, *out)
	return nil
}

// demoMySQL writes the demo as a MySQL script to file, - for stdout.
func demoMySQL(ctx context.Context, f *dbFlags, file string, stdout io.Writer) error {
	path, err := f.demoPath()
	if err != nil {
		return err
	}
	if file == "-" {
		return demo.WriteMySQL(ctx, stdout, path)
	}
	w, err := os.Create(file)
	if err != nil {
		return err
	}
	if err := demo.WriteMySQL(ctx, w, path); err != nil {
		w.Close()
		return fmt.Errorf("writing %s: %w", file, err)
	}
	if err := w.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote the demo as a MySQL script to %s; load it into an empty database: mariadb DB < %s\n", file, file)
	return nil
}
