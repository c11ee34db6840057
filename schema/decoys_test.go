package schema_test

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	_ "github.com/mattn/go-sqlite3"

	"github.com/sqlmcp/sqlmcp/demo"
)

// domains are the business systems the decoy catalog is drawn from, one a
// line: prefix | what the system is | entity/primary key: columns; ...
// Each entity becomes a table <prefix>_<entity>, then copies of it under
// the names warehouses give copies (_history, _staging, stg_, ...), until
// the catalog holds decoyTables tables.
const domains = `
crm | the customer relationship management system | accounts/account_id: account_name industry annual_revenue billing_city account_owner_id tier; contacts/contact_id: account_id first_name last_name email job_title phone; leads/lead_id: lead_source company rating converted_on est_value status; opportunities/opportunity_id: account_id stage amount close_date probability; campaigns/campaign_id: campaign_name channel budget_amt start_date end_date; support_cases/case_id: account_id priority subject opened_at closed_at csat_score status
hr | the human resources system | employees/employee_id: first_name last_name dept_id job_title hire_date salary manager_id employment_type; departments/dept_id: dept_name cost_center location; leave_requests/request_id: employee_id leave_type start_date end_date approved_by status; payroll_runs/run_id: pay_period employee_id gross_pay net_pay tax_withheld; trainings/training_id: course_title provider hours completed_on employee_id; job_postings/posting_id: title dept_id posted_on salary_min salary_max applicant_count
fin | the finance and accounting system | invoices/invoice_id: customer_id invoice_no invoice_date due_date total_amt currency paid_flag; payments/payment_id: invoice_id paid_on amount method; gl_entries/entry_id: account_code debit credit posted_on journal_id; budgets/budget_id: fiscal_year cost_center planned_amt actual_amt; expenses/expense_id: employee_id expense_type amount submitted_on receipt_url status
inv | the inventory and purchasing system | products/product_id: sku product_name category unit_cost list_price reorder_level; warehouses/warehouse_id: warehouse_name city capacity_units; stock_levels/stock_id: product_id warehouse_id qty_on_hand last_counted_at; purchase_orders/po_id: supplier_id order_date expected_on total_cost status; suppliers/supplier_id: supplier_name country lead_time_days rating
ecom | the online store | customers/customer_id: email signup_date country loyalty_tier first_name last_name; orders/order_id: customer_id order_date order_total ship_country status; order_items/item_id: order_id product_id qty unit_price discount_pct; product_reviews/review_id: product_id customer_id stars review_text reviewed_at; carts/cart_id: customer_id created_at abandoned_flag
health | the clinic's patient system | patients/patient_id: mrn date_of_birth sex primary_provider_id insurance_plan city; appointments/appointment_id: patient_id provider_id appt_date visit_type no_show status; providers/provider_id: provider_name specialty clinic_id npi; prescriptions/prescription_id: patient_id drug_name dosage_mg prescribed_on refills; lab_results/result_id: patient_id test_code result_value units collected_at
log | the logistics platform | shipments/shipment_id: carrier_id origin_city dest_city ship_date delivered_at weight_kg freight_cost status; carriers/carrier_id: carrier_name scac_code mode; vehicles/vehicle_id: plate_no vehicle_type capacity_kg depot_id; routes/route_id: route_code distance_km stops
it | the IT service desk | tickets/ticket_id: requester_id category priority opened_at resolved_at assignee_id sla_breached status; assets/asset_id: asset_tag asset_type serial_no purchase_date assigned_to; incidents/incident_id: severity service_name started_at duration_min root_cause; user_accounts/user_id: username department last_login_at mfa_enabled
lib | the public library system | books/book_id: isbn title author publisher pub_year genre; loans/loan_id: book_id member_id loaned_on due_on returned_on fine_amt; members/member_id: member_name joined_on membership_type branch_id; branches/branch_id: branch_name city opening_hours
event | the event ticketing system | venues/venue_id: venue_name city seating_capacity; events/event_id: event_name venue_id event_date ticket_price category; bookings/booking_id: event_id customer_id seats booked_at status; attendees/attendee_id: event_id full_name checked_in
prop | the property management system | buildings/building_id: building_name address city floors year_built; units/unit_id: building_id unit_no bedrooms sq_ft monthly_rent; leases/lease_id: unit_id tenant_id lease_start lease_end deposit_amt; maintenance_requests/request_id: unit_id issue_type reported_at resolved_at cost status
sport | the sports league database | teams/team_id: team_name city league founded_year; players/player_id: team_id player_name position birth_date jersey_no; matches/match_id: home_team_id away_team_id match_date home_goals away_goals attendance_count; player_stats/stat_id: player_id match_id goals assists minutes_played
energy | the utility's metering system | meters/meter_id: meter_no site_id meter_type installed_on; meter_readings/reading_id: meter_id read_at kwh reading_type; sites/site_id: site_name region tariff_code; outages/outage_id: site_id started_at restored_at cause
mkt | the marketing platform | email_campaigns/campaign_id: campaign_name sent_at recipients open_rate click_rate; ad_spend/spend_id: channel spend_date spend_amt impressions clicks; web_sessions/session_id: visitor_id session_start landing_page bounce_flag device_type; newsletter_subscribers/subscriber_id: email subscribed_on unsubscribed_on source
travel | the corporate travel system | flights/flight_id: flight_no origin_airport dest_airport depart_at arrive_at airline_code; hotel_bookings/booking_id: guest_name hotel_name check_in check_out nightly_rate; travel_requests/request_id: employee_id destination purpose est_cost approved_flag status
agri | the farm management system | fields/field_id: field_name farm_id hectares soil_type; harvests/harvest_id: field_id crop harvest_date yield_tonnes; farms/farm_id: farm_name region owner_name; weather_obs/obs_id: station_id obs_date rainfall_mm max_temp_c
lms | the corporate learning management system | learners/learner_id: learner_name email org_unit enrolled_on; courses/course_id: course_name course_hours category published_on; course_enrollments/enrollment_id: learner_id course_id enrolled_at completion_pct completed_on status; quiz_attempts/attempt_id: learner_id quiz_id score attempted_at
gov | the city permits office | permits/permit_id: permit_no permit_type applicant_name issued_on expires_on fee_amt status; inspections/inspection_id: permit_id inspector_name inspected_on result; parcels/parcel_id: parcel_no zoning land_value owner_name
`

