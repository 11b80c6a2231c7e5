package shell

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// checkSed allows sed -n with print-only scripts.
func checkSed(args []arg, _ bool) string {
	quiet := false
	var scripts []string
	fromOption := false
	operandScript := func(a arg) {
		if !fromOption && len(scripts) == 0 {
			scripts = append(scripts, a.val)
		}
	}
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if v == "--" {
			if i+1 < len(args) {
				operandScript(args[i+1])
			}
			break
		}
		if name, ok := strings.CutPrefix(v, "--"); ok {
			name, val, eq := strings.Cut(name, "=")
			switch name {
			case "quiet", "silent":
				quiet = true
			case "regexp-extended", "separate", "unbuffered", "null-data", "zero-terminated", "posix", "sandbox", "debug":
			case "expression":
				if !eq {
					if i+1 >= len(args) {
						return "sed --expression without a script"
					}
					i++
					val = args[i].val
				}
				scripts = append(scripts, val)
				fromOption = true
			case "line-length":
				if !eq {
					i++
				}
			case "in-place":
				return "sed --in-place edits files"
			default:
				return "sed --" + name + " is not allowed (only sed -n with a print-only script is)"
			}
			continue
		}
		if len(v) > 1 && v[0] == '-' {
		group:
			for j := 1; j < len(v); j++ {
				switch v[j] {
				case 'n':
					quiet = true
				case 'E', 'r', 's', 'u', 'z':
				case 'e', 'l':
					val := v[j+1:]
					if val == "" {
						if i+1 >= len(args) {
							return "sed -" + string(v[j]) + " without a value"
						}
						i++
						val = args[i].val
					}
					if v[j] == 'e' {
						scripts = append(scripts, val)
						fromOption = true
					}
					break group
				case 'i':
					return "sed -i edits files in place"
				default:
					return fmt.Sprintf("sed -%c is not allowed (only sed -n with a print-only script is)", v[j])
				}
			}
			continue
		}
		operandScript(args[i])
	}
	if !quiet || len(scripts) == 0 {
		return "sed is only allowed as sed -n with a print-only script"
	}
	for _, s := range scripts {
		if !sedPrintOnly(s) {
			return "sed script " + quoteShort(s) + " is not print-only (w, e, r and s///w write files or run commands)"
		}
	}
	return ""
}

