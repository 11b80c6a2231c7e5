// Package redact finds and removes secrets (configured values and the shapes of
// keys and tokens) from text: the span store redacts with it, and the memory
// store refuses text in which it finds one. A leaf: it imports nothing of ours.
package redact

import (
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"
)

// Redacted replaces a secret found by value (a configured key or token).
const Redacted = "[REDACTED]"

// minSecretLen: shorter configured values are not redacted by value (they
// would blank out ordinary words); patterns still apply.
const minSecretLen = 4

// pattern is a secret recognised by its shape. Its regexp is never run
// over a whole string (Go's regexp takes 150-350 ns a byte on expressions
// without a literal prefix: milliseconds for a long reply): find returns
// every place a match can begin (found by substring scans for bytes that
// are rare in ordinary text), and the expression, anchored, is tried
// there only, left to right, as ReplaceAll would. The result is the
// expression's ReplaceAll over the whole string (FuzzRedactPatternsExact).
type pattern struct {
	label string
	expr  string
	// re is ^(?:expr), compiled on the pattern's first use: compiling all
	// of them at package initialisation cost every co process (co
	// version included) a few hundred microseconds and ~100 KB before
	// its first frame, for text that is redacted only once spans flow.
	re func() *regexp.Regexp
	// find returns the candidate starts, in order.
	find func(s string) []int
	// word: expr begins with \b (checked here: the anchored expression
	// does not see the byte before).
	word bool
	// keep is the number of leading submatches kept verbatim (e.g. the
	// "Bearer " prefix or the "api_key=" name); the rest is replaced.
	keep int
}

func newPattern(p pattern) pattern {
	anchored := `^(?:` + p.expr + `)`
	p.re = sync.OnceValue(func() *regexp.Regexp {
		compiled.Add(1)
		return regexp.MustCompile(anchored)
	})
	return p
}

// compiled counts the patterns' expressions compiled so far (for the test
// that package initialisation compiles none).
var compiled atomic.Int32

var patterns = []pattern{
	newPattern(pattern{label: "private-key", find: starts("-----BEGIN "),
		expr: `-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----(?s:.*?)(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\z)`}),
	newPattern(pattern{label: "bearer", word: true, keep: 1,
		// "bearer" in any case (none of its letters has a non-ASCII fold).
		find: func(s string) []int {
			return scan(s, bearerStarts, func(i int) int {
				if len(s)-i >= 6 && asciiEqualFold(s[i+2:i+6], "arer") {
					return i
				}
				return -1
			})
		},
		expr: `(?i)(\bbearer\s+)[A-Za-z0-9\-._~+/]{8,}=*`}),
	newPattern(pattern{label: "slack-token", find: starts("xox", "xapp-"), word: true,
		expr: `\bxox[abposrce]-[A-Za-z0-9-]{8,}|\bxapp-[A-Za-z0-9-]{8,}`}),
	newPattern(pattern{label: "github-token", word: true,
		find: func(s string) []int {
			return scan(s, []string{"gh", "github_pat_"}, func(i int) int {
				if s[i+1] == 'i' || len(s)-i >= 4 && strings.IndexByte("pousr", s[i+2]) >= 0 && s[i+3] == '_' {
					return i
				}
				return -1
			})
		},
		expr: `\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}`}),
	newPattern(pattern{label: "aws-key", find: starts("AKIA", "ASIA"), word: true,
		expr: `\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`}),
	newPattern(pattern{label: "api-key", word: true,
		// sk- or rk-, found by the rarer "k-".
		find: func(s string) []int {
			return scan(s, []string{"k-", "k_"}, func(i int) int {
				if i > 0 && (s[i-1] == 's' || s[i-1] == 'r') {
					return i - 1
				}
				return -1
			})
		},
		expr: `\b(?:sk|rk)[-_](?:live_|test_|proj-|ant-(?:api\d\d-)?)?[A-Za-z0-9_\-]{16,}`}),
	newPattern(pattern{label: "google-key", find: starts("AIza"), word: true,
		expr: `\bAIza[0-9A-Za-z\-_]{30,}`}),
	newPattern(pattern{label: "jwt", word: true,
		find: func(s string) []int {
			return scan(s, []string{"J"}, func(i int) int {
				if i >= 2 && s[i-2:i] == "ey" {
					return i - 2
				}
				return -1
			})
		},
		expr: `\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`}),
	// key = value where the name says it is a secret: api_key=..., "token": "...".
	newPattern(pattern{label: "secret", find: findAssign, keep: 1,
		expr: `(?i)((?:api[_-]?key|access[_-]?key|secret[_-]?key|client[_-]?secret|auth[_-]?token|access[_-]?token|refresh[_-]?token|bot[_-]?token|password|passwd|secret|token)["']?\s*[:=]\s*["']?)([^\s"',;&}{\]\[]{8,})`}),
}

