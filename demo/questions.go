package demo

import _ "embed"

// Questions is a question set for the demo database in BIRD's format: a
// JSON list of {question_id, db_id ("demo"), question, evidence, SQL,
// difficulty (easy, moderate or hard)}, with gold SQL written for this
// project. `sqlmcp eval --demo` answers them.
//
//go:embed questions.json
var Questions []byte
