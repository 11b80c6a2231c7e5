package redact

import (
	"math/rand/v2"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
)

func TestRedactorString(t *testing.T) {
	r := NewRedactor([]string{"my-configured-key-123", "", "abc", "  tok_SPACEY_VALUE  "})
	cases := []struct {
		name, in string
		gone     []string // must not survive
		kept     []string // must survive
	}{
		{"configured value", "key is my-configured-key-123.", []string{"my-configured-key-123"}, []string{"key is [REDACTED]."}},
		{"configured value twice", "my-configured-key-123/my-configured-key-123", []string{"my-configured"}, nil},
		{"trimmed configured value", "x tok_SPACEY_VALUE y", []string{"tok_SPACEY_VALUE"}, []string{"x [REDACTED] y"}},
		{"short values are not redacted by value", "abc abc", nil, []string{"abc abc"}},
		{"slack bot token", "SLACK=xoxb-123456789012-123456789012-abcdefghijklmnopqrstuvwx ok", []string{"xoxb-1234"}, []string{"SLACK=", " ok"}},
		{"slack user token", "xoxp-1234567890-abcdefABCDEF", []string{"xoxp-1234567890"}, nil},
		{"slack app token", "xapp-1-A0123456789-abcdef", []string{"xapp-1-A0123456789"}, nil},
		{"github token", "remote: ghp_0123456789abcdefghijABCDEFGHIJ012345 ", []string{"ghp_0123456789"}, []string{"remote: "}},
		{"github fine-grained", "github_pat_11ABCDEFG0123456789_abcdefghijklmnop", []string{"github_pat_11ABCDEFG"}, nil},
		{"aws access key", "aws_access_key_id = AKIAIOSFODNN7EXAMPLE", []string{"AKIAIOSFODNN7EXAMPLE"}, nil},
		{"bearer header", "Authorization: Bearer abc.def-ghi_jkl~mno", []string{"abc.def-ghi_jkl~mno"}, []string{"Authorization: Bearer [REDACTED"}},
		{"bearer lower case", "curl -H 'authorization: bearer 0123456789abcdef'", []string{"0123456789abcdef"}, []string{"bearer "}},
		{"openai key", "OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz0123", []string{"abcdefghijklmnopqrstuvwxyz0123"}, []string{"OPENAI_API_KEY="}},
		{"anthropic key", "sk-ant-api03-abcdefghijklmnopqrstuv", []string{"abcdefghijklmnopqrstuv"}, nil},
		{"google api key", "key=AIzaSyA-0123456789abcdefghijklmnopqrstu", []string{"AIzaSyA-0123456789"}, nil},
		{"jwt", "token eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", []string{"eyJzdWIiOiIxMjM0NTY3ODkwIn0"}, nil},
		{"private key block", "x\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQUJDREVGRw==\n-----END OPENSSH PRIVATE KEY-----\ny", []string{"b3BlbnNzaC1rZXktdjEAAAAA", "QUJDREVGRw"}, []string{"x\n", "\ny"}},
		{"private key cut short", "-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBgkqhkiG9w0BAQEFAASC", []string{"MIIEvQIBADANBgkqhkiG9w0BAQEFAASC"}, nil},
		{"json escaped private key", `{"k":"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA\n-----END RSA PRIVATE KEY-----"}`, []string{"MIIEowIBAAKCAQEA"}, []string{`{"k":"`}},
		{"named secret in json", `{"password": "hunter2hunter2", "user": "bob"}`, []string{"hunter2hunter2"}, []string{`"user": "bob"`}},
		{"named secret in env", "DB_PASSWORD=correcthorsebattery make", []string{"correcthorsebattery"}, []string{"make"}},
		{"ordinary text", "the tokens were counted: 12 input, 4 output", nil, []string{"the tokens were counted: 12 input, 4 output"}},
		{"ordinary code", "func key(s string) string { return s }", nil, []string{"func key(s string) string { return s }"}},
		{"git sha is not a secret", "commit 0123456789abcdef0123456789abcdef01234567", nil, []string{"0123456789abcdef0123456789abcdef01234567"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := r.String(tc.in)
			for _, g := range tc.gone {
				if strings.Contains(got, g) {
					t.Errorf("%q survived: %q", g, got)
				}
			}
			for _, k := range tc.kept {
				if !strings.Contains(got, k) {
					t.Errorf("%q was lost: %q", k, got)
				}
			}
		})
	}
}

func TestNilRedactorStillRedactsShapes(t *testing.T) {
	var r *Redactor
	if got := r.String("ghp_0123456789abcdefghijABCDEFGHIJ"); strings.Contains(got, "0123456789abcdefghij") {
		t.Errorf("got %q", got)
	}
}

