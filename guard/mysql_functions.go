//go:build !nomysql

package guard

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
)

// MySQLCatalog tells the MySQL guard what the text alone cannot: which
// server will run it, and which function names the database itself
// defines. source implements it from the server's version,
// information_schema.ROUTINES and mysql.func; tests use a map. A nil
// MySQLCatalog means a MySQL server whose database defines no functions.
type MySQLCatalog interface {
	// MariaDB reports whether the server is MariaDB rather than MySQL.
	MariaDB() bool
	// UserFunction reports whether a call of name (lower case) could
	// reach a function the database defines rather than one built in: a
	// stored function of the current database, or a loadable function
	// (UDF) installed on the server.
	UserFunction(name string) bool
}

// The servers a built-in function exists on.
const (
	onBoth    = 'b'
	onMariaDB = 'm'
	onMySQL   = 'y'
)

// mysqlBuiltins are the functions a query may call, by what they are:
// built into the server, computing a value from their arguments and the
// session without writing, waiting, locking or reading files. Each was read
// for that, and the MariaDB ones checked against MariaDB 10.11's own list
// (source's tests prepare a call of each). An unqualified call resolves to
// the built-in function first, then to a loadable function, then to a
// stored function of the current database, so a name is allowed only when
// the server has it built in and the database defines no function of that
// name. Grammar-made names (the parser's names for CHAR(... USING),
// INSERT(...), DEFAULT(...), MEMBER OF) are listed as the parser spells
// them.
var mysqlBuiltins = func() map[string]byte {
	m := map[string]byte{}
	add := func(on byte, names string) {
		for _, n := range strings.Fields(names) {
			m[n] = on
		}
	}
	// Numbers.
	add(onBoth, `abs acos asin atan atan2 ceil ceiling conv cos cot crc32 degrees exp floor ln log log2
		log10 mod pi pow power radians rand round sign sin sqrt tan truncate format oct bin hex unhex`)
	add(onMariaDB, `crc32c`)
	// Dates and times.
	add(onBoth, `adddate addtime convert_tz curdate current_date current_time current_timestamp curtime
		date date_add date_format date_sub datediff day dayname dayofmonth dayofweek dayofyear extract
		from_days from_unixtime get_format hour last_day localtime localtimestamp makedate maketime
		microsecond minute month monthname now period_add period_diff quarter sec_to_time second
		str_to_date subdate subtime sysdate time time_format time_to_sec timediff timestamp timestampadd
		timestampdiff to_days to_seconds unix_timestamp utc_date utc_time utc_timestamp week weekday
		weekofyear year yearweek`)
	add(onMariaDB, `add_months`)
	// Strings.
	add(onBoth, `ascii bit_length char char_func char_length character_length concat concat_ws elt
		export_set field find_in_set from_base64 insert insert_func instr lcase left length locate lower
		lpad ltrim make_set mid octet_length ord position quote repeat replace reverse right rpad rtrim
		soundex space strcmp substr substring substring_index to_base64 trim ucase upper weight_string
		regexp_replace regexp_substr regexp_instr`)
	add(onMariaDB, `chr lengthb to_char natural_sort_key sformat decode_histogram`)
	add(onMySQL, `regexp_like format_bytes format_pico_time`)
	// Comparison and control.
	add(onBoth, `coalesce greatest least interval if ifnull isnull nullif convert`)
	add(onMariaDB, `nvl nvl2`)
	// The session and the server.
	add(onBoth, `charset coercibility collation connection_id current_user current_role database
		found_rows row_count schema session_user system_user user version default name_const
		last_insert_id`)
	add(onMariaDB, `last_value rownum sys_guid`)
	add(onMySQL, `icu_version roles_graphml ps_current_thread_id ps_thread_id`)
	// Addresses, identifiers, hashes and encryption of values.
	add(onBoth, `inet_aton inet_ntoa inet6_aton inet6_ntoa is_ipv4 is_ipv4_compat is_ipv4_mapped
		is_ipv6 uuid random_bytes aes_decrypt aes_encrypt compress decode encode md5 password sha
		sha1 sha2 uncompress uncompressed_length`)
	add(onMariaDB, `des_decrypt des_encrypt old_password`)
	add(onMySQL, `any_value bin_to_uuid uuid_to_bin is_uuid grouping statement_digest
		statement_digest_text validate_password_strength`)
	// JSON.
	add(onBoth, `json_array json_array_append json_array_insert json_arrayagg json_contains
		json_contains_path json_depth json_extract json_insert json_keys json_length json_merge
		json_merge_patch json_merge_preserve json_object json_objectagg json_overlaps json_quote
		json_remove json_replace json_search json_set json_type json_unquote json_valid json_value
		json_pretty`)
	add(onMariaDB, `json_compact json_detailed json_equals json_exists json_loose json_normalize json_query`)
	add(onMySQL, `json_storage_size json_storage_free json_schema_valid`)
	// Aggregates and windows.
	add(onBoth, `avg bit_and bit_or bit_xor count group_concat max min std stddev stddev_pop
		stddev_samp sum var_pop var_samp variance cume_dist dense_rank first_value lag lead
		nth_value ntile percent_rank rank row_number`)
	add(onMariaDB, `median percentile_cont percentile_disc`)
	// MariaDB's dynamic columns.
	add(onMariaDB, `column_create column_get column_add column_delete column_exists column_list
		column_check column_json`)
	// Geometry.
	add(onBoth, `st_area st_asbinary st_astext st_aswkb st_aswkt st_boundary st_buffer st_centroid
		st_contains st_convexhull st_crosses st_difference st_dimension st_disjoint st_distance
		st_endpoint st_envelope st_equals st_exteriorring st_geomcollfromtext st_geomcollfromwkb
		st_geometrycollectionfromtext st_geometrycollectionfromwkb st_geometryfromtext
		st_geometryfromwkb st_geometryn st_geometrytype st_geomfromtext st_geomfromwkb
		st_interiorringn st_intersection st_intersects st_isclosed st_isempty st_isring st_issimple
		st_length st_linefromtext st_linefromwkb st_linestringfromtext st_linestringfromwkb
		st_mlinefromtext st_mlinefromwkb st_mpointfromtext st_mpointfromwkb st_mpolyfromtext
		st_mpolyfromwkb st_numgeometries st_numinteriorrings st_numpoints st_overlaps
		st_pointfromtext st_pointfromwkb st_pointn st_polyfromtext st_polyfromwkb
		st_polygonfromtext st_polygonfromwkb st_relate st_srid st_startpoint st_symdifference
		st_touches st_union st_within st_x st_y st_distance_sphere st_asgeojson st_geomfromgeojson
		point linestring polygon multipoint multilinestring multipolygon geometrycollection
		mbrcontains mbrdisjoint mbrequals mbrintersects mbroverlaps mbrtouches mbrwithin`)
	add(onMariaDB, `mbrequal area asbinary astext aswkb aswkt boundary buffer centroid contains
		convexhull crosses dimension disjoint endpoint envelope equals exteriorring geomcollfromtext
		geometryn geometrytype geomfromtext geomfromwkb glength interiorringn intersects isclosed
		isempty isring issimple numgeometries numinteriorrings numpoints overlaps pointn srid
		startpoint touches within x y`)
	add(onMySQL, `st_geohash st_latfromgeohash st_longfromgeohash st_pointfromgeohash st_isvalid
		st_validate st_simplify st_collect mbrcoveredby mbrcovers`)
	for n := range mysqlGrammarMade {
		m[n] = onBoth
	}
	m["json_memberof"] = onMySQL // MEMBER OF
	return m
}()