// copyNames are how a warehouse names the copies of a table.
var copyNames = []string{"%s_history", "%s_archive", "stg_%s", "%s_snapshot", "%s_backup", "%s_2022", "%s_2023",
	"%s_daily", "%s_monthly", "%s_audit", "raw_%s", "%s_clean", "%s_v2", "%s_old", "tmp_%s", "%s_import",
	"%s_export", "%s_summary", "eu_%s", "us_%s", "apac_%s", "%s_test", "dim_%s", "%s_2021", "%s_sync", "%s_mirror"}

// copyExtras are the columns a copy may gain.
var copyExtras = []string{"loaded_at", "batch_id", "source_system", "region", "is_deleted", "row_hash", "valid_from", "valid_to"}

// attributeNotes describe the columns whose meaning a name alone leaves
// open; other columns are described from their name.
var attributeNotes = map[string]string{
	"tier": "Service tier; Gold, Silver or Bronze.", "csat_score": "Customer satisfaction survey score, 1 to 5.",
	"est_value": "Estimated deal value in US dollars.", "stage": "Sales pipeline stage.",
	"probability": "Estimated chance of winning, 0 to 1.", "mrn": "Medical record number.",
	"npi": "National Provider Identifier.", "no_show": "1 when the patient missed the appointment.",
	"sla_breached": "1 when the ticket was resolved after its service-level deadline.",
	"mfa_enabled":  "1 when multi-factor authentication is on.", "paid_flag": "1 once the invoice is fully paid.",
	"abandoned_flag": "1 when the cart was left without checkout.", "bounce_flag": "1 when the visitor left after one page.",
	"fine_amt": "Late fine charged, in dollars.", "scac_code": "Standard Carrier Alpha Code.",
	"kwh": "Energy used since the last reading, in kilowatt hours.", "open_rate": "Share of recipients who opened the email, 0 to 1.",
	"completion_pct": "Share of the course completed, 0 to 100.", "qty_on_hand": "Units in stock at the last count.",
	"reorder_level": "Stock level at which the product is reordered.", "cost_center": "Budget owner code.",
}

