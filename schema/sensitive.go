package schema

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/sqlmcp/sqlmcp/internal/text"
)

// Sensitive is a column that looks like personal or secret data, by its
// name or by the shape of its values.
type Sensitive struct {
	Table  string // as the schema tools name it
	Column string
	// Secret is set for what no one needs to read (passwords, tokens,
	// keys): a policy denies it. Otherwise the column is personal data
	// (e-mail addresses, phone numbers, salaries), which a policy masks
	// with a keyed hash, so equal values stay equal.
	Secret bool
	// Why says what gave it away, without its values: "the name says
	// e-mail", "9 of 10 sampled values look like card numbers".
	Why string
}

// Suggestion is what SuggestPolicy found.
type Suggestion struct {
	Columns []Sensitive // by table, then column order
	// Unsampled counts the text columns whose values were not sampled
	// (time ran out, or the table could not be read): judged by name only.
	Unsampled int
}

// suggestTime bounds the value sampling of SuggestPolicy; sampleSize is
// how many values of a column it looks at.
const (
	suggestTime = 10 * time.Second
	sampleSize  = 20
)

// SuggestPolicy lists the columns of the tables (not views: a policy
// decides a view by what it reads) that look like personal or secret
// data: by the words of their names (email, phone, ssn, password, token,
// salary, birth date and the like, matched as whole words at the end of
// the name, so tokens_used and email_verified are not), and, for text
// columns their names leave unjudged, by the shape of a few sampled
// values (e-mail addresses, card numbers passing the Luhn check, IBANs,
// phone numbers, long random tokens). Values are read through the same
// guarded, bounded sampling as the sample_values tool, within a few
// seconds in all; none is kept or returned. It returns the error that
// stopped it reading the catalog.
func (c *Catalog) SuggestPolicy(ctx context.Context) (*Suggestion, error) {
	tables, err := c.Tables(ctx)
	if err != nil {
		return nil, err
	}
	sctx, cancel := context.WithTimeout(ctx, suggestTime)
	defer cancel()
	s := &Suggestion{}
	for _, t := range tables {
		if t.Kind == "view" {
			continue
		}
		for _, col := range t.Columns {
			if col.Masked != "" {
				continue // the policy already holds it back (denied columns are not listed at all)
			}
			if k, ok := byName(col.Name, col.Type); ok {
				s.Columns = append(s.Columns, Sensitive{Table: t.Name, Column: col.Name, Secret: k.secret, Why: "the name says " + k.label})
				continue
			}
			if !textLike(col.Type) {
				continue
			}
			if t.Broken != "" || t.Unreadable != "" || sctx.Err() != nil {
				s.Unsampled++
				continue
			}
			values, err := c.db.Sample(sctx, t.Ref(), col.Name, sampleSize)
			if err != nil {
				s.Unsampled++
				continue
			}
			if sh, n, ok := byValues(values); ok {
				s.Columns = append(s.Columns, Sensitive{Table: t.Name, Column: col.Name, Secret: sh.secret,
					Why: fmt.Sprintf("%d of %d sampled values look like %s", n, len(values), sh.label)})
			}
		}
	}
	return s, nil
}

// Policy is the suggestion as a policy block in the configuration's
// YAML, ready to paste into a source's block (or to give to --policy): a
// deny_columns entry per secret, a mask_columns entry (hash) per personal
// column, each with a comment saying why. It is "" when nothing was found.
func (s *Suggestion) Policy() string {
	if len(s.Columns) == 0 {
		return ""
	}
	var deny, mask []string
	for _, c := range s.Columns {
		name := yamlKey(c.Table + "." + c.Column)
		if c.Secret {
			deny = append(deny, fmt.Sprintf("    - %s # a secret: %s\n", name, c.Why))
		} else {
			mask = append(mask, fmt.Sprintf("    %s: hash # personal: %s\n", name, c.Why))
		}
	}
	var b strings.Builder
	b.WriteString("policy:\n")
	if len(deny) > 0 {
		b.WriteString("  deny_columns:\n" + strings.Join(deny, ""))
	}
	if len(mask) > 0 {
		b.WriteString("  mask_columns:\n" + strings.Join(mask, ""))
	}
	return b.String()
}

