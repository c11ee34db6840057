package schema

import "testing"

// TestByName checks the names taken for personal or secret data and the
// look-alikes that are not: whole words at the end of the name, counts,
// flags and columns of numbers left out.
func TestByName(t *testing.T) {
	for _, c := range []struct {
		name, typ string
		want      string // the kind's label; "" for none
		secret    bool
	}{
		{"email", "TEXT", "e-mail", false},
		{"E-Mail", "varchar(200)", "e-mail", false},
		{"customerEmailAddress", "text", "e-mail", false},
		{"emails", "", "e-mail", false},
		{"email_hash", "TEXT", "e-mail", false},
		{"email_verified", "BOOLEAN", "", false},
		{"email_verified_at", "TEXT", "", false},
		{"is_email", "INTEGER", "", false},
		{"email_count", "INTEGER", "", false},
		{"phone", "TEXT", "phone number", false},
		{"mobile_number", "TEXT", "phone number", false},
		{"phone2", "TEXT", "phone number", false},
		{"is_mobile", "INTEGER", "", false},
		{"ssn", "TEXT", "social security number", false},
		{"social_security_number", "INTEGER", "social security number", false},
		{"password", "TEXT", "password", true},
		{"password_hash", "TEXT", "password", true},
		{"hashed_password", "TEXT", "password", true},
		{"passwd", "TEXT", "password", true},
		{"pwd_hash", "BLOB", "password", true},
		{"password_changed_at", "TEXT", "", false},
		{"password_reset_sent", "BOOLEAN", "", false},
		{"secret", "TEXT", "secret", true},
		{"client_secret", "TEXT", "secret", true},
		{"secret_santa_id", "INTEGER", "", false},
		{"token", "TEXT", "token", true},
		{"access_token", "TEXT", "token", true},
		{"refreshToken", "TEXT", "token", true},
		{"tokens_used", "INTEGER", "", false},
		{"tokens_used", "TEXT", "", false},
		{"max_tokens", "TEXT", "", false},
		{"prompt_tokens", "integer", "", false},
		{"token_count", "TEXT", "", false},
		{"token_type", "TEXT", "", false},
		{"tokens", "INTEGER", "", false},
		{"api_key", "TEXT", "API key", true},
		{"apikey", "TEXT", "API key", true},
		{"api_key_id", "INTEGER", "", false},
		{"primary_key", "TEXT", "", false},
		{"salary", "NUMERIC", "salary", false},
		{"hourly_wage", "REAL", "salary", false},
		{"salary_band", "TEXT", "", false},
		{"iban", "TEXT", "IBAN", false},
		{"card_number", "TEXT", "card number", false},
		{"credit_card_number", "bigint", "card number", false},
		{"cvv", "TEXT", "card security code", true},
		{"card_type", "TEXT", "", false},
		{"birth_date", "DATE", "birth date", false},
		{"date_of_birth", "date", "birth date", false},
		{"dob", "TEXT", "birth date", false},
		{"birthday_party_count", "INTEGER", "", false},
		{"home_address", "TEXT", "address", false},
		{"address_id", "INTEGER", "", false},
		{"last_login_ip", "TEXT", "IP address", false},
		{"ip_address", "inet", "IP address", false},
		{"zip", "TEXT", "", false},
		{"ship_via", "TEXT", "", false},
		{"hotel", "TEXT", "", false},
		{"name", "TEXT", "", false},
		{"last_name", "TEXT", "person's name", false},
		{"tokenizer", "TEXT", "", false},
		{"passenger_count", "INTEGER", "", false},
	} {
		k, ok := byName(c.name, c.typ)
		if got := map[bool]string{true: k.label}[ok]; got != c.want || ok && k.secret != c.secret {
			t.Errorf("%s %s: got %q (secret %v), want %q (secret %v)", c.name, c.typ, got, k.secret, c.want, c.secret)
		}
	}
}

// TestShapes checks each value shape on values that have it and on
// look-alikes that do not.
func TestShapes(t *testing.T) {
	for _, c := range []struct {
		is  func(string) bool
		yes []string
		no  []string
	}{
		{isEmail, []string{"ada@example.com", "first.last+tag@mail.example.co.uk"},
			[]string{"ada@", "@example.com", "ada at example.com", "a@b", "two@@example.com"}},
		{isCardNumber, []string{"4111111111111111", "4111 1111 1111 1111", "5500-0000-0000-0004", "378282246310005"},
			[]string{"4111111111111112", "0000000000000000", "411111111111", "4111a11111111111"}},
		{isIBAN, []string{"GB82WEST12345698765432", "DE89 3704 0044 0532 0130 00"},
			[]string{"GB82WEST12345698765433", "GB82", "XX00ABCDEFGHIJKLMNOP"}},
		{isPhone, []string{"+44 20 7946 0958", "(555) 123-4567", "555-123-4567", "020 7946 0958"},
			[]string{"2024-01-15", "15-01-2024", "2024-01-15 10:00", "5551234567", "555-1234", "12", "2024-2025", "1.2.3.4"}},
		{isToken, []string{"ghp_16C7e42F292c6912E7710c838347Ae178B4a", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
			"sk_live_4eC39HqLyjWDarjtT1zdp7dc", "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U"},
			[]string{"123e4567-e89b-12d3-a456-426614174000", "internationalization", "IMG_20240101_123456.jpg",
				"the quick brown fox jumps", "https://example.com/a/b/c?d=1", "2024-01-15T10:00:00Z", "aaaaaaaaaaaaaaaaaaaaaaaa1"}},
	} {
		for _, s := range c.yes {
			if !c.is(s) {
				t.Errorf("%q does not have the shape, want it to", s)
			}
		}
		for _, s := range c.no {
			if c.is(s) {
				t.Errorf("%q has the shape, want it not to", s)
			}
		}
	}
}