// valuePools are the values a text column of a decoy holds, chosen by a
// word of its name.
var valuePools = map[string][]string{
	"status":   {"active", "pending", "approved", "closed", "cancelled", "open", "completed", "shipped", "received", "rejected"},
	"city":     {"Chicago", "Denver", "Austin", "Riverbend", "Cedar Falls", "Portland", "Boston", "Fairview", "Phoenix", "Atlanta"},
	"country":  {"Germany", "France", "United States", "Canada", "Mexico", "Japan", "Spain", "Brazil"},
	"category": {"Technology", "Office Supplies", "Furniture", "Leadership", "Compliance", "Hardware", "Software", "Network", "Books"},
	"type":     {"Full-time", "Part-time", "Contract", "Sick", "Vacation", "Smart", "Analog", "Building", "Electrical", "Standard"},
	"priority": {"High", "Medium", "Low", "Critical"},
	"industry": {"Software", "Retail", "Manufacturing", "Healthcare", "Education", "Finance"},
	"stage":    {"Prospecting", "Qualification", "Proposal", "Negotiation", "Closed Won", "Closed Lost"},
	"method":   {"Credit Card", "Wire", "Check", "ACH"},
	"subject":  {"Math", "Science", "Login issue", "Billing question", "Refund", "Outage"},
	"name":     {"Smith", "Garcia", "Lincoln", "Washington", "Roosevelt", "Apex", "Summit", "Harbor", "Meadowbrook", "Valley"},
	"region":   {"North", "South", "East", "West", "EMEA", "APAC"},
	"crop":     {"Wheat", "Corn", "Barley", "Soybeans"},
	"author":   {"Toni Morrison", "Jane Austen", "Octavia Butler", "Mark Twain"},
	"language": {"English", "Spanish", "French"},
	"position": {"Forward", "Midfielder", "Defender", "Goalkeeper"},
	"level":    {"Beginner", "Intermediate", "Advanced"},
}

const decoyTables = 2000

type decoyColumn struct{ name, decl, desc string }

type decoyTable struct {
	name, about string
	cols        []decoyColumn
}

// decoyType is a column's type, read from its name the way a designer
// would have chosen it.
func decoyType(name string) string {
	has := func(suffixes ...string) bool {
		for _, s := range suffixes {
			if strings.HasSuffix(name, s) || name == strings.TrimPrefix(s, "_") {
				return true
			}
		}
		return false
	}
	switch {
	case strings.HasPrefix(name, "is_") || has("_flag", "_enabled", "_breached", "no_show", "checked_in"):
		return "INTEGER"
	case has("_id", "_count", "_qty", "qty", "_days", "_year", "year_built", "_no", "floors", "bedrooms", "stars", "refills",
		"seats", "stops", "recipients", "impressions", "clicks", "goals", "assists", "_played", "_goals", "hours", "_min", "_units", "_level", "score"):
		if strings.HasSuffix(name, "_no") && name != "jersey_no" {
			return "TEXT"
		}
		return "INTEGER"
	case has("_at", "_date", "_on", "date_of_birth", "check_in", "check_out", "lease_start", "lease_end", "session_start", "_period"):
		return "TEXT"
	case has("_amt", "amount", "_cost", "cost", "salary", "_pay", "_price", "_rent", "_value", "revenue", "_rate", "_pct",
		"probability", "debit", "credit", "withheld", "_kg", "_km", "_mg", "kwh", "hectares", "_tonnes", "_mm", "_c", "sq_ft", "_total", "rating"):
		return "REAL"
	}
	return "TEXT"
}

