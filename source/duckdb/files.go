package duckdb

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// View names a view and the file, or glob of files, it reads: one entry
// of the configuration file's list, or one file of a served folder.
type View struct {
	Name string
	// Path is a data file (CSV/TSV, Parquet, JSON/NDJSON, optionally
	// .gz or .zst compressed), a folder of Parquet files, partitioned
	// (year=2024/...) or not, or a glob of data files of one kind
	// (exports/sales_*.parquet, as filepath.Match writes patterns),
	// listed once when the source opens.
	Path string
}

// dataKind is how a data file is read.
type dataKind int

const (
	notData dataKind = iota
	csvData
	tsvData
	parquetData
	jsonData
	ndjsonData
)

// kindOf tells a data file's kind by its name, compression suffix aside.
func kindOf(name string) dataKind {
	lower := strings.ToLower(name)
	for _, z := range []string{".gz", ".zst"} {
		lower = strings.TrimSuffix(lower, z)
	}
	switch filepath.Ext(lower) {
	case ".csv":
		return csvData
	case ".tsv", ".tab":
		return tsvData
	case ".parquet", ".pq":
		return parquetData
	case ".json":
		return jsonData
	case ".ndjson", ".jsonl":
		return ndjsonData
	}
	return notData
}

// isDuckDBName reports whether a file's name says it is a DuckDB database.
func isDuckDBName(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".duckdb", ".ddb":
		return true
	}
	return false
}

// viewName is a file's name without its extensions: "sales" for
// sales.csv.gz.
func viewName(path string) string {
	base := filepath.Base(path)
	if ext := strings.ToLower(filepath.Ext(base)); ext == ".gz" || ext == ".zst" {
		base = strings.TrimSuffix(base, filepath.Ext(base))
	}
	if kindOf(base) != notData {
		base = strings.TrimSuffix(base, filepath.Ext(base))
	}
	return base
}

// served is one view sqlmcp creates over files, before the sandbox locks.
type served struct {
	name  string
	path  string // absolute; a folder for a partitioned set
	kind  dataKind
	files []string // a folder's Parquet files, at any depth
}

// reader is the DuckDB table function call reading the view's files.
func (s served) reader() string {
	// Several files (a folder, a glob) are read as one table, their
	// columns matched by name.
	files, union := s.list(), ""
	if s.files != nil {
		union = ", union_by_name = true"
	}
	switch s.kind {
	case csvData:
		return fmt.Sprintf("read_csv(%s%s)", files, union)
	case tsvData:
		return fmt.Sprintf("read_csv(%s, delim = '\\t'%s)", files, union)
	case parquetData:
		if s.files != nil {
			union = ", hive_partitioning = true" + union
		}
		return fmt.Sprintf("read_parquet(%s%s)", files, union)
	case jsonData:
		return fmt.Sprintf("read_json(%s%s)", files, union)
	default:
		return fmt.Sprintf("read_json(%s, format = 'newline_delimited'%s)", files, union)
	}
}

// list is the view's files as a DuckDB list literal, each read as
// exactly that file.
func (s served) list() string {
	if s.files == nil {
		return quoteString(literalPath(s.path))
	}
	quoted := make([]string, len(s.files))
	for i, f := range s.files {
		quoted[i] = quoteString(literalPath(f))
	}
	return "[" + strings.Join(quoted, ", ") + "]"
}