// regexAll is what the patterns mean: each expression's ReplaceAll over
// the whole string, in order (the kept submatches, then the label).
func regexAll(s string) string {
	for i, p := range patterns {
		re := wholeRes()[i]
		var b strings.Builder
		last := 0
		for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
			b.WriteString(s[last:m[0]])
			for g := 1; g <= p.keep; g++ {
				if m[2*g] >= 0 {
					b.WriteString(s[m[2*g]:m[2*g+1]])
				}
			}
			b.WriteString("[REDACTED:" + p.label + "]")
			last = m[1]
		}
		b.WriteString(s[last:])
		s = b.String()
	}
	return s
}

// TestSecretNamesAreTheExpressions: every spelling findAssign accepts is a
// name the "secret" expression redacts, and the expression has no other.
func TestSecretNamesAreTheExpressions(t *testing.T) {
	if len(secretNames) != 28 {
		t.Errorf("%d names, want 28 (8 with an optional _ or -, and 4)", len(secretNames))
	}
	for n := range secretNames {
		for _, in := range []string{n + "=abcdefghij", strings.ToUpper(n) + `": "abcdefghij"`} {
			if got := regexAll(in); !strings.Contains(got, "[REDACTED:secret]") {
				t.Errorf("%q → %q", in, got)
			}
		}
	}
}

// TestRedactPatternsExactOnPieces runs FuzzRedactPatternsExact's check on
// strings made of the patterns' own pieces, which random bytes rarely hit.
func TestRedactPatternsExactOnPieces(t *testing.T) {
	pieces := []string{"key", "KEY", "Token", "secret", "client_", "api-", "password", "passwd", "=", ":", " ", "\t", "\n", `"`, "'",
		"sk-", "rk_", "proj-", "ant-api03-", "eyJ", "J", ".", "bearer ", "BeArEr\t", "xbearer ", "AKIA", "ASIA", "AIza", "gh", "p_", "github_pat_",
		"xox", "b-", "xapp-", "-----BEGIN ", "RSA ", "PRIVATE KEY", "-----", "-----END ", "\u212a", "\u017f", "é", "_",
		"abcdefgh", "0123456789", "ABCDEFGHIJKLMNOP", "xyz", "/", "+", "~", ",", "{", "}"}
	rng := rand.New(rand.NewPCG(1, 2))
	runs := 30000
	if raceEnabled {
		runs = 3000
	}
	for n := 0; n < runs; n++ {
		var b strings.Builder
		for k := rng.IntN(12); k >= 0; k-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		s := b.String()
		if got, want := NewRedactor(nil).String(s), regexAll(s); got != want && len(s) >= minSecretLen {
			t.Fatalf("String(%q)\n = %q\nwant %q", s, got, want)
		}
	}
}

var wholeRes = sync.OnceValue(func() []*regexp.Regexp {
	var res []*regexp.Regexp
	for _, p := range patterns {
		res = append(res, regexp.MustCompile(p.expr))
	}
	return res
})

// TestMinPatternLen: no pattern matches fewer bytes than minPatternLen.
func TestMinPatternLen(t *testing.T) {
	var minLen func(re *syntax.Regexp) int
	minLen = func(re *syntax.Regexp) int {
		switch re.Op {
		case syntax.OpLiteral:
			n := 0
			for _, r := range re.Rune {
				n += utf8.RuneLen(r)
				if re.Flags&syntax.FoldCase != 0 {
					n -= utf8.RuneLen(r) - 1 // a fold may be one byte
				}
			}
			return n
		case syntax.OpCharClass, syntax.OpAnyChar, syntax.OpAnyCharNotNL:
			return 1
		case syntax.OpCapture, syntax.OpPlus:
			return minLen(re.Sub[0])
		case syntax.OpRepeat:
			return re.Min * minLen(re.Sub[0])
		case syntax.OpConcat:
			n := 0
			for _, sub := range re.Sub {
				n += minLen(sub)
			}
			return n
		case syntax.OpAlternate:
			n := -1
			for _, sub := range re.Sub {
				if m := minLen(sub); n < 0 || m < n {
					n = m
				}
			}
			return n
		}
		return 0 // empty-width, star, quest
	}
	shortest := -1
	for _, p := range patterns {
		re, err := syntax.Parse(p.expr, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if n := minLen(re.Simplify()); shortest < 0 || n < shortest {
			shortest = n
		}
	}
	if shortest != minPatternLen {
		t.Errorf("the shortest match is %d bytes; minPatternLen is %d", shortest, minPatternLen)
	}
}

// FuzzRedactPatternsExact: trying the anchored expressions at the
// candidate starts gives what running them over the whole string gives.
func FuzzRedactPatternsExact(f *testing.F) {
	for _, s := range []string{
		"Authorization: Bearer abc.def-ghi_jkl~mno", "BeArEr 0123456789abcdef", "xbearer 0123456789abcdef", "bearer\n\t0123456789==",
		`{"password": "hunter2hunter2", "user": "bob"}`, "DB_PASSWORD=correcthorsebattery make", "client_secret   :  'abcdefgh12345'",
		"tokentoken: abcdefghijkl", "secret_key=abcdefghij token=zyxwvutsrq", "the tokens were counted: 12 input", "ApI-KeY = 0123456789",
		"\u212aey: abcdefghijkl", "api_\u212aey=abcdefghijkl", "pa\u017f\u017fword: abcdefghijkl", "x:=y token := abcdefgh12345678",
		"risk-free sk-proj-abcdefghijklmnopqrstuvwxyz0123 task-0123456789abcdefghij", "rk_live_0123456789abcdefghij", "_sk-0123456789abcdefghij",
		"AKIAIOSFODNN7EXAMPLE AKIAIOSFODNN7EXAMPLEX", "ghp_0123456789abcdefghijABCDEFGHIJ012345 xghp_0123456789abcdefghijABCD",
		"xoxb-123456789012-abcdef xapp-1-A0123456789-abcdef", "key=AIzaSyA-0123456789abcdefghijklmnopqrstu",
		"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
		"x\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\ny -----BEGIN PRIVATE KEY-----\nMIIE",
		`[{"role":"assistant","parts":[{"type":"text","content":"abcdabcd"}],"finish_reason":"stop"}]`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := NewRedactor(nil).String(s), regexAll(s); got != want && len(s) >= minSecretLen {
			t.Fatalf("String(%q)\n = %q\nwant %q", s, got, want)
		}
	})
}

