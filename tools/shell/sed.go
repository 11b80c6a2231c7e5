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
	i, n, depth := 0, len(s), 0
	ws := func() {
		for i < n && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	delimited := func(d byte) bool {
		for i < n {
			c := s[i]
			if c == '\n' {
				return false
			}
			i++
			if c == '\\' {
				i++
				continue
			}
			if c == d {
				return true
			}
		}
		return false
	}
	addr := func(second bool) bool {
		if i >= n {
			return true
		}
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			for i < n && s[i] >= '0' && s[i] <= '9' {
				i++
			}
			if i < n && s[i] == '~' {
				i++
				for i < n && s[i] >= '0' && s[i] <= '9' {
					i++
				}
			}
		case c == '$':
			i++
		case second && (c == '+' || c == '~'):
			i++
			start := i
			for i < n && s[i] >= '0' && s[i] <= '9' {
				i++
			}
			return i > start
		case c == '/' || c == '\\':
			d := byte('/')
			if c == '\\' {
				if i+1 >= n || s[i+1] == '\n' || s[i+1] == '\\' || s[i+1] >= utf8.RuneSelf {
					return false
				}
				d = s[i+1]
				i++
			}
			i++
			if !delimited(d) {
				return false
			}
			for i < n && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		}
		return true
	}
	for {
		for i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == ';') {
			i++
		}
		if i >= n {
			return depth == 0
		}
		if s[i] == '}' {
			if depth == 0 {
				return false
			}
			depth--
			i++
			continue
		}
		if !addr(false) {
			return false
		}
		ws()
		if i < n && s[i] == ',' {
			i++
			ws()
			if i >= n || !addr(true) {
				return false
			}
		}
		ws()
		for i < n && s[i] == '!' {
			i++
			ws()
		}
		if i >= n {
			return false
		}
		c := s[i]
		i++
		switch c {
		case '{':
			depth++
			continue
		case 'p', 'P', '=', 'l':
		case 'q', 'Q':
			ws()
			for i < n && s[i] >= '0' && s[i] <= '9' {
				i++
			}
		case 's':
			if i >= n || s[i] == '\n' || s[i] == '\\' || s[i] >= utf8.RuneSelf {
				return false
			}
			d := s[i]
			i++
			if !delimited(d) || !delimited(d) {
				return false
			}
			for i < n && strings.IndexByte("gpiImM0123456789", s[i]) >= 0 {
				i++
			}
		default:
			return false
		}
		ws()
		if i < n && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
			return false
		}
	}
}
