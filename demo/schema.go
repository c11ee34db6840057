package demo

import (
	"regexp"
	"strings"
)

// A column is one column of a demo table: its DDL and its BIRD-style description.
type column struct {
	name, decl           string // decl is the declared type and constraints
	readable, desc, vals string // column_name, column_description, value_description
}

// A table is one demo table; the DDL, the INSERT and the description CSV all come from it.
type table struct {
	name, about string
	cols        []column
	keys        []string // table constraints after the columns
	options     string   // table options after the closing parenthesis, e.g. WITHOUT ROWID
	bom         bool     // write its CSV with a UTF-8 byte order mark, as BIRD's files have
}

// c abbreviates a column literal.
func c(name, decl, readable, desc, vals string) column {
	return column{name, decl, readable, desc, vals}
}

const gradeCodes = "K = kindergarten; 1-12 = grade 1 to 12"

// tables lists the demo tables in creation (and insertion) order: parents before children.
var tables = []table{
	{name: "schools", about: "One row per school in the Riverbend Unified School District.", bom: true, cols: []column{
		c("school_id", "INTEGER PRIMARY KEY", "school id", "District-assigned identifier of the school.", ""),
		c("CDSCode", "TEXT NOT NULL UNIQUE", "CDS code", "14-digit County-District-School code the state uses for the school; joins to StateMealProgram.", ""),
		c("name", "TEXT NOT NULL", "school name", "Name of the school.", ""),
		c("school_type", "TEXT NOT NULL", "school type", "Kind of school.", "Elementary; Middle; High; Charter = independently run public school that may span grade bands"),
		c("low_grade", "TEXT NOT NULL", "lowest grade", "Lowest grade level the school serves.", gradeCodes),
		c("high_grade", "TEXT NOT NULL", "highest grade", "Highest grade level the school serves.", gradeCodes),
		c("street_address", "TEXT", "street address", "Street address of the school.", ""),
		c("city", "TEXT NOT NULL", "city", "City the school is in.", ""),
		c("zip", "TEXT", "ZIP code", "Five-digit ZIP code.", ""),
		c("phone", "TEXT", "phone", "Main office phone number.", "NULL = not on file"),
		c("principal", "TEXT", "principal", "Full name of the current principal.", ""),
		c("opened_on", "DATE", "opened on", "Date the school first opened.", ""),
		c("is_title_i", "INTEGER NOT NULL DEFAULT 0", "Title I", "Whether the school receives federal Title I funds for high-poverty schools.", "1 = yes; 0 = no"),
		c("badge", "BLOB", "badge", "Tiny 16x16 monochrome badge image in PBM (P4) format.", "NULL = no badge on file"),
	}},
	{name: "courses", about: "The district course catalog; each course runs as semester sections.", cols: []column{
		c("course_id", "INTEGER PRIMARY KEY", "course id", "Identifier of the course.", ""),
		c("course_code", "TEXT NOT NULL UNIQUE", "course code", "Catalog code of the course.", ""),
		c("title", "TEXT NOT NULL", "title", "Course title.", ""),
		c("subject", "TEXT NOT NULL", "subject", "Subject area (department) of the course.", ""),
		c("min_grade", "TEXT NOT NULL", "minimum grade", "Lowest grade level that may take the course.", gradeCodes),
		c("max_grade", "TEXT NOT NULL", "maximum grade", "Highest grade level that may take the course.", gradeCodes),
		c("credits", "REAL", "credits", "High-school credits earned per semester completed.", "NULL = no credit (elementary and middle school)"),
		c("is_ap", "INTEGER NOT NULL DEFAULT 0", "is AP", "Whether this is an Advanced Placement course.", "1 = AP; 0 = regular"),
	}},
	{name: "teachers", about: "Teachers employed by the district, including those who have left (see delete_flag).", cols: []column{
		c("teacher_id", "INTEGER PRIMARY KEY", "teacher id", "Identifier of the teacher.", ""),
		c("school_id", "INTEGER NOT NULL REFERENCES schools(school_id)", "school id", "School the teacher is assigned to.", ""),
		c("first_name", "TEXT NOT NULL", "first name", "Teacher's first name.", ""),
		c("last_name", "TEXT NOT NULL", "last name", "Teacher's last name.", ""),
		c("email", "TEXT", "email", "District email address.", ""),
		c("phone", "TEXT", "phone", "Contact phone number, in whatever format it was entered.", "NULL = not on file"),
		c("subject", "TEXT NOT NULL", "subject", "Department the teacher teaches in.", "General Education = elementary classroom teacher; otherwise a subject department"),
		c("hire_date", "DATE", "hire date", "Date the teacher was hired by the district.", ""),
		c("salary", "REAL", "annual salary", "Annual salary in US dollars.", ""),
		c("is_certified", "INTEGER NOT NULL DEFAULT 1", "is certified", "Whether the teacher holds a full state teaching credential.", "1 = credentialed; 0 = intern or emergency permit"),
		c("delete_flag", "INTEGER NOT NULL DEFAULT 0", "delete flag", "Soft-delete marker: the teacher has left the district and the row is kept for history.", "1 = deleted (left); 0 = current"),
	}},
	{name: "students", about: "Every student enrolled in the district since 2022-23, current or not.", cols: []column{
		c("student_id", "INTEGER PRIMARY KEY", "student id", "District student identifier.", ""),
		c("school_id", "INTEGER NOT NULL REFERENCES schools(school_id)", "school id", "School the student attends now, or last attended.", ""),
		c("first_name", "TEXT NOT NULL", "first name", "Student's first name.", ""),
		c("last_name", "TEXT NOT NULL", "last name", "Student's last name.", ""),
		c("birth_date", "DATE", "birth date", "Date of birth.", ""),
		c("gender", "TEXT", "gender", "Gender as reported by the family.", "F = female; M = male; X = non-binary; NULL = not reported"),
		c("grade_level", "TEXT NOT NULL", "grade level", "Current grade level, or the last one for students who left.", gradeCodes),
		c("status", "TEXT NOT NULL", "enrollment status", "Whether the student is still enrolled.", "active = enrolled now; withdrawn = left the district (see withdrawal_date); graduated = finished grade 12"),
		c("enrolled_on", "DATE NOT NULL", "enrolled on", "Date the student first enrolled in the district.", ""),
		c("withdrawal_date", "DATE", "withdrawal date", "Date the student withdrew.", "NULL unless status = withdrawn"),
		c("graduation_year", "INTEGER", "graduation year", "Calendar year of graduation.", "NULL unless status = graduated"),
		c("home_language", "TEXT", "home language", "Primary language spoken at home.", ""),
		c("is_english_learner", "INTEGER NOT NULL DEFAULT 0", "English learner", "Whether the student is classified as an English learner.", "1 = yes; 0 = no"),
		c("has_iep", "INTEGER NOT NULL DEFAULT 0", "has IEP", "Whether the student has an Individualized Education Program (special education).", "1 = yes; 0 = no"),
		c("guardian_phone", "TEXT", "guardian phone", "Phone number of the primary guardian, as entered.", "NULL = not on file"),
	}},
	{name: "vendors", about: "Suppliers the district buys from.", cols: []column{
		c("vendor_id", "INTEGER PRIMARY KEY", "vendor id", "Identifier of the vendor.", ""),
		c("name", "TEXT NOT NULL", "vendor name", "Company name.", ""),
		c("category", "TEXT NOT NULL", "category", "Main category of goods the vendor supplies.", ""),
		c("contact_email", "TEXT", "contact email", "Email address for orders.", "NULL = orders by phone only"),
		c("phone", "TEXT", "phone", "Vendor phone number.", ""),
		c("is_active", "INTEGER NOT NULL DEFAULT 1", "is active", "Whether new orders may be placed with the vendor.", "1 = active; 0 = retired vendor"),
	}},
	{name: "StateMealProgram", about: "The state's Free or Reduced-Price Meal (FRPM) file for the district's schools, one row per school and academic year, with the state's column names.", bom: true, cols: []column{
		c("CDSCode", "TEXT NOT NULL REFERENCES schools(CDSCode)", "CDS code", "County-District-School code of the school.", ""),
		c("Academic Year", "TEXT NOT NULL", "academic year", "School year the counts are for.", "YYYY-YYYY, e.g. 2023-2024"),
		c("County Name", "TEXT", "county name", "County of the school.", ""),
		c("District Name", "TEXT", "district name", "District of the school.", ""),
		c("School Name", "TEXT", "school name", "School name as spelled in the state file.", ""),
		c("Charter School (Y/N)", "INTEGER", "charter school", "Whether the state lists the school as a charter.", "1 = yes; 0 = no"),
		c("Enrollment (K-12)", "REAL", "enrollment K-12", "Students enrolled on census day in early October.", ""),
		c("Free Meal Count (K-12)", "REAL", "free meal count K-12", "Number of enrolled students eligible for free meals.", "NULL = school did not report"),
		c("Percent (%) Eligible Free (K-12)", "REAL", "percent eligible free K-12", "Free Meal Count divided by Enrollment.", "a fraction from 0 to 1, not a percentage"),
		c("FRPM Count (K-12)", "REAL", "FRPM count K-12", "Number of students eligible for free or reduced-price meals.", "NULL = school did not report"),
		c("Percent (%) Eligible FRPM (K-12)", "REAL", "percent eligible FRPM K-12", "FRPM Count divided by Enrollment.", "a fraction from 0 to 1, not a percentage"),
	}, keys: []string{`PRIMARY KEY ("CDSCode", "Academic Year")`}},
	{name: "enrollments", about: "Which student took which course in which semester, with the final grade.", cols: []column{
		c("student_id", "INTEGER NOT NULL REFERENCES students(student_id)", "student id", "The enrolled student.", ""),
		c("course_id", "INTEGER NOT NULL REFERENCES courses(course_id)", "course id", "The course.", ""),
		c("term", "TEXT NOT NULL", "term", "Semester of the enrollment.", "YYYY-FA = fall semester (August-December) of YYYY; YYYY-SP = spring semester (January-June) of YYYY"),
		c("teacher_id", "INTEGER REFERENCES teachers(teacher_id)", "teacher id", "Teacher of the section.", "NULL = teacher not yet assigned"),
		c("enrolled_at", "DATETIME NOT NULL", "enrolled at", "When the enrollment was entered.", ""),
		c("status", "TEXT NOT NULL", "status", "State of the enrollment.", "enrolled = in progress; completed = finished with a grade; dropped = left the course (see drop_log); incomplete = grade pending"),
		c("final_score", "REAL", "final score", "Final course score, 0-100.", "NULL unless status = completed"),
		c("letter_grade", "TEXT", "letter grade", "Final letter grade.", "A = 90-100; B = 80-89; C = 70-79; D = 60-69; F = below 60; I = incomplete; NULL = no grade yet"),
		c("is_deleted", "INTEGER NOT NULL DEFAULT 0", "is deleted", "Soft-delete marker for rows entered by mistake; exclude them from counts.", "1 = voided; 0 = valid"),
	}, keys: []string{"PRIMARY KEY (student_id, course_id, term)"}},
	{name: "drop_log", about: "Audit log of course drops, one row per dropped enrollment.", cols: []column{
		c("log_id", "INTEGER PRIMARY KEY", "log id", "Identifier of the log entry, in order of entry.", ""),
		c("student_id", "INTEGER NOT NULL", "student id", "Student who dropped the course.", ""),
		c("course_id", "INTEGER NOT NULL", "course id", "Course that was dropped.", ""),
		c("term", "TEXT NOT NULL", "term", "Semester of the dropped enrollment.", "YYYY-FA = fall; YYYY-SP = spring"),
		c("dropped_at", "DATETIME NOT NULL", "dropped at", "When the drop was processed.", ""),
		c("reason", "TEXT", "reason", "Reason given for the drop.", "NULL = none given"),
		c("processed_by", "TEXT NOT NULL", "processed by", "Username of the staff member who processed the drop.", ""),
	}, keys: []string{"FOREIGN KEY (student_id, course_id, term) REFERENCES enrollments(student_id, course_id, term)"}},
	{name: "test_scores", about: "State and district standardized test results, one row per student, subject and administration.", cols: []column{
		c("score_id", "INTEGER PRIMARY KEY", "score id", "Identifier of the result.", ""),
		c("student_id", "INTEGER NOT NULL REFERENCES students(student_id)", "student id", "Student who took the test.", ""),
		c("school_id", "INTEGER NOT NULL REFERENCES schools(school_id)", "school id", "School the student attended when tested.", ""),
		c("subject", "TEXT NOT NULL", "subject", "Subject tested.", "Math; ELA = English language arts; Science"),
		c("administration", "TEXT NOT NULL", "administration", "Which testing window.", "Fall Interim and Winter Interim = district benchmarks; Spring Summative = the state test"),
		c("test_date", "DATE NOT NULL", "test date", "Date the test was taken.", ""),
		c("grade_tested", "TEXT NOT NULL", "grade tested", "Grade level of the student when tested.", gradeCodes),
		c("scale_score", "REAL", "scale score", "Scale score, roughly 2100-2900; comparable across grades.", "NULL = absent or invalidated"),
		c("achievement_level", "INTEGER", "achievement level", "Performance band for the grade.", "1 = standard not met; 2 = nearly met; 3 = met; 4 = exceeded; NULL = no score"),
	}},
	{name: "attendance", about: "Daily attendance exceptions: only days a student was absent, tardy or left early are recorded.", cols: []column{
		c("student_id", "INTEGER NOT NULL REFERENCES students(student_id)", "student id", "The student.", ""),
		c("attendance_date", "DATE NOT NULL", "attendance date", "School day of the exception.", ""),
		c("status", "TEXT NOT NULL", "status", "What happened that day.", "absent = missed the day; tardy = arrived late; early_dismissal = left early"),
		c("excused", "INTEGER NOT NULL DEFAULT 0", "excused", "Whether the school excused it.", "1 = excused; 0 = unexcused"),
		c("reason", "TEXT", "reason", "Reason recorded by the office.", "NULL = none given"),
		c("minutes_late", "INTEGER", "minutes late", "Minutes late.", "NULL unless status = tardy"),
		c("recorded_at", "DATETIME NOT NULL", "recorded at", "When the office entered the record.", ""),
	}, keys: []string{"PRIMARY KEY (student_id, attendance_date)"}, options: " WITHOUT ROWID"},
	{name: "order", about: "Supply orders placed by schools with vendors.", cols: []column{
		c("order_id", "INTEGER PRIMARY KEY", "order id", "Purchase order number, in order of placement.", ""),
		c("school_id", "INTEGER NOT NULL REFERENCES schools(school_id)", "school id", "School that placed the order.", ""),
		c("vendor_id", "INTEGER NOT NULL REFERENCES vendors(vendor_id)", "vendor id", "Vendor the order went to.", ""),
		c("requested_by", "INTEGER REFERENCES teachers(teacher_id)", "requested by", "Teacher who requested the items.", "NULL = ordered by the school office"),
		c("ordered_at", "DATETIME NOT NULL", "ordered at", "When the order was placed.", ""),
		c("item", "TEXT NOT NULL", "item", "What was ordered.", ""),
		c("category", "TEXT NOT NULL", "category", "Budget category of the item.", ""),
		c("quantity", "INTEGER NOT NULL", "quantity", "Number of units ordered.", ""),
		c("unit_price", "REAL NOT NULL", "unit price", "Price per unit in US dollars; the order total is quantity * unit_price.", ""),
		c("status", "TEXT NOT NULL", "status", "Where the order stands.", "pending; approved; shipped; received; cancelled"),
		c("received_on", "DATE", "received on", "Date the school received the goods.", "NULL unless status = received"),
		c("notes", "TEXT", "notes", "Free-text notes from the requester.", ""),
	}},
}