var plainKey = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.$]*$`)

// yamlKey writes a table.column name as YAML reads it back: bare when it
// can be, double-quoted otherwise.
func yamlKey(s string) string {
	if plainKey.MatchString(s) {
		return s
	}
	return strconv.Quote(s)
}

// nameKind is a kind of sensitive column, known by the words its name
// ends with.
type nameKind struct {
	label  string
	secret bool
	// text: the kind is written as text (an e-mail address, a password):
	// a column of numbers, dates or booleans with such a name counts or
	// flags it (max_tokens, email_verified) and is not one.
	text  bool
	names [][]string // word sequences, each ending a name
}

// nameKinds are the kinds, the longer word sequences first where they
// overlap: email_address is an e-mail address, not a postal one.
var nameKinds = []nameKind{
	{"e-mail", false, true, [][]string{{"email", "address"}, {"e", "mail"}, {"email"}, {"emailaddress"}, {"mail", "address"}, {"mail"}}},
	{"IP address", false, true, [][]string{{"ip", "address"}, {"ip", "addr"}, {"ipaddress"}, {"ipaddr"}, {"ip"}, {"remote", "addr"}}},
	{"phone number", false, false, [][]string{{"phone", "number"}, {"phone", "no"}, {"phone"}, {"phonenumber"}, {"telephone"}, {"mobile", "number"}, {"mobile"}, {"cell", "phone"}, {"tel"}, {"fax"}}},
	{"social security number", false, false, [][]string{{"social", "security", "number"}, {"social", "security", "no"}, {"social", "security"}, {"ssn"}, {"national", "insurance", "number"}}},
	{"card number", false, false, [][]string{{"credit", "card", "number"}, {"card", "number"}, {"card", "no"}, {"card", "num"}, {"cardnumber"}, {"credit", "card"}, {"creditcard"}, {"cc", "number"}, {"cc", "num"}}},
	{"card security code", true, false, [][]string{{"cvv"}, {"cvc"}, {"cvv", "2"}, {"card", "security", "code"}}},
	{"IBAN", false, true, [][]string{{"iban"}, {"bank", "account", "number"}, {"bank", "account"}}},
	{"salary", false, false, [][]string{{"salary"}, {"wage"}, {"compensation"}}},
	{"birth date", false, false, [][]string{{"date", "of", "birth"}, {"birth", "date"}, {"birthdate"}, {"birthday"}, {"dob"}, {"birth", "day"}}},
	{"address", false, true, [][]string{{"street", "address"}, {"postal", "address"}, {"home", "address"}, {"address"}, {"street"}}},
	{"person's name", false, true, [][]string{{"first", "name"}, {"last", "name"}, {"full", "name"}, {"surname"}, {"firstname"}, {"lastname"}, {"fullname"}}},
	{"password", true, true, [][]string{{"password"}, {"passwd"}, {"pwd"}, {"pass", "hash"}, {"passphrase"}, {"passcode"}}},
	{"API key", true, true, [][]string{{"api", "key"}, {"apikey"}, {"secret", "key"}, {"private", "key"}, {"access", "key"}, {"signing", "key"}, {"encryption", "key"}}},
	{"secret", true, true, [][]string{{"secret"}}},
	{"token", true, true, [][]string{{"token"}}},
}

// qualifiers may follow a sensitive name without changing what the
// column holds: password_hash, email_encrypted, token_value, phone_2.
var qualifiers = map[string]bool{
	"hash": true, "hashed": true, "digest": true, "enc": true, "encrypted": true, "crypt": true, "cipher": true,
	"ciphertext": true, "bcrypt": true, "sha": true, "md": true, "hmac": true, "plain": true, "plaintext": true,
	"raw": true, "value": true, "text": true, "str": true, "string": true,
}

// notIt are words that, before a sensitive name, make the column a count,
// a limit or a flag of it (max_tokens, is_mobile; token_count is caught
// by the name's end).
var notIt = map[string]bool{
	"max": true, "min": true, "num": true, "total": true, "count": true, "input": true, "output": true,
	"prompt": true, "completion": true, "used": true, "remaining": true, "n": true, "is": true, "has": true,
}

// byName judges a column by the words of its name and its type.
func byName(name, typ string) (nameKind, bool) {
	words := text.Words(name)
	for i, w := range words {
		words[i] = singular(w)
	}
	// Trailing qualifiers and digits (phone2, sha256) say nothing more.
	end := len(words)
	for end > 0 && (qualifiers[words[end-1]] || isDigits(words[end-1])) {
		end--
	}
	head := words[:end]
	for _, k := range nameKinds {
		for _, seq := range k.names {
			if len(head) < len(seq) || !slices.Equal(head[len(head)-len(seq):], seq) {
				continue
			}
			if before := len(head) - len(seq); before > 0 && notIt[head[before-1]] {
				return nameKind{}, false
			}
			if k.text && !textual(typ) || strings.Contains(strings.ToLower(typ), "bool") {
				return nameKind{}, false
			}
			return k, true
		}
	}
	return nameKind{}, false
}

// textual reports whether a column of type typ can hold text: not a
// number, a boolean or a date.
func textual(typ string) bool {
	t := strings.ToLower(typ)
	for _, s := range []string{"int", "numeric", "decimal", "real", "double", "float", "bool", "date", "time", "serial", "money"} {
		if strings.Contains(t, s) {
			return false
		}
	}
	return true
}

// shape is a kind of value known by how it is written.
type shape struct {
	label  string
	secret bool
	is     func(string) bool
}

var shapes = []shape{
	{"e-mail addresses", false, isEmail},
	{"card numbers", false, isCardNumber},
	{"IBANs", false, isIBAN},
	{"phone numbers", false, isPhone},
	{"long random tokens", true, isToken},
}

// byValues judges a column by its sampled values: a shape most of them
// have. It returns how many have it.
func byValues(values []any) (shape, int, bool) {
	var strs []string
	for _, v := range values {
		switch v := v.(type) {
		case string:
			strs = append(strs, strings.TrimSpace(v))
		case []byte:
			strs = append(strs, strings.TrimSpace(string(v)))
		}
	}
	for _, sh := range shapes {
		n := 0
		for _, s := range strs {
			if sh.is(s) {
				n++
			}
		}
		if n > 0 && 2*n > len(values) {
			return sh, n, true
		}
	}
	return shape{}, 0, false
}

var (
	emailShape = regexp.MustCompile(`^[A-Za-z0-9._%+'-]+@[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}$`)
	ibanShape  = regexp.MustCompile(`^[A-Z]{2}[0-9]{2}[A-Z0-9]{11,30}$`)
	phoneShape = regexp.MustCompile(`^\+?[0-9(][0-9 ()-]{6,22}[0-9]$`)
	dateShape  = regexp.MustCompile(`^(\d{4}-\d{1,2}-\d{1,2}|\d{1,2}-\d{1,2}-\d{2,4})\b`)
	tokenShape = regexp.MustCompile(`^[A-Za-z0-9_\-+/=.~]{20,512}$`)
	uuidShape  = regexp.MustCompile(`^(?i)[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
)

func isEmail(s string) bool { return len(s) <= 320 && emailShape.MatchString(s) }

// isCardNumber: 13 to 19 digits, spaces or dashes between, passing the
// Luhn check, not one digit repeated.
func isCardNumber(s string) bool {
	digits := strings.NewReplacer(" ", "", "-", "").Replace(s)
	if len(digits) < 13 || len(digits) > 19 || !isDigits(digits) || strings.Count(digits, digits[:1]) == len(digits) {
		return false
	}
	sum := 0
	for i := range len(digits) {
		d := int(digits[len(digits)-1-i] - '0')
		if i%2 == 1 {
			if d *= 2; d > 9 {
				d -= 9
			}
		}
		sum += d
	}
	return sum%10 == 0
}

// isIBAN: a country code, two check digits and the account, spaces
// allowed, passing the ISO 7064 mod-97 check.
func isIBAN(s string) bool {
	s = strings.ToUpper(strings.ReplaceAll(s, " ", ""))
	if !ibanShape.MatchString(s) {
		return false
	}
	rem := 0
	for _, r := range s[4:] + s[:4] {
		v := int(r - '0')
		if r >= 'A' {
			v = int(r-'A') + 10
		}
		if v >= 10 {
			rem = (rem*100 + v) % 97
		} else {
			rem = (rem*10 + v) % 97
		}
	}
	return rem == 1
}

// isPhone: 8 to 15 digits written as people write phone numbers: a
// leading +, a space or parentheses, or three groups; not a date.
func isPhone(s string) bool {
	if !phoneShape.MatchString(s) || dateShape.MatchString(s) {
		return false
	}
	digits := 0
	for _, r := range s {
		if r >= '0' && r <= '9' {
			digits++
		}
	}
	groups := len(strings.FieldsFunc(s, func(r rune) bool { return r < '0' || r > '9' }))
	return digits >= 8 && digits <= 15 && (s[0] == '+' || strings.ContainsAny(s, " (") || groups >= 3)
}

// isToken: 20 or more characters of the alphabets keys are written in,
// letters and digits mixed as chance mixes them (the kind of character
// changes often, and the characters spread widely), not a UUID.
func isToken(s string) bool {
	if !tokenShape.MatchString(s) || uuidShape.MatchString(s) {
		return false
	}
	kind := func(b byte) int {
		switch {
		case b >= 'a' && b <= 'z':
			return 0
		case b >= 'A' && b <= 'Z':
			return 1
		case b >= '0' && b <= '9':
			return 2
		}
		return 3
	}
	changes, seen := 0, [4]bool{}
	counts := map[byte]int{}
	for i := range len(s) {
		seen[kind(s[i])] = true
		counts[s[i]]++
		if i > 0 && kind(s[i]) != kind(s[i-1]) {
			changes++
		}
	}
	if !seen[2] || !seen[0] && !seen[1] || float64(changes) < 0.3*float64(len(s)-1) {
		return false
	}
	entropy := 0.0
	for _, n := range counts {
		p := float64(n) / float64(len(s))
		entropy -= p * math.Log2(p)
	}
	return entropy >= 3
}