// BenchmarkRedactLongText: 8 KB of ordinary text costs substring scans;
// the expressions run only where a secret could begin. "named" has
// secret-sounding names before colons (which made the old whole-string
// "secret" expression run: 2 ms), "json" a tool result's structure.
func BenchmarkRedactLongText(b *testing.B) {
	r := NewRedactor([]string{"sk-configured-secret-value"})
	for _, tc := range []struct{ name, text string }{
		{"prose", strings.Repeat("The key to this is the author's token count, through the high road: ", 120)},
		{"named", strings.Repeat("The answer depends on how the keys are stored: a token passed to the server is checked against the session, and the password never leaves the client; see the secret manager. ", 45)},
		{"json", strings.Repeat(`{"name": "item", "value": 42, "tags": ["a", "b"], "path": "/usr/local/bin", "enabled": true, "key_id": "k-1"}`+"\n", 75)},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.SetBytes(int64(len(tc.text)))
			for i := 0; i < b.N; i++ {
				_ = r.String(tc.text)
			}
		})
	}
}

// FuzzRedactor: a configured secret never survives, whatever surrounds it,
// and redaction never panics.
func FuzzRedactor(f *testing.F) {
	f.Add("before", "after", "S3cr3t-Value-xyz")
	f.Add("-----BEGIN PRIVATE KEY-----", "\n", "abcd1234")
	f.Add("Bearer ", "", "tokentokentoken")
	f.Fuzz(func(t *testing.T, before, after, secret string) {
		r := NewRedactor([]string{secret})
		got := r.String(before + secret + after)
		s := strings.TrimSpace(secret)
		if len(s) >= minSecretLen && strings.Contains(got, s) {
			// The secret may legitimately reappear only if a pattern's
			// replacement text contains it (e.g. the secret is "REDACTED").
			if !strings.Contains("[REDACTED:private-key][REDACTED:bearer][REDACTED:slack-token][REDACTED:github-token][REDACTED:aws-key][REDACTED:api-key][REDACTED:google-key][REDACTED:jwt][REDACTED:secret]"+Redacted, s) {
				t.Fatalf("secret %q survived in %q", s, got)
			}
		}
	})
}

// TestFind names each kind of secret found, and nothing in ordinary text.
func TestFind(t *testing.T) {
	r := NewRedactor([]string{"configured-value-42"})
	cases := map[string][]string{
		"I prefer tabs over spaces":                            nil,
		"my key is sk-proj-abcdefghijklmnopqrstuv":             {"api-key"},
		"the password: hunter2hunter2 and configured-value-42": {"configured-secret", "secret"},
		"Authorization: Bearer abcdefghijklmnop":               {"bearer"},
	}
	for in, want := range cases {
		if got := r.Find(in); !slices.Equal(got, want) {
			t.Errorf("Find(%q) = %q, want %q", in, got, want)
		}
	}
}

// A value added after the Redactor was made (a key given in the chat's
// first-run setup) is redacted from then on, the earlier ones still.
func TestRedactorAdd(t *testing.T) {
	r := NewRedactor([]string{"first-configured-value"})
	const later = "custom-provider-token-9f8e7d"
	if got := r.String("x " + later); got != "x "+later {
		t.Fatalf("redacted before Add: %q", got)
	}
	r.Add(later)
	if got := r.String("a first-configured-value b " + later); got != "a "+Redacted+" b "+Redacted {
		t.Errorf("after Add: %q", got)
	}
	if got := r.Find(later); len(got) != 1 || got[0] != "configured-secret" {
		t.Errorf("Find after Add = %v", got)
	}
	var nilR *Redactor
	nilR.Add(later) // no panic
	if got := nilR.String("ok " + later); got != "ok "+later {
		t.Errorf("nil Redactor: %q", got)
	}
}
