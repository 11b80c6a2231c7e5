package shell

import (
	"fmt"
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// arg is a word as the program receives it, as far as can be known before
// running anything.
type arg struct {
	val    string // value after quote removal; expansions are unknown, $HOME is ~
	exact  bool   // no expansion: val is what the program gets (globs and ~ aside)
	plain  bool   // one unquoted literal without backslashes
	glob   bool   // an unquoted *, ? or [
	home   bool   // starts with an unquoted ~ or $HOME that expands to the home directory
	meta   bool   // a literal $, ` or > outside single quotes (escaped or lone)
	braces bool   // brace expansion: alts holds the words it expands to
	why    string // why it is not exact
	alts   []arg
	src    *syntax.Word
}

func (a arg) show() string {
	if a.exact || a.src == nil {
		return a.val
	}
	return printWord(a.src)
}

func printWord(w *syntax.Word) string {
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, w); err != nil {
		return "?"
	}
	return b.String()
}

// script is the word's value as a command string to parse.
func (a arg) script() string { return asScript(a.val) }

func readWord(w *syntax.Word) arg { return readWordIn(w, nil) }

// readWordIn reads w knowing which variables are set to something non-empty
// earlier in the command.
func readWordIn(w *syntax.Word, set map[string]bool) arg {
	a := readParts(w, set)
	if hasBraceLit(w) {
		cp := *w
		cp.Parts = slices.Clone(w.Parts)
		if syntax.SplitBraces(&cp) && slices.ContainsFunc(cp.Parts, isBraceExp) {
			a.braces = true
			a.inexact("brace expansion (" + printWord(w) + ")")
			for ew, err := range expand.BracesSeq(nil, &cp) {
				if err != nil || len(a.alts) >= maxBraceWords {
					break
				}
				alt := readParts(ew, set)
				alt.inexact(a.why)
				a.alts = append(a.alts, alt)
			}
		}
	}
	return a
}

func isBraceExp(p syntax.WordPart) bool {
	_, ok := p.(*syntax.BraceExp)
	return ok
}

// readParts reads a word without brace expansion.
func readParts(w *syntax.Word, set map[string]bool) arg {
	a := arg{exact: true, plain: len(w.Parts) == 1, src: w}
	var b strings.Builder
	for _, part := range w.Parts {
		a.part(&b, part, false, set)
	}
	a.val = b.String()
	return a
}

func hasBraceLit(w *syntax.Word) bool {
	for _, part := range w.Parts {
		if l, ok := part.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			return true
		}
	}
	return false
}

func (a *arg) inexact(why string) {
	a.exact = false
	a.plain = false
	if a.why == "" {
		a.why = why
	}
}

func (a *arg) part(b *strings.Builder, part syntax.WordPart, dq bool, set map[string]bool) {
	switch p := part.(type) {
	case *syntax.Lit:
		if !dq && b.Len() == 0 && (p.Value == "~" || strings.HasPrefix(p.Value, "~/")) {
			a.home = true
		}
		a.lit(b, p.Value, dq)
	case *syntax.SglQuoted:
		a.plain = false
		if p.Dollar {
			a.inexact("ANSI-C quoting ($'...')")
			b.WriteString(decodeANSIC(p.Value))
			return
		}
		b.WriteString(p.Value)
	case *syntax.DblQuoted:
		a.plain = false
		if p.Dollar {
			a.inexact("locale quoting ($\"...\")")
		}
		for _, q := range p.Parts {
			a.part(b, q, true, set)
		}
	case *syntax.ParamExp:
		name := "?"
		if p.Param != nil {
			name = p.Param.Value
		}
		a.inexact("parameter expansion ($" + name + ")")
		if name == "HOME" && b.Len() == 0 && p.Exp == nil && p.Repl == nil && p.Slice == nil && p.Index == nil && !p.Length && !p.Excl && p.NestedParam == nil && len(p.Modifiers) == 0 {
			a.home = true
			b.WriteString("~")
			return
		}
		if set[name] || nonEmptyExp(p.Exp) {
			b.WriteString(opaque)
			return
		}
		b.WriteString(unknown)
	case *syntax.CmdSubst:
		if p.Backquotes {
			a.inexact("command substitution (`...`)")
		} else {
			a.inexact("command substitution $(...)")
		}
		b.WriteString(unknown)
	case *syntax.ArithmExp:
		a.inexact("arithmetic expansion $((...))")
		b.WriteString(opaque)
	case *syntax.ProcSubst:
		a.inexact("process substitution " + p.Op.String() + "...)")
		b.WriteString(opaque)
	case *syntax.ExtGlob:
		a.inexact("extended glob (" + p.Op.String() + "...)")
		a.glob = true
		b.WriteString(opaque)
	default:
		a.inexact(fmt.Sprintf("unsupported word part (%T)", p))
		b.WriteString(unknown)
	}
}

// nonEmptyExp reports whether ${X<op>word} is never empty: ${X:?msg}, or
// ${X:-word} and ${X:=word} with a non-empty word.
func nonEmptyExp(x *syntax.Expansion) bool {
	if x == nil {
		return false
	}
	switch x.Op {
	case syntax.ErrorUnsetOrNull:
		return true
	case syntax.DefaultUnsetOrNull, syntax.AssignUnsetOrNull:
		return x.Word != nil && strings.Trim(readParts(x.Word, nil).val, unknown) != ""
	}
	return false
}

// lit appends a literal's value after quote removal.
func (a *arg) lit(b *strings.Builder, v string, dq bool) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) {
			n := v[i+1]
			if dq && !strings.ContainsRune("$`\"\\\n", rune(n)) {
				b.WriteByte('\\')
				continue
			}
			i++
			a.plain = false
			if n == '\n' {
				continue
			}
			if n == '$' || n == '`' || n == '>' {
				a.meta = true
			}
			b.WriteByte(n)
			continue
		}
		if c == '\\' {
			a.plain = false
		}
		if c == '$' || c == '`' {
			a.meta = true
		}
		if !dq && (c == '*' || c == '?' || c == '[') {
			a.glob = true
		}
		b.WriteByte(c)
	}
}

// decodeANSIC decodes the body of $'...' (best effort, for the deny checks).
func decodeANSIC(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch c = s[i]; c {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'x', 'u', 'U':
			maxDigits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
			n, j := 0, i+1
			for ; j < len(s) && j <= i+maxDigits && hexVal(s[j]) >= 0; j++ {
				n = n*16 + hexVal(s[j])
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(c)
				continue
			}
			if c == 'x' {
				b.WriteByte(byte(n))
			} else {
				b.WriteRune(rune(n))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n, j := 0, i
			for ; j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7'; j++ {
				n = n*8 + int(s[j]-'0')
			}
			b.WriteByte(byte(n))
			i = j - 1
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		default: // \\ \' \" \? and unknown escapes
			if !strings.ContainsRune("\\'\"?", rune(c)) {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		}
	}
	return b.String()
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// argvOf reads the words of a call (braces expanded), for the checks that
// look at commands without evaluating them.
func argvOf(c *syntax.CallExpr) []arg {
	argv := make([]arg, 0, len(c.Args))
	for _, w := range c.Args {
		a := readWord(w)
		if a.braces {
			argv = append(argv, a.alts...)
			continue
		}
		argv = append(argv, a)
	}
	return argv
}

// progBase is the program name without its directory ("" for "").
func progBase(a arg) string {
	if a.val == "" {
		return ""
	}
	return path.Base(a.val)
}