func quoteShort(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// sedPrintOnly reports whether a sed script uses only addresses and the
// commands p P = l q Q, s///FLAGS with FLAGS in gpiImM0-9, and { } !.
// Delimiters are found the way GNU sed finds them: a backslash escapes the
// next character, nothing else is special.
func sedPrintOnly(s string) bool {
	sc := &sedScanner{s: s}
	depth := 0
	for {
		sc.skip(sedBetween)
		switch {
		case sc.done():
			return depth == 0
		case sc.at('}'):
			if depth == 0 {
				return false
			}
			depth--
			sc.i++
		default:
			open, ok := sc.command()
			if !ok {
				return false
			}
			if open {
				depth++
			}
		}
	}
}

// sedScanner reads a sed script for sedPrintOnly, one command at a time.
// i may run one past the end after a trailing backslash; done covers that.
type sedScanner struct {
	s string
	i int
}

// sedSet is a set of bytes, for sedScanner.skip.
type sedSet [256]bool

func newSedSet(chars string) *sedSet {
	var set sedSet
	for i := 0; i < len(chars); i++ {
		set[chars[i]] = true
	}
	return &set
}

var (
	sedBlanks    = newSedSet(" \t")
	sedBetween   = newSedSet(" \t\n;") // between commands
	sedEnds      = newSedSet(";\n}")   // what may follow a command
	sedDigits    = newSedSet("0123456789")
	sedAddrFlags = newSedSet("IM")
	sedSFlags    = newSedSet("gpiImM0123456789")
)

func (sc *sedScanner) done() bool { return sc.i >= len(sc.s) }

// at reports whether the next byte is c.
func (sc *sedScanner) at(c byte) bool { return sc.i < len(sc.s) && sc.s[sc.i] == c }

// skip moves past any bytes in set.
func (sc *sedScanner) skip(set *sedSet) {
	for sc.i < len(sc.s) && set[sc.s[sc.i]] {
		sc.i++
	}
}

// digits moves past a run of digits and reports whether there was one.
func (sc *sedScanner) digits() bool {
	start := sc.i
	sc.skip(sedDigits)
	return sc.i > start
}

// command reads one command with its addresses and any !, up to the ; newline
// or } that ends it; open reports a { that starts a block.
func (sc *sedScanner) command() (open, ok bool) {
	if !sc.addresses() {
		return false, false
	}
	for sc.at('!') {
		sc.i++
		sc.skip(sedBlanks)
	}
	if sc.done() {
		return false, false
	}
	c := sc.s[sc.i]
	sc.i++
	if c == '{' {
		return true, true
	}
	if !sc.body(c) {
		return false, false
	}
	sc.skip(sedBlanks)
	return false, sc.done() || sedEnds[sc.s[sc.i]]
}

// addresses reads an optional address or address range and the blanks
// after it.
func (sc *sedScanner) addresses() bool {
	if !sc.address(false) {
		return false
	}
	sc.skip(sedBlanks)
	if sc.at(',') {
		sc.i++
		sc.skip(sedBlanks)
		if sc.done() || !sc.address(true) {
			return false
		}
	}
	sc.skip(sedBlanks)
	return true
}

// address reads one address, if there is one: N, N~M, $, /re/ or \cREc
// with I and M flags, and as the second of a range +N and ~N.
func (sc *sedScanner) address(second bool) bool {
	if sc.done() {
		return true
	}
	switch c := sc.s[sc.i]; {
	case c >= '0' && c <= '9':
		sc.digits()
		if sc.at('~') {
			sc.i++
			sc.digits()
		}
	case c == '$':
		sc.i++
	case second && (c == '+' || c == '~'):
		sc.i++
		return sc.digits()
	case c == '/' || c == '\\':
		return sc.regexAddress()
	}
	return true
}

// regexAddress reads /re/ or \cREc and its I and M flags.
func (sc *sedScanner) regexAddress() bool {
	d := byte('/')
	if sc.at('\\') {
		sc.i++
		if sc.done() || !sedDelimiter(sc.s[sc.i]) {
			return false
		}
		d = sc.s[sc.i]
	}
	sc.i++
	if !sc.delimited(d) {
		return false
	}
	sc.skip(sedAddrFlags)
	return true
}

// body reads what follows the command letter c; only print-only commands
// are read, any other fails.
func (sc *sedScanner) body(c byte) bool {
	switch c {
	case 'p', 'P', '=', 'l':
		return true
	case 'q', 'Q':
		sc.skip(sedBlanks)
		sc.skip(sedDigits)
		return true
	case 's':
		return sc.substitute()
	}
	return false
}

// substitute reads the /re/replacement/flags of an s command; flags that
// write files or run commands (w, e) fail.
func (sc *sedScanner) substitute() bool {
	if sc.done() || !sedDelimiter(sc.s[sc.i]) {
		return false
	}
	d := sc.s[sc.i]
	sc.i++
	for range 2 { // the regex, then the replacement
		if !sc.delimited(d) {
			return false
		}
	}
	sc.skip(sedSFlags)
	return true
}

// sedDelimiter reports whether c may delimit a regex or an s command.
func sedDelimiter(c byte) bool {
	return c != '\n' && c != '\\' && c < utf8.RuneSelf
}

// delimited moves past the text up to and including the delimiter d; a
// backslash escapes the next byte and a newline fails.
func (sc *sedScanner) delimited(d byte) bool {
	for sc.i < len(sc.s) {
		c := sc.s[sc.i]
		if c == '\n' {
			return false
		}
		sc.i++
		if c == '\\' {
			sc.i++
			continue
		}
		if c == d {
			return true
		}
	}
	return false
}
