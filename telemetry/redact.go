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
// re only when it contains one of the hints (cheap substring tests), so the
// common case costs a few Contains calls.
type pattern struct {
	label string
	hints []string // any of these, case-sensitive
	fold  []string // any of these, ASCII case-insensitive
	re    *regexp.Regexp
	// keep is the number of leading submatches kept verbatim (e.g. the
	// "Bearer " prefix or the "api_key=" name); the rest is replaced.
	keep int
}

var patterns = []pattern{
	{label: "private-key", hints: []string{"PRIVATE KEY"},
		re: regexp.MustCompile(`-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----(?s:.*?)(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\z)`)},
	{label: "bearer", fold: []string{"bearer"},
		re: regexp.MustCompile(`(?i)(\bbearer\s+)[A-Za-z0-9\-._~+/]{8,}=*`), keep: 1},
	{label: "slack-token", hints: []string{"xox", "xapp-"},
		re: regexp.MustCompile(`\bxox[abposrce]-[A-Za-z0-9-]{8,}|\bxapp-[A-Za-z0-9-]{8,}`)},
	{label: "github-token", hints: []string{"gh", "github_pat_"},
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
	{label: "secret", fold: []string{"key", "token", "secret", "passw", "auth"},
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
	for i := range patterns {
		p := &patterns[i]
		if !p.hinted(s) {
			continue
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
	for _, h := range p.fold {
		if containsFold(s, h) {
			return true
		}
	}
	return false
}

// containsFold reports whether s contains the lower-case ASCII word sub,
// ignoring ASCII case, without allocating.
func containsFold(s, sub string) bool {
	n := len(sub)
	first := sub[0]
	for i := 0; i+n <= len(s); i++ {
		c := s[i]
		if c|0x20 != first {
			continue
		}
		j := 1
		for ; j < n; j++ {
			if s[i+j]|0x20 != sub[j] {
				break
			}
		}
		if j == n {
			return true
		}
	}
	return false
}