// mysqlGrammarMade are the parser's own names for calls the grammar makes
// (CHAR(... USING), INSERT(...), DEFAULT(...), DATE '...' and the other
// typed literals, MEMBER OF): allowed when the grammar made them, refused
// when typed as a call.
var mysqlGrammarMade = map[string]bool{
	"char_func": true, "insert_func": true, "default_func": true, "json_memberof": true,
	ast.DateLiteral: true, ast.TimeLiteral: true, ast.TimestampLiteral: true,
}

// MySQLBuiltins returns the names of the built-in functions the MySQL
// guard allows on MariaDB (mariaDB true) or on MySQL, lower case, in no
// order; the parser's own spellings of grammar-made calls are left out.
func MySQLBuiltins(mariaDB bool) []string {
	var out []string
	for n, on := range mysqlBuiltins {
		if mysqlGrammarMade[n] {
			continue
		}
		if on == onBoth || mariaDB && on == onMariaDB || !mariaDB && on == onMySQL {
			out = append(out, n)
		}
	}
	return out
}

// mysqlDenied are built-in functions a query may not call, whatever the
// list above says, with the reason to give.
//
// The geometry functions MariaDB computes with its Gcalc library take time
// that grows with the square of the points (or faster): two lines of 8,000
// points take seconds, and a WKT string of megabytes holds hundreds of
// thousands. The set operations, distances and simplicity checks never
// look at the kill flag: under max_statement_time = 1, ST_Intersection of
// two 12,000 point lines returned after 6.4 s, ST_Distance of two 6,000
// point lines after 4.5 s, ST_IsSimple after 7.5 s, ST_Distance_Sphere of
// two 8,000 point sets after 4.1 s. Each is refused with its MariaDB
// spelling too; on MySQL, not measured, the same names are refused, since
// they do the same work (Boost.Geometry's, with no point at which to
// stop), and so are its validity checks. The predicates (ST_Contains,
// ST_Intersects, ...) and ST_Buffer look at the kill flag: on shapes read
// from a table or a view, as a query reads them, they end at the limit
// with its error. (On shapes held in user variables, which no query here
// can set, they answered at the limit as if they had finished.) source's
// tests call every geometry function the guard allows on such shapes
// under a limit of a second.
var mysqlDenied = func() map[string]string {
	m := map[string]string{
		"sleep":                             "SLEEP() only waits and holds a connection",
		"benchmark":                         "BENCHMARK() runs an expression many times to burn time",
		"encrypt":                           "ENCRYPT() runs the system's crypt(), whose cost the salt chooses ($6$rounds=...) and which the server cannot interrupt; use SHA2() or MD5() to hash a value",
		"get_lock":                          lockHint,
		"release_lock":                      lockHint,
		"release_all_locks":                 lockHint,
		"is_free_lock":                      lockHint,
		"is_used_lock":                      lockHint,
		"load_file":                         "LOAD_FILE() reads files on the database server",
		"uuid_short":                        "UUID_SHORT() advances a server-wide counter; UUID() makes an identifier without one",
		"nextval":                           "sequences advance when read with NEXT VALUE FOR or NEXTVAL(); read a sequence's state with SELECT * FROM the sequence",
		"setval":                            "SETVAL() changes a sequence",
		"master_pos_wait":                   replicationHint,
		"master_gtid_wait":                  replicationHint,
		"source_pos_wait":                   replicationHint,
		"wait_for_executed_gtid_set":        replicationHint,
		"wait_until_sql_thread_after_gtids": replicationHint,
		"setvar":                            "assigning user variables is not allowed",
	}
	outlive := "takes time growing with the square of the points, and the server does not stop it at the time limit or on KILL"
	instead := "; compare bounding rectangles with MBRIntersects(), MBRContains(), MBRWithin() or ST_Envelope() instead, exact when the shapes are rectangles or points"
	for _, n := range strings.Fields(`st_union st_intersection st_difference st_symdifference st_issimple
		issimple st_isring isring st_isvalid st_validate`) {
		m[n] = strings.ToUpper(n) + "() " + outlive + instead
	}
	points := "; between two points, compute it from ST_X() and ST_Y(): SQRT(POW(ST_X(a) - ST_X(b), 2) + POW(ST_Y(a) - ST_Y(b), 2)), or the haversine formula for longitudes and latitudes"
	m["st_distance"] = "ST_DISTANCE() " + outlive + points
	m["st_distance_sphere"] = "ST_DISTANCE_SPHERE() " + outlive + points
	return m
}()