// literalPath is path as a DuckDB reader's pattern that matches only
// path: DuckDB's readers glob every path they get, so a file named
// a*b.csv or [x].csv would read a.csv's neighbours (hidden ones too), and
// a glob character in brackets stands for itself. DuckDB knows no other
// glob characters ({ and } are plain).
func literalPath(path string) string {
	if !strings.ContainsAny(path, "*?[") {
		return path
	}
	var b strings.Builder
	for _, r := range path {
		switch r {
		case '*', '?', '[':
			b.WriteString("[" + string(r) + "]")
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// readable are the files DuckDB may open once locked.
func (s served) readable() []string {
	if s.files == nil {
		return []string{s.path}
	}
	return s.files
}

// discover lists the views for path: one for a data file, and for a
// folder, one per data file in it and one per sub-folder holding Parquet
// files (all of them, with hive partitioning read from their paths); a
// folder whose sub-folders are partitions (year=2024) is one view.
func discover(path string) ([]served, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		k := kindOf(path)
		if k == notData {
			return nil, fmt.Errorf("%s is not a data file sqlmcp reads: CSV/TSV, Parquet, JSON or NDJSON, optionally .gz or .zst", path)
		}
		return []served{{name: viewName(path), path: path, kind: k}}, nil
	}
	entries, err := os.ReadDir(path)
	if err != nil {
		return nil, err
	}
	partitioned := false
	for _, e := range entries {
		if e.IsDir() && strings.Contains(e.Name(), "=") {
			partitioned = true
		}
	}
	if partitioned {
		files := parquetFiles(path)
		if len(files) == 0 {
			return nil, fmt.Errorf("%s has partition folders but no Parquet files", path)
		}
		return []served{{name: filepath.Base(path), path: path, kind: parquetData, files: files}}, nil
	}
	var views []served
	for _, e := range entries {
		p := filepath.Join(path, e.Name())
		switch {
		case strings.HasPrefix(e.Name(), "."):
		case e.IsDir():
			if files := parquetFiles(p); len(files) > 0 {
				views = append(views, served{name: e.Name(), path: p, kind: parquetData, files: files})
			}
		case e.Type().IsRegular() && kindOf(e.Name()) != notData:
			views = append(views, served{name: viewName(p), path: p, kind: kindOf(e.Name())})
		}
	}
	if len(views) == 0 {
		return nil, fmt.Errorf("%s holds no data files sqlmcp reads (CSV/TSV, Parquet, JSON or NDJSON)", path)
	}
	return uniqueNames(views), nil
}

// fromViews builds the served set from the configuration's list.
func fromViews(list []View) ([]served, error) {
	var views []served
	for _, v := range list {
		p, err := filepath.Abs(v.Path)
		if err != nil {
			return nil, err
		}
		if strings.ContainsAny(p, "*?[") {
			s, err := fromGlob(v.Name, p)
			if err != nil {
				return nil, err
			}
			views = append(views, s)
			continue
		}
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("view %s: %w", v.Name, err)
		}
		s := served{name: v.Name, path: p, kind: kindOf(p)}
		if st.IsDir() {
			s.kind, s.files = parquetData, parquetFiles(p)
		}
		switch {
		case st.IsDir() && len(s.files) == 0, !st.IsDir() && s.kind == notData:
			return nil, fmt.Errorf("view %s: %s is not a data file or a folder of Parquet files", v.Name, p)
		}
		if s.name == "" {
			s.name = viewName(p)
		}
		views = append(views, s)
	}
	return uniqueNames(views), nil
}

// fromGlob is a view over the files a glob matches now: data files of
// one kind, a view named after the glob's folder unless name is given.
func fromGlob(name, pattern string) (served, error) {
	matches, err := filepath.Glob(pattern)
	if err != nil {
		return served{}, fmt.Errorf("view %s: %s: %w", name, pattern, err)
	}
	s := served{name: name, path: pattern, kind: kindOf(pattern)}
	for _, m := range matches {
		st, err := os.Stat(m)
		if err != nil || !st.Mode().IsRegular() {
			continue
		}
		if k := kindOf(m); k != s.kind || k == notData {
			return served{}, fmt.Errorf("view %s: %s matches %s, not a data file of the glob's kind: name the files by an extension (sales_*.parquet)", name, pattern, m)
		}
		s.files = append(s.files, m)
	}
	if len(s.files) == 0 {
		return served{}, fmt.Errorf("view %s: %s matches no data file", name, pattern)
	}
	if s.name == "" {
		s.name = viewName(filepath.Dir(pattern))
	}
	return s, nil
}

// uniqueNames gives views with the same name (sales.csv and
// sales.parquet) names of their own: sales, sales_2.
func uniqueNames(views []served) []served {
	sort.SliceStable(views, func(i, j int) bool { return views[i].name < views[j].name })
	seen := map[string]int{}
	for i := range views {
		key := strings.ToLower(views[i].name)
		seen[key]++
		if n := seen[key]; n > 1 {
			views[i].name = fmt.Sprintf("%s_%d", views[i].name, n)
		}
	}
	return views
}

// parquetFiles lists a folder's Parquet files at any depth, sorted. The
// list is fixed when sqlmcp starts: DuckDB may open these files and no
// others, so a file added later is not read.
func parquetFiles(dir string) []string {
	var files []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && strings.EqualFold(filepath.Ext(p), ".parquet") {
			files = append(files, p)
		}
		return nil
	})
	sort.Strings(files)
	return files
}

// quoteString writes s as a SQL string literal.
func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// quote writes name as a SQL identifier.
func quote(name string) string { return `"` + strings.ReplaceAll(name, `"`, `""`) + `"` }