var bearerStarts = []string{"be", "Be", "bE", "BE"}

// starts: a match begins with one of the needles.
func starts(needles ...string) func(string) []int {
	return func(s string) []int { return scan(s, needles, nil) }
}

// scan returns, in order, the candidate starts at(i) for each i where a
// needle occurs in s (at returns -1 to skip one; nil means i itself); nil
// when there are none.
func scan(s string, needles []string, at func(i int) int) []int {
	var out []int
	for _, n := range needles {
		for from := 0; ; {
			i := strings.Index(s[from:], n)
			if i < 0 {
				break
			}
			i += from
			from = i + 1
			if at != nil {
				if i = at(i); i < 0 {
					continue
				}
			}
			out = append(out, i)
		}
	}
	if len(needles) > 1 && len(out) > 1 {
		slices.Sort(out)
		out = slices.Compact(out)
	}
	return out
}

// Redactor removes secrets from text: configured values (API keys, tokens)
// wherever they appear, and the shapes in patterns. It is safe for
// concurrent use, Add included.
type Redactor struct {
	mu  sync.Mutex // serialises Add
	cur atomic.Pointer[secretSet]
}

// secretSet is the configured values and their replacer; never changed
// once made (Add makes a new one).
type secretSet struct {
	secrets  []string
	replacer *strings.Replacer
}

// NewRedactor returns a Redactor for the secret values (empty and very
// short values are ignored).
func NewRedactor(secrets []string) *Redactor {
	r := &Redactor{}
	r.cur.Store(newSecretSet(secrets))
	return r
}

// Add makes more values secret from now on: a key the user gave after the
// Redactor was made (the chat's first-run setup).
func (r *Redactor) Add(secrets ...string) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cur.Store(newSecretSet(append(slices.Clone(r.set().secrets), secrets...)))
}

func (r *Redactor) set() *secretSet {
	if r == nil {
		return &secretSet{}
	}
	if s := r.cur.Load(); s != nil {
		return s
	}
	return &secretSet{}
}

func newSecretSet(secrets []string) *secretSet {
	seen := map[string]bool{}
	var ss []string
	for _, s := range secrets {
		s = strings.TrimSpace(s)
		if len(s) >= minSecretLen && !seen[s] {
			seen[s] = true
			ss = append(ss, s)
		}
	}
	// Longest first, so a secret that contains another is replaced whole.
	sort.Slice(ss, func(i, j int) bool { return len(ss[i]) > len(ss[j]) })
	set := &secretSet{secrets: ss}
	if len(ss) > 0 {
		args := make([]string, 0, 2*len(ss))
		for _, s := range ss {
			args = append(args, s, Redacted)
		}
		set.replacer = strings.NewReplacer(args...)
	}
	return set
}

// String returns s with every secret replaced.
func (r *Redactor) String(s string) string {
	if len(s) < minSecretLen {
		return s
	}
	if set := r.set(); set.replacer != nil {
		for _, sec := range set.secrets {
			if strings.Contains(s, sec) {
				s = set.replacer.Replace(s)
				break
			}
		}
	}
	if len(s) < minPatternLen {
		return s
	}
	for i := range patterns {
		s = patterns[i].replace(s)
	}
	return s
}

// Values returns s with every secret value replaced, the shapes of keys
// and tokens left alone (String replaces both): an MCP tool's result with
// what the user typed into a secret field of a form taken out, the rest
// as the server sent it.
func (r *Redactor) Values(s string) string {
	if set := r.set(); set.replacer != nil && len(s) >= minSecretLen {
		return set.replacer.Replace(s)
	}
	return s
}

// minPatternLen is the length of the shortest text any pattern matches
// ("xoxb-" and 8 more; TestMinPatternLen computes it from the expressions):
// shorter values (most attributes) skip the scans.
const minPatternLen = 13