// mariaDBDenied are built-in functions a query may not call on MariaDB,
// with the reason to give. They do work that no bound reaches:
//
//   - the regular expressions (REGEXP and RLIKE, which are operators, and
//     the REGEXP_ functions) match with PCRE, which backtracks in time
//     exponential in the pattern and is given no limit the server's kill
//     flag or time limit reaches: (a|a)(a|a)... twelve times, then b|c,
//     on 20,000 characters answered after 11.5 s, and twenty times on
//     1,000 characters ran for minutes, under max_statement_time = 1,
//     KILL marking it Killed and nothing more. On MySQL, ICU's matcher
//     stops at regexp_time_limit, and they stay allowed there.
//   - JSON_OBJECTAGG is not held to group_concat_max_len, as
//     GROUP_CONCAT and JSON_ARRAYAGG are: on MariaDB 10.11 it built a
//     100 MB object in the server's memory in 3.5 s (and 260 MB before a
//     15 s limit stopped it) where the others stop at 1 MiB.
//   - Most functions that build a string hold it to max_allowed_packet
//     and return NULL past it (CONCAT, REPEAT, LPAD, INSERT, JSON_ARRAY,
//     JSON_OBJECT, SFORMAT, TO_CHAR, ...); these do not, and their result
//     can outgrow their arguments without bound, in the server's memory,
//     before any row is sent: nested, each of JSON_SET, JSON_INSERT,
//     JSON_REPLACE, JSON_ARRAY_APPEND, JSON_ARRAY_INSERT, the JSON_MERGEs,
//     MAKE_SET, COLUMN_CREATE and COLUMN_ADD can double what it is given
//     (JSON_MERGE_PRESERVE(x, x) of 9 MB values made 18 MB), and
//     JSON_QUOTE up to six times it (five nested JSON_QUOTEs made 32 MB
//     of 1 MB); JSON_DETAILED and JSON_PRETTY indent every value as deep
//     as it sits (20 KB nested 30 deep became 1.2 MB), and JSON_SEARCH
//     writes a path for every match (8 MB of matches made 27 MB of
//     paths). JSON_EXTRACT with several paths returns each match, so
//     its result is its document times the paths, and with a ** path
//     each value once for every level above it: it is refused with more
//     than one path, a ** path, or a path not written as a literal (see
//     mariaDBJSONExtract). What stays grows by a factor
//     its arguments cannot choose: DATE_FORMAT and TIME_FORMAT (a month
//     name for %M, 4.5 times the format at most), CONVERT to UTF-32 (4
//     times), COLUMN_JSON (the document a dynamic column holds).
var mariaDBDenied = func() map[string]string {
	m := map[string]string{
		"json_objectagg": "JSON_OBJECTAGG() is not bounded by group_concat_max_len on MariaDB and can fill the server's memory; " +
			"aggregate with JSON_ARRAYAGG(JSON_OBJECT(key, value)) or GROUP_CONCAT(), which are",
	}
	for _, n := range []string{"regexp_replace", "regexp_substr", "regexp_instr"} {
		m[n] = strings.ToUpper(n) + "() " + regexpReason + "; " + regexpInstead
	}
	for _, n := range strings.Fields(`json_set json_insert json_replace json_array_append json_array_insert
		json_merge json_merge_preserve json_merge_patch make_set column_create column_add json_quote`) {
		m[n] = strings.ToUpper(n) + "() " + growsReason + "; read values with JSON_EXTRACT(), JSON_VALUE() or COLUMN_GET(), " +
			"and build small documents with JSON_OBJECT() and JSON_ARRAY(), which are held to it"
	}
	for _, n := range []string{"json_detailed", "json_pretty", "json_search"} {
		m[n] = strings.ToUpper(n) + "() " + growsReason + "; read the document as it is, or test for a value with " +
			"JSON_CONTAINS(), JSON_EXTRACT() or JSON_VALUE()"
	}
	return m
}()

const growsReason = "builds a result MariaDB does not hold to max_allowed_packet, which can outgrow its arguments many times over in the server's memory"

const (
	regexpReason  = "matches with PCRE, whose backtracking can take time exponential in the pattern, and MariaDB does not stop it at the time limit or on KILL"
	regexpInstead = "match with LIKE ('%text%', '_' for one character), or take parts apart with SUBSTRING_INDEX(), LEFT(), SUBSTRING() and LOCATE()"
)

const (
	lockHint        = "named locks (GET_LOCK and its family) outlive the query and are not allowed"
	replicationHint = "functions that wait for replication only wait and hold a connection"
)
