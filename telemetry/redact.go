package telemetry

import (
	"regexp"
	"sort"
	"strings"
)

// Redacted replaces a secret found by value (a configured key or token).
const Redacted = "[REDACTED]"

// minSecretLen: shorter configured values are not redacted by value (they
// would blank out ordinary words); patterns still apply.
const minSecretLen = 4

// pattern is a secret recognised by its shape. A string is matched against
// re only when it contains one of the hints (fast substring tests) or the
// fold mark (found by one case-insensitive pass, scanFold), so ordinary text
// of any length costs a few scans and no regexp.
type pattern struct {
	label string
	hints []string // any of these, case-sensitive
	fold  int      // or this scanFold mark
	re    *regexp.Regexp
	// keep is the number of leading submatches kept verbatim (e.g. the
	// "Bearer " prefix or the "api_key=" name); the rest is replaced.
	keep int
}

var patterns = []pattern{
	{label: "private-key", hints: []string{"PRIVATE KEY"},
		re: regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----(?s:.*?)(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\z)`)},
	{label: "bearer", fold: foldBearer,
		re: regexp.MustCompile(`(?i)(\bbearer\s+)[A-Za-z0-9\-._~+/]{8,}=*`), keep: 1},
	{label: "slack-token", hints: []string{"xox", "xapp-"},
		re: regexp.MustCompile(`\bxox[abposrce]-[A-Za-z0-9-]{8,}|\bxapp-[A-Za-z0-9-]{8,}`)},
	{label: "github-token", hints: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		re: regexp.MustCompile(`\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}`)},
	{label: "aws-key", hints: []string{"AKIA", "ASIA"},
		re: regexp.MustCompile(`\b(?:AKIA|ASIA)[0-9A-Z]{16}\b`)},
	{label: "api-key", hints: []string{"sk-", "sk_"},
		re: regexp.MustCompile(`\b(?:sk|rk)[-_](?:live_|test_|proj-|ant-(?:api\d\d-)?)?[A-Za-z0-9_\-]{16,}`)},
	{label: "google-key", hints: []string{"AIza"},
		re: regexp.MustCompile(`\bAIza[0-9A-Za-z\-_]{30,}`)},
	{label: "jwt", hints: []string{"eyJ"},
		re: regexp.MustCompile(`\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}`)},
	// key = value where the name says it is a secret: api_key=..., "token": "...".
	{label: "secret", fold: foldAssign,
		re: regexp.MustCompile(`(?i)((?:api[_-]?key|access[_-]?key|secret[_-]?key|client[_-]?secret|auth[_-]?token|access[_-]?token|refresh[_-]?token|bot[_-]?token|password|passwd|secret|token)["']?\s*[:=]\s*["']?)([^\s"',;&}{\]\[]{8,})`), keep: 1},
}

// Redactor removes secrets from text: configured values (API keys, tokens)
// wherever they appear, and the shapes in patterns. It is safe for
// concurrent use.
type Redactor struct {
	secrets  []string
	replacer *strings.Replacer
}

// NewRedactor returns a Redactor for the secret values (empty and very
// short values are ignored).
func NewRedactor(secrets []string) *Redactor {
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
	r := &Redactor{secrets: ss}
	if len(ss) > 0 {
		args := make([]string, 0, 2*len(ss))
		for _, s := range ss {
			args = append(args, s, Redacted)
		}
		r.replacer = strings.NewReplacer(args...)
	}
	return r
}

// String returns s with every secret replaced.
func (r *Redactor) String(s string) string {
	if len(s) < minSecretLen {
		return s
	}
	if r != nil && r.replacer != nil {
		for _, sec := range r.secrets {
			if strings.Contains(s, sec) {
				s = r.replacer.Replace(s)
				break
			}
		}
	}
	fold := -1 // scanFold(s), computed when first needed
	for i := range patterns {
		p := &patterns[i]
		if !p.hinted(s) {
			if p.fold == 0 {
				continue
			}
			if fold < 0 {
				fold = scanFold(s)
			}
			if fold&p.fold == 0 {
				continue
			}
		}
		if p.keep == 0 {
			s = p.re.ReplaceAllLiteralString(s, "[REDACTED:"+p.label+"]")
			continue
		}
		s = p.re.ReplaceAllStringFunc(s, func(m string) string {
			sub := p.re.FindStringSubmatch(m)
			kept := ""
			for _, x := range sub[1 : p.keep+1] {
				kept += x
			}
			return kept + "[REDACTED:" + p.label + "]"
		})
	}
	return s
}

func (p *pattern) hinted(s string) bool {
	for _, h := range p.hints {
		if strings.Contains(s, h) {
			return true
		}
	}
	return false
}

// scanFold marks.
const (
	foldBearer = 1 << iota // "bearer", any case
	foldAssign             // a secret-sounding name followed soon by : or =
)

// assignWords are the names that make "name = value" look like a secret,
// in the casings searched for (lower, Title, UPPER: SIMD substring search
// is much faster than a case-folding pass).
var assignWords = casings("key", "token", "secret", "passw", "auth")

var bearerWords = casings("bearer")

func casings(words ...string) []string {
	var out []string
	for _, w := range words {
		out = append(out, w, strings.ToUpper(w[:1])+w[1:], strings.ToUpper(w))
	}
	return out
}

// scanFold finds the fold marks of s.
func scanFold(s string) int {
	mask := 0
	for _, w := range bearerWords {
		if strings.Contains(s, w) {
			mask |= foldBearer
			break
		}
	}
	for _, w := range assignWords {
		for from := 0; ; {
			i := strings.Index(s[from:], w)
			if i < 0 {
				break
			}
			from += i + len(w)
			if assignFollows(s, from) {
				return mask | foldAssign
			}
		}
	}
	return mask
}

// assignFollows: a ':' or '=' within the next 24 bytes of the line.
func assignFollows(s string, j int) bool {
	for k := j; k < len(s) && k < j+24; k++ {
		switch s[k] {
		case ':', '=':
			return true
		case '\n':
			return false
		}
	}
	return false
}
