package main

// The C libraries linked in (DuckDB's above all) export every symbol they
// define, and Go's external linking puts them all in the binary's dynamic
// symbol table: about 6 MB of symbol names that the dynamic loader reads
// at every start, resident from then on. Nothing loads code into sqlmcp
// that could need them (DuckDB's and SQLite's extension loading are off),
// so they stay private to the binary.

// #cgo LDFLAGS: -Wl,--no-export-dynamic
import "C"
