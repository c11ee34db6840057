package duckdb

import (
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"strconv"
	"strings"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// columnCell converts a value of a column whose DuckDB type is typ: a
// UUID comes from the driver as its 16 bytes, and dates and times as
// time.Time, which would read as a moment in UTC (a DATE as midnight, a
// TIME on the first day of year 1): they are written as the type holds
// them, in lists of them too.
func columnCell(typ string, v any) any {
	if b, ok := v.([]byte); ok && typ == "UUID" && len(b) == 16 {
		var u duckdb.UUID
		copy(u[:], b)
		return u.String()
	}
	if layout, ok := timeLayouts[listElement(typ)]; ok {
		return timeCell(layout, v)
	}
	return cell(v)
}

// timeLayouts are how the date and time types are written: as PostgreSQL's
// cells are, a timestamp without a zone bare and one with a zone in UTC.
var timeLayouts = map[string]string{
	"DATE":         "2006-01-02",
	"TIME":         "15:04:05.999999999",
	"TIME_NS":      "15:04:05.999999999",
	"TIMETZ":       "15:04:05.999999999Z07:00",
	"TIMESTAMP":    "2006-01-02T15:04:05.999999999",
	"TIMESTAMP_S":  "2006-01-02T15:04:05.999999999",
	"TIMESTAMP_MS": "2006-01-02T15:04:05.999999999",
	"TIMESTAMP_NS": "2006-01-02T15:04:05.999999999",
	"TIMESTAMPTZ":  time.RFC3339Nano,
}

// listElement is the type of a list's (or an array's) innermost elements:
// DATE for DATE[] and DATE[3][]; typ itself for any other type.
func listElement(typ string) string {
	for strings.HasSuffix(typ, "]") {
		i := strings.LastIndexByte(typ, '[')
		if i < 0 {
			break
		}
		typ = typ[:i]
	}
	return typ
}

// timeCell writes v, a time.Time or a list of them, with layout.
func timeCell(layout string, v any) any {
	switch v := v.(type) {
	case time.Time:
		if layout == time.RFC3339Nano {
			v = v.UTC()
		}
		return v.Format(layout)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = timeCell(layout, e)
		}
		return out
	}
	return cell(v)
}

// decimal writes a decimal with all of its scale's digits: 12.50 for
// DECIMAL(10,2), as DuckDB shows it.
func decimal(d duckdb.Decimal) string {
	digits := new(big.Int).Abs(d.Value).String()
	sign := ""
	if d.Value.Sign() < 0 {
		sign = "-"
	}
	scale := int(d.Scale)
	if scale == 0 {
		return sign + digits
	}
	if len(digits) <= scale {
		digits = strings.Repeat("0", scale-len(digits)+1) + digits
	}
	return sign + digits[:len(digits)-scale] + "." + digits[len(digits)-scale:]
}

// cell turns a driver value into one of the cells source.Conn.Run
// promises: integers of every size become int64, or json.Number past
// int64; decimals json.Number; UUIDs and intervals text; lists []any;
// structs, maps and unions JSON documents.
func cell(v any) any {
	switch v := v.(type) {
	case nil, bool, int64, float64, string, []byte, time.Time:
		return v
	case int8:
		return int64(v)
	case int16:
		return int64(v)
	case int32:
		return int64(v)
	case int:
		return int64(v)
	case uint8:
		return int64(v)
	case uint16:
		return int64(v)
	case uint32:
		return int64(v)
	case uint64:
		if v > math.MaxInt64 {
			return json.Number(strconv.FormatUint(v, 10))
		}
		return int64(v)
	case float32:
		return float64(v)
	case *big.Int:
		if v.IsInt64() {
			return v.Int64()
		}
		return json.Number(v.String())
	case duckdb.Decimal:
		return json.Number(decimal(v))
	case duckdb.UUID:
		return v.String()
	case *duckdb.UUID:
		return v.String()
	case duckdb.Interval:
		return interval(v)
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = cell(e)
		}
		return out
	case map[string]any, duckdb.Map, duckdb.OrderedMap, duckdb.Union:
		b, err := json.Marshal(jsonValue(v))
		if err != nil {
			return fmt.Sprint(v)
		}
		return json.RawMessage(b)
	}
	return fmt.Sprint(v)
}

// jsonValue makes v marshal as JSON: cells inside, maps with text keys.
func jsonValue(v any) any {
	switch v := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[k] = jsonValue(e)
		}
		return out
	case duckdb.Map:
		out := make(map[string]any, len(v))
		for k, e := range v {
			out[fmt.Sprint(k)] = jsonValue(e)
		}
		return out
	case duckdb.OrderedMap:
		keys, vals := v.Keys(), v.Values()
		out := make(map[string]any, len(keys))
		for i, k := range keys {
			out[fmt.Sprint(k)] = jsonValue(vals[i])
		}
		return out
	case duckdb.Union:
		return map[string]any{v.Tag: jsonValue(v.Value)}
	case []any:
		out := make([]any, len(v))
		for i, e := range v {
			out[i] = jsonValue(e)
		}
		return out
	case float64:
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return strconv.FormatFloat(v, 'g', -1, 64)
		}
		return v
	case time.Time:
		return v.Format(time.RFC3339Nano)
	}
	c := cell(v)
	if raw, ok := c.(json.RawMessage); ok {
		return raw
	}
	if f, ok := c.(float64); ok {
		return jsonValue(f)
	}
	return c
}

// interval writes an interval as DuckDB does: "1 year 2 months 3 days
// 04:05:06".
func interval(v duckdb.Interval) string {
	s := ""
	add := func(n int64, unit string) {
		if n == 0 {
			return
		}
		if s != "" {
			s += " "
		}
		s += strconv.FormatInt(n, 10) + " " + unit
		if n != 1 && n != -1 {
			s += "s"
		}
	}
	add(int64(v.Months/12), "year")
	add(int64(v.Months%12), "month")
	add(int64(v.Days), "day")
	if v.Micros != 0 || s == "" {
		if s != "" {
			s += " "
		}
		m := v.Micros
		sign := ""
		if m < 0 {
			sign, m = "-", -m
		}
		d := time.Duration(m) * time.Microsecond
		h, rest := d/time.Hour, d%time.Hour
		s += fmt.Sprintf("%s%02d:%02d:%02d", sign, h, rest/time.Minute, (rest%time.Minute)/time.Second)
		if us := m % 1e6; us != 0 {
			s += fmt.Sprintf(".%06d", us)
		}
	}
	return s
}
