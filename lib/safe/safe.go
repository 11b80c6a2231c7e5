// Package safe is the one sanitiser that text from the LLM, tools, files or
// the network passes through before it reaches the terminal, in every front
// end and in telemetry's viewers (co tail, co traces, co logs) alike. It
// neutralises everything that could drive the terminal instead of being
// shown: escape sequences (CSI, OSC — including OSC 52 clipboard writes and
// OSC 8 links —, DCS, APC, PM, SOS), C1 controls, and the C0 controls other
// than newline and tab (a lone carriage return or backspace could overwrite
// what the user sees). ESC becomes a visible ␛ so a hostile reply is
// noticed, not obeyed. Bidirectional overrides, embeddings, isolates and
// marks and the zero-width characters that hide text (U+202E, U+200B, …)
// are shown as visible markers such as <U+202E> everywhere, so a reply
// cannot reorder or hide what the user reads; only the joiners U+200C and
// U+200D, which scripts and emoji need, are kept in ordinary text (Reveal
// marks them too).
//
// Text is stateless: it may be applied to a stream chunk by chunk with the
// same result as to the whole text.
package safe

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Text returns s with control characters neutralised: ESC (and so every
// escape sequence) is shown as ␛, other C0 and C1 controls and DEL are
// shown as their Unicode control pictures or dropped (CR), tab and newline
// are kept. Bidirectional controls and hiding zero-width characters are
// shown as <U+XXXX> (the joiners U+200C and U+200D are kept). Invalid UTF-8
// bytes become U+FFFD.
func Text(s string) string {
	if isPlain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteRune('\uFFFD')
		case r == '\n' || r == '\t':
			b.WriteRune(r)
		case r == '\r':
			// CRLF becomes LF; a lone CR (which would overwrite the line) is dropped.
		case r == 0x1b:
			b.WriteRune('␛')
		case r < 0x20:
			b.WriteRune(0x2400 + r) // control pictures: ␀ ␁ … ␟ (␈ for backspace)
		case r == 0x7f:
			b.WriteRune('␡')
		case r >= 0x80 && r <= 0x9f, hiding(r):
			fmt.Fprintf(&b, "<U+%04X>", r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isPlain reports whether s needs no change: valid UTF-8 with no control
// characters but newline and tab. It is the fast path for ordinary text.
func isPlain(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
			return false
		}
		if c >= 0x80 {
			return plainUnicode(s[i:])
		}
	}
	return true
}

func plainUnicode(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f || hiding(r) {
			return false
		}
		i += size
	}
	return true
}

// invisible are the characters that change how text reads without showing:
// bidirectional overrides and isolates, zero-width characters.
func invisible(r rune) bool {
	switch {
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069, r == 0x200E, r == 0x200F, r == 0x061C:
		return true // bidi embeddings, overrides, isolates, marks
	case r >= 0x200B && r <= 0x200D, r == 0x2060, r == 0xFEFF, r == 0x180E, r == 0x00AD:
		return true // zero-width space/joiners, word joiner, BOM, soft hyphen
	}
	return false
}

// hiding are the invisible characters Text marks: all of them but the
// zero-width joiner and non-joiner, which scripts and emoji sequences need.
func hiding(r rune) bool { return r != 0x200C && r != 0x200D && invisible(r) }

// Reveal is Text that also marks the zero-width joiners, e.g. <U+200D>. Use
// it where the user decides on what they read: the approval modal and
// approval prompts.
func Reveal(s string) string {
	s = Text(s)
	if !strings.ContainsFunc(s, invisible) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if invisible(r) {
			fmt.Fprintf(&b, "<U+%04X>", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// HasHidden reports whether s contains characters Reveal would mark.
func HasHidden(s string) bool { return strings.ContainsFunc(s, invisible) }

// unsafeRune reports whether Text would change r (a valid rune): the C0
// controls but newline and tab, DEL, the C1 controls and the invisible
// characters.
func unsafeRune(r rune) bool {
	return r < 0x20 && r != '\n' && r != '\t' || r >= 0x7f && r <= 0x9f || invisible(r)
}

// EscapeJSON rewrites encoded JSON (as encoding/json writes it: valid UTF-8,
// C0 controls already escaped) so that every character Text would change is
// written as a \uXXXX escape instead of raw. It is lossless: the JSON decodes
// to the same values, and safe to print. Such characters only occur inside
// strings, where the escape means the same character.
func EscapeJSON(b []byte) []byte {
	clean := true
	for _, r := range string(b) {
		if unsafeRune(r) {
			clean = false
			break
		}
	}
	if clean {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for _, r := range string(b) {
		if unsafeRune(r) {
			out = fmt.Appendf(out, "\\u%04x", r)
			continue
		}
		out = utf8.AppendRune(out, r)
	}
	return out
}
