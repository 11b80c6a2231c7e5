package tools_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/co-cli/co/tools"
)

func ptr[T any](v T) *T { return &v }

// What a user types into a form field becomes its value, or an error that
// names the field and says what it expects.
func TestFieldParse(t *testing.T) {
	choice := tools.Field{Name: "c", Kind: tools.FieldChoice, Options: []tools.Option{{Value: "r", Title: "Red"}, {Value: "g", Title: "Green"}}}
	multi := choice
	multi.Kind, multi.MaxItems = tools.FieldMulti, ptr(1)
	tests := []struct {
		f    tools.Field
		in   string
		want string // the value as %v, or "error: part of it"
	}{
		{tools.Field{Name: "n"}, "  Ada ", "Ada"},
		{tools.Field{Name: "n"}, "", "<nil>"},
		{tools.Field{Name: "e", Format: "email"}, "ada@example.com", "ada@example.com"},
		{tools.Field{Name: "e", Format: "email"}, "ada at home", `error: e: "ada at home" is not an email address`},
		{tools.Field{Name: "u", Format: "uri"}, "example.com", "error: is not a URI with a scheme"},
		{tools.Field{Name: "d", Format: "date"}, "2026-02-30", "error: is not a date (YYYY-MM-DD)"},
		{tools.Field{Name: "d", Format: "date"}, "2026-02-28", "2026-02-28"},
		{tools.Field{Name: "s", MinLength: ptr(3)}, "ab", "error: s: at least 3 characters"},
		{tools.Field{Name: "i", Kind: tools.FieldInteger}, "7", "7"},
		{tools.Field{Name: "i", Kind: tools.FieldInteger}, "7.5", "error: is not a whole number"},
		{tools.Field{Name: "i", Title: "Age", Kind: tools.FieldInteger, Maximum: ptr(150.0)}, "200", "error: Age: 200 is out of range …–150"},
		{tools.Field{Name: "x", Kind: tools.FieldNumber}, "9.5", "9.5"},
		{tools.Field{Name: "x", Kind: tools.FieldNumber}, "lots", `error: x: "lots" is not a number`},
		{tools.Field{Name: "b", Kind: tools.FieldBoolean}, "Yes", "true"},
		{tools.Field{Name: "b", Kind: tools.FieldBoolean}, "maybe", "error: b: answer yes or no"},
		{choice, "green", "g"},
		{choice, "1", "r"},
		{choice, "blue", `error: c: "blue" is none of "r", "g"`},
		{multi, "r", "[r]"},
		{multi, "r, g", "error: c: choose at most 1"},
	}
	for _, tt := range tests {
		v, err := tt.f.Parse(tt.in)
		got := fmt.Sprint(v)
		if err != nil {
			got = "error: " + err.Error()
		}
		if strings.HasPrefix(tt.want, "error: ") && err != nil {
			if !strings.Contains(got, strings.TrimPrefix(tt.want, "error: ")) {
				t.Errorf("%+v %q: %s, want %s", tt.f, tt.in, got, tt.want)
			}
			continue
		}
		if got != tt.want {
			t.Errorf("%+v %q: %s, want %s", tt.f, tt.in, got, tt.want)
		}
	}
}

// The host shown beside a URL-mode form's URL is the one a browser would
// go to; a URL with none (it does not parse, or is no web address) is
// said to have none, never shown again in the host's place (where
// "https://www.bank.com@evil.example/\x1b…" would read as bank.com).
func TestURLHost(t *testing.T) {
	for u, want := range map[string]string{
		"https://www.bank.com@evil.example/login":        "evil.example",
		"https://example.com:8443/x":                     "example.com:8443",
		"https://www.bank.com@evil.example/\x1b[2Jlogin": "none (not a valid web address: do not open it)",
		"javascript:alert(1)":                            "none (not a valid web address: do not open it)",
		"file:///etc/passwd":                             "none (not a valid web address: do not open it)",
		"www.bank.com":                                   "none (not a valid web address: do not open it)",
	} {
		if got := tools.URLHost(u); got != want {
			t.Errorf("URLHost(%q) = %q, want %q", u, got, want)
		}
	}
}
