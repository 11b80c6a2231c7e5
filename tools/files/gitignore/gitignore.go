// Package gitignore matches paths against .gitignore patterns the way git
// does: blank lines and # comments skipped, ! negates, a trailing / matches
// directories only, a pattern with a / in it (other than at the end) is
// anchored to its .gitignore's directory and one without matches a name at
// any depth, *, ?, [...] and ** as git defines them, and the last matching
// pattern wins, deeper .gitignore files after higher ones.
//
// A Matcher is filled while walking a tree top-down (Add the patterns of
// each .gitignore on entering its directory). Like git, it cannot re-include
// a file whose directory is excluded: walkers skip excluded directories.
// A Matcher is not safe for concurrent use while patterns are added.
package gitignore

import (
	"path"
	"regexp"
	"strings"
)

// Pattern is one line of a .gitignore file.
type Pattern struct {
	base     string // directory of the .gitignore, relative to the root; "" for the root
	negate   bool
	dirOnly  bool
	basename bool // no slash in the pattern: match the last component
	re       *regexp.Regexp
}

// Parse reads the patterns of a .gitignore in directory base (relative to
// the walk's root, slash-separated, "" or "." for the root). Lines that are
// not valid patterns are skipped.
func Parse(base string, data []byte) []Pattern {
	if base == "." {
		base = ""
	}
	var out []Pattern
	for _, line := range strings.Split(string(data), "\n") {
		if p, ok := parseLine(base, line); ok {
			out = append(out, p)
		}
	}
	return out
}

func parseLine(base, line string) (Pattern, bool) {
	line = strings.TrimSuffix(line, "\r")
	if line == "" || line[0] == '#' {
		return Pattern{}, false
	}
	// Trailing spaces are ignored unless escaped with a backslash.
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
		line = line[:len(line)-1]
	}
	p := Pattern{base: base}
	switch {
	case line[0] == '!':
		p.negate = true
		line = line[1:]
	case strings.HasPrefix(line, `\!`), strings.HasPrefix(line, `\#`):
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly = true
		line = strings.TrimRight(line, "/")
	}
	if line == "" {
		return Pattern{}, false
	}
	if strings.Contains(line, "/") {
		line = strings.TrimPrefix(line, "/")
	} else {
		p.basename = true
	}
	re, err := compile(line)
	if err != nil {
		return Pattern{}, false
	}
	p.re = re
	return p, true
}

// compile turns a git glob into an anchored regular expression over a
// slash-separated path.
func compile(glob string) (*regexp.Regexp, error) {
	var b strings.Builder
	b.WriteString("^")
	segs := strings.Split(glob, "/")
	for i, seg := range segs {
		last := i == len(segs)-1
		if seg == "**" {
			switch {
			case len(segs) == 1:
				b.WriteString(".*")
			case i == 0:
				b.WriteString("(?:.*/)?")
			case last:
				b.WriteString(".*") // "a/**": everything inside a (the / is already written)
			default:
				b.WriteString("(?:.*/)?")
			}
			continue
		}
		writeSegment(&b, seg)
		if !last {
			b.WriteString("/")
		}
	}
	b.WriteString("$")
	return regexp.Compile(b.String())
}

func writeSegment(b *strings.Builder, seg string) {
	for i := 0; i < len(seg); i++ {
		c := seg[i]
		switch c {
		case '*':
			b.WriteString("[^/]*")
		case '?':
			b.WriteString("[^/]")
		case '\\':
			if i+1 < len(seg) {
				i++
				b.WriteString(regexp.QuoteMeta(seg[i : i+1]))
			} else {
				b.WriteString(`\\`)
			}
		case '[':
			end, class := bracket(seg[i:])
			if end < 0 {
				b.WriteString(`\[`)
				continue
			}
			b.WriteString(class)
			i += end
		default:
			b.WriteString(regexp.QuoteMeta(seg[i : i+1]))
		}
	}
}

// bracket converts a [...] class at the start of s. It returns the index of
// the closing ] in s and the regexp class, or -1 when there is none.
func bracket(s string) (int, string) {
	var b strings.Builder
	b.WriteString("[")
	i := 1
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		b.WriteString("^/")
		i++
	}
	start := i
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ']' && i > start:
			b.WriteString("]")
			return i, b.String()
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteString(regexp.QuoteMeta(s[i : i+1]))
		case c == '[' && strings.HasPrefix(s[i:], "[:"):
			// A POSIX class such as [:alpha:]: regexp knows the same syntax.
			end := strings.Index(s[i+2:], ":]")
			if end < 0 {
				return -1, ""
			}
			b.WriteString(s[i : i+2+end+2])
			i += 2 + end + 1
		case c == ']': // first in the class: literal
			b.WriteString(`\]`)
		case c == '-':
			b.WriteByte('-')
		default:
			b.WriteString(regexp.QuoteMeta(s[i : i+1]))
		}
	}
	return -1, ""
}

// match reports whether p matches rel (relative to the walk's root).
func (p Pattern) match(rel string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	if p.base != "" {
		var ok bool
		if rel, ok = strings.CutPrefix(rel, p.base+"/"); !ok {
			return false
		}
	}
	if p.basename {
		return p.re.MatchString(path.Base(rel))
	}
	return p.re.MatchString(rel)
}

// Matcher holds the patterns met so far on a walk.
type Matcher struct {
	patterns []Pattern
}

// Add appends patterns; later ones take precedence.
func (m *Matcher) Add(ps ...Pattern) { m.patterns = append(m.patterns, ps...) }

// Len is the number of patterns.
func (m *Matcher) Len() int { return len(m.patterns) }

// Ignored reports whether rel (slash-separated, relative to the root) is
// excluded by the last pattern that matches it. It does not look at rel's
// parent directories; see Excluded.
func (m *Matcher) Ignored(rel string, isDir bool) bool {
	for i := len(m.patterns) - 1; i >= 0; i-- {
		if m.patterns[i].match(rel, isDir) {
			return !m.patterns[i].negate
		}
	}
	return false
}

// Excluded reports whether rel or any directory above it is ignored.
func (m *Matcher) Excluded(rel string, isDir bool) bool {
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		if m.Ignored(strings.Join(parts[:i], "/"), true) {
			return true
		}
	}
	return m.Ignored(rel, isDir)
}

// Glob is a compiled file-name pattern with .gitignore's syntax: without a
// slash it matches a name at any depth ("*.go"); with one it matches the
// path from the root ("src/**/*.ts").
type Glob struct{ p Pattern }

// CompileGlob compiles a glob. An empty glob matches everything.
func CompileGlob(glob string) (*Glob, error) {
	if glob == "" {
		return nil, nil
	}
	g := Pattern{}
	s := strings.TrimPrefix(glob, "./")
	if strings.Contains(s, "/") {
		s = strings.TrimPrefix(s, "/")
	} else {
		g.basename = true
	}
	re, err := compile(s)
	if err != nil {
		return nil, err
	}
	g.re = re
	return &Glob{g}, nil
}

// Match reports whether rel matches; a nil Glob matches everything.
func (g *Glob) Match(rel string) bool {
	if g == nil {
		return true
	}
	return g.p.match(rel, false)
}