// views are created after the data is loaded; mysql is the view's SQL for
// MySQL where SQLite's does not run the same there.
var views = []struct{ name, about, sql, mysql string }{
	{"student_roster", "Students with their full name and school, for quick lookups.", `SELECT s.student_id, s.first_name || ' ' || s.last_name AS student_name,
  s.grade_level, s.status, sc.name AS school_name, sc.school_type
FROM students s JOIN schools sc ON sc.school_id = s.school_id`, `SELECT s.student_id, CONCAT(s.first_name, ' ', s.last_name) AS student_name,
  s.grade_level, s.status, sc.name AS school_name, sc.school_type
FROM students s JOIN schools sc ON sc.school_id = s.school_id`},
	{"school_test_averages", "Average Spring Summative scale score per school, subject and year.", `SELECT sc.school_id, sc.name AS school_name, sc.school_type, t.subject,
  substr(t.test_date, 1, 4) AS test_year, COUNT(t.scale_score) AS tests_scored,
  ROUND(AVG(t.scale_score), 1) AS avg_scale_score
FROM test_scores t JOIN schools sc ON sc.school_id = t.school_id
WHERE t.administration = 'Spring Summative'
GROUP BY sc.school_id, t.subject, test_year`, ""},
}

var indexes = []string{
	"CREATE INDEX idx_teachers_school ON teachers(school_id)",
	"CREATE INDEX idx_students_school ON students(school_id)",
	"CREATE INDEX idx_enrollments_course ON enrollments(course_id)",
	"CREATE INDEX idx_enrollments_teacher ON enrollments(teacher_id)",
	"CREATE INDEX idx_test_scores_student ON test_scores(student_id)",
	`CREATE INDEX idx_order_school ON "order"(school_id)`,
}

var plainName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// quote returns name as an SQL identifier, quoted only when it needs to be.
func quote(name string) string {
	if plainName.MatchString(name) && name != "order" && name != "group" {
		return name
	}
	return `"` + strings.ReplaceAll(name, `"`, `""`) + `"`
}

func (t table) createSQL() string {
	var defs []string
	for _, col := range t.cols {
		defs = append(defs, quote(col.name)+" "+col.decl)
	}
	defs = append(defs, t.keys...)
	return "CREATE TABLE " + quote(t.name) + " (\n  " + strings.Join(defs, ",\n  ") + "\n)" + t.options
}

func (t table) insertSQL() string {
	names := make([]string, len(t.cols))
	for i, col := range t.cols {
		names[i] = quote(col.name)
	}
	marks := strings.TrimSuffix(strings.Repeat("?, ", len(t.cols)), ", ")
	return "INSERT INTO " + quote(t.name) + " (" + strings.Join(names, ", ") + ") VALUES (" + marks + ")"
}

// format is the BIRD data_format of a column, from its declared type.
func (col column) format() string {
	typ, _, _ := strings.Cut(col.decl, " ")
	return strings.ToLower(typ)
}