// replace is the pattern's ReplaceAll, trying the anchored expression at
// the candidate starts only.
func (p *pattern) replace(s string) string {
	at := p.find(s)
	var b []byte
	last := 0 // end of the last match
	for _, c := range at {
		if c < last || (p.word && c > 0 && isWordByte(s[c-1])) {
			continue
		}
		loc := p.re().FindStringSubmatchIndex(s[c:])
		if loc == nil {
			continue
		}
		if b == nil {
			b = make([]byte, 0, len(s)+16)
		}
		b = append(b, s[last:c]...)
		for g := 1; g <= p.keep; g++ {
			if loc[2*g] >= 0 {
				b = append(b, s[c+loc[2*g]:c+loc[2*g+1]]...)
			}
		}
		b = append(b, "[REDACTED:"...)
		b = append(b, p.label...)
		b = append(b, ']')
		last = c + loc[1]
	}
	if b == nil {
		return s
	}
	return string(append(b, s[last:]...))
}

// isWordByte: [0-9A-Za-z_], regexp's \w (what \b looks at).
func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// findAssign returns where a "name: value" secret can begin: the name (one
// of secretNames, 5 to 13 bytes) comes before an optional quote, white
// space and a ':' or '='. Near non-ASCII bytes every start within 21 bytes
// is tried: to (?i), K (the Kelvin sign) is a k and ſ an s.
func findAssign(s string) []int {
	var at []int
	prev := -1 // the last ':' or '=' seen: a name does not span it
	colon, equals := strings.IndexByte(s, ':'), strings.IndexByte(s, '=')
	for colon >= 0 || equals >= 0 {
		var q int
		if equals < 0 || colon >= 0 && colon < equals {
			q = colon
			if n := strings.IndexByte(s[q+1:], ':'); n >= 0 {
				colon = q + 1 + n
			} else {
				colon = -1
			}
		} else {
			q = equals
			if n := strings.IndexByte(s[q+1:], '='); n >= 0 {
				equals = q + 1 + n
			} else {
				equals = -1
			}
		}
		ne := q // where the name ends
		for ne > 0 && isSpace(s[ne-1]) {
			ne--
		}
		if ne > 0 && (s[ne-1] == '"' || s[ne-1] == '\'') {
			ne--
		}
		lo := max(prev+1, ne-21)
		prev = q
		if lo > ne-5 {
			continue
		}
		if !isASCII(s[lo:ne]) {
			for c := lo; c <= ne-5; c++ {
				at = append(at, c)
			}
			continue
		}
		if !secretNameEnd(s[:ne]) {
			continue
		}
		for c := max(lo, ne-13); c <= ne-5; c++ {
			if isSecretName(s[c:ne]) {
				at = append(at, c)
			}
		}
	}
	return at
}

// secretNameEnd: s ends as a secret name does (key, token, secret, passwd
// or password, in any case).
func secretNameEnd(s string) bool {
	if len(s) < 3 {
		return false
	}
	switch s[len(s)-1] | 0x20 {
	case 'y', 'n', 't', 'd':
	default:
		return false
	}
	for _, w := range [...]string{"key", "token", "secret", "passwd", "password"} {
		if len(s) >= len(w) && asciiEqualFold(s[len(s)-len(w):], w) {
			return true
		}
	}
	return false
}

// secretNames are the spellings of the names in the "secret" pattern's
// expression, lower case.
var secretNames = func() map[string]bool {
	m := map[string]bool{"password": true, "passwd": true, "secret": true, "token": true}
	for _, n := range [][2]string{{"api", "key"}, {"access", "key"}, {"secret", "key"}, {"client", "secret"},
		{"auth", "token"}, {"access", "token"}, {"refresh", "token"}, {"bot", "token"}} {
		for _, sep := range []string{"", "_", "-"} {
			m[n[0]+sep+n[1]] = true
		}
	}
	return m
}()

// isSecretName: s is one of secretNames in any ASCII case.
func isSecretName(s string) bool {
	var low [16]byte
	if len(s) > len(low) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		low[i] = c
	}
	return secretNames[string(low[:len(s)])]
}

// isSpace: regexp's \s.
func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r' }

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// asciiEqualFold compares s with lower, a lower-case ASCII word.
func asciiEqualFold(s, lower string) bool {
	if len(s) != len(lower) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// Find returns the labels of the secrets in s (a configured value is
// "configured-secret"; the shapes are named as in "[REDACTED:label]"), in
// the order patterns are tried, each once; nil when there is none.
func (r *Redactor) Find(s string) []string {
	var out []string
	for _, sec := range r.set().secrets {
		if strings.Contains(s, sec) {
			out = append(out, "configured-secret")
			break
		}
	}
	if len(s) < minPatternLen {
		return out
	}
	for i := range patterns {
		if patterns[i].replace(s) != s {
			out = append(out, patterns[i].label)
		}
	}
	return out
}
