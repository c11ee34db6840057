package demo

import (
	"strings"
	"testing"
)

func TestMySQLLiterals(t *testing.T) {
	for _, tt := range []struct {
		v    any
		decl string
		want string
	}{
		{nil, "TEXT", "NULL"},
		{int64(-7), "INTEGER", "-7"},
		{12.0, "REAL", "12e0"},
		{0.1, "REAL", "0.1e0"},
		{1e-7, "REAL", "1e-07"},
		{"O'Brien", "TEXT", "'O''Brien'"},
		{`a\b`, "TEXT", "CONVERT(X'615c62' USING utf8mb4)"}, // the same with or without NO_BACKSLASH_ESCAPES
		{[]byte{0, 1}, "BLOB", "X'0001'"},
		{[]byte("text"), "TEXT", "'text'"},
	} {
		if got, err := mysqlLiteral(tt.v, tt.decl); err != nil || got != tt.want {
			t.Errorf("mysqlLiteral(%#v, %s) = %q, %v; want %q", tt.v, tt.decl, got, err, tt.want)
		}
	}
}

func TestMySQLScript(t *testing.T) {
	t.Parallel()
	path := build(t)
	stmts, err := MySQLScript(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	again, _ := MySQLScript(t.Context(), path)
	if strings.Join(stmts, "\n") != strings.Join(again, "\n") {
		t.Error("the script differs between two runs")
	}
	var smp string
	for _, s := range stmts {
		if strings.HasPrefix(s, "CREATE TABLE `StateMealProgram`") {
			smp = s
		}
	}
	for _, want := range []string{
		"`CDSCode` VARCHAR(191) NOT NULL COMMENT 'County-District-School code of the school.'",
		"`Academic Year` VARCHAR(191) NOT NULL COMMENT",
		"`School Name` TEXT COMMENT",
		"`Percent (%) Eligible Free (K-12)` DOUBLE COMMENT",
		"PRIMARY KEY (`CDSCode`, `Academic Year`)",
		"FOREIGN KEY (`CDSCode`) REFERENCES `schools` (`CDSCode`)",
		"COLLATE=utf8mb4_bin COMMENT='The state''s Free",
	} {
		if !strings.Contains(smp, want) {
			t.Errorf("StateMealProgram's CREATE TABLE lacks %q:\n%s", want, smp)
		}
	}
	last := stmts[len(stmts)-2]
	if !strings.HasPrefix(last, "CREATE VIEW `student_roster` AS") || !strings.Contains(last, "CONCAT(s.first_name, ' ', s.last_name)") {
		t.Errorf("the view in MySQL's dialect: %s", last)
	}
}