// decoySchema lays out the decoy catalog's tables, the same every run.
func decoySchema() []decoyTable {
	rng := rand.New(rand.NewPCG(14, 2000))
	var bases []decoyTable
	for _, line := range strings.Split(strings.TrimSpace(domains), "\n") {
		parts := strings.Split(line, "|")
		prefix, system := strings.TrimSpace(parts[0]), strings.TrimSpace(parts[1])
		for _, ent := range strings.Split(parts[2], ";") {
			head, cols, _ := strings.Cut(ent, ":")
			entity, pk, _ := strings.Cut(strings.TrimSpace(head), "/")
			words := strings.ReplaceAll(entity, "_", " ")
			t := decoyTable{name: prefix + "_" + entity}
			if rng.IntN(4) > 0 {
				t.about = fmt.Sprintf("%s%s recorded in %s.", strings.ToUpper(words[:1]), words[1:], system)
			}
			t.cols = append(t.cols, decoyColumn{pk, "INTEGER PRIMARY KEY", "Identifier of the row."})
			for _, c := range strings.Fields(cols) {
				desc := attributeNotes[c]
				if desc == "" && rng.IntN(5) < 3 {
					desc = fmt.Sprintf("%s%s of the %s.", strings.ToUpper(c[:1]), strings.ReplaceAll(c[1:], "_", " "), strings.TrimSuffix(words, "s"))
				}
				if t.about == "" {
					desc = ""
				}
				t.cols = append(t.cols, decoyColumn{c, decoyType(c), desc})
			}
			if !strings.Contains(" "+cols+" ", " created_at ") {
				t.cols = append(t.cols, decoyColumn{"created_at", "TEXT", ""})
			}
			bases = append(bases, t)
		}
	}
	tables := append([]decoyTable(nil), bases...)
	seen := map[string]bool{}
	for _, t := range tables {
		seen[t.name] = true
	}
	for len(tables) < decoyTables {
		b := bases[rng.IntN(len(bases))]
		name := fmt.Sprintf(copyNames[rng.IntN(len(copyNames))], b.name)
		if seen[name] {
			continue
		}
		seen[name] = true
		t := decoyTable{name: name}
		if rng.IntN(3) == 0 {
			t.about = b.about
		}
		for i, c := range b.cols {
			if i > 0 && rng.IntN(6) == 0 {
				continue // a copy leaves some columns out
			}
			if t.about == "" {
				c.desc = ""
			}
			t.cols = append(t.cols, c)
		}
		for range rng.IntN(3) {
			x := copyExtras[rng.IntN(len(copyExtras))]
			if !slices.ContainsFunc(t.cols, func(c decoyColumn) bool { return c.name == x }) {
				t.cols = append(t.cols, decoyColumn{x, decoyType(x), ""})
			}
		}
		tables = append(tables, t)
	}
	return tables
}

// decoyValue is a value for column c of row i.
func decoyValue(rng *rand.Rand, c decoyColumn, i int) any {
	switch {
	case strings.HasPrefix(c.decl, "INTEGER PRIMARY"):
		return i + 1
	case c.decl == "INTEGER":
		return rng.IntN(100)
	case c.decl == "REAL":
		return float64(rng.IntN(100000)) / 100
	case strings.HasSuffix(c.name, "_at") || strings.HasSuffix(c.name, "_on") || strings.HasSuffix(c.name, "date"):
		return fmt.Sprintf("20%02d-%02d-%02d", 19+rng.IntN(7), 1+rng.IntN(12), 1+rng.IntN(28))
	}
	for _, w := range strings.Split(c.name, "_") {
		if pool := valuePools[strings.TrimSuffix(w, "s")]; pool != nil {
			return pool[rng.IntN(len(pool))]
		}
	}
	return fmt.Sprintf("%s-%04d", strings.ToUpper(c.name[:min(3, len(c.name))]), rng.IntN(10000))
}

// buildDecoys writes the demo database merged into the decoy catalog at
// path, with its annotations (the demo's and the decoys' descriptions)
// beside it, and returns the annotations file's path.
func buildDecoys(t testing.TB, path string) string {
	t.Helper()
	if err := demo.Build(path); err != nil {
		t.Fatal(err)
	}
	dir := filepath.Dir(path)
	raw, err := os.ReadFile(filepath.Join(dir, "annotations.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ann struct {
		Tables map[string]map[string]any `json:"tables"`
	}
	if err := json.Unmarshal(raw, &ann); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("sqlite3", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(14, 14))
	for _, dt := range decoySchema() {
		var defs, names, marks []string
		cols := map[string]string{}
		for _, c := range dt.cols {
			defs = append(defs, c.name+" "+c.decl)
			names = append(names, c.name)
			marks = append(marks, "?")
			if c.desc != "" {
				cols[c.name] = c.desc
			}
		}
		if _, err := tx.Exec(fmt.Sprintf("CREATE TABLE %s (%s)", dt.name, strings.Join(defs, ", "))); err != nil {
			t.Fatal(err)
		}
		ins := fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", dt.name, strings.Join(names, ", "), strings.Join(marks, ", "))
		for i := range 6 {
			args := make([]any, len(dt.cols))
			for j, c := range dt.cols {
				args[j] = decoyValue(rng, c, i)
			}
			if _, err := tx.Exec(ins, args...); err != nil {
				t.Fatal(err)
			}
		}
		entry := map[string]any{}
		if dt.about != "" {
			entry["description"] = dt.about
		}
		if len(cols) > 0 {
			entry["columns"] = cols
		}
		if len(entry) > 0 {
			ann.Tables[dt.name] = entry
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(ann)
	if err != nil {
		t.Fatal(err)
	}
	annPath := filepath.Join(dir, "annotations.json")
	if err := os.WriteFile(annPath, out, 0o644); err != nil {
		t.Fatal(err)
	}
	return annPath
}
