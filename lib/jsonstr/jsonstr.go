// Package jsonstr writes a Go string as a JSON string, byte for byte as
// encoding/json does with HTML escaping off, but without reflection and
// skipping plain text eight and sixteen bytes at a time. The span store
// and the agent's gen_ai messages write most of their text through it.
package jsonstr

import "unicode/utf8"

const hexDigits = "0123456789abcdef"

// Append appends s to b as a JSON string: \" \\ \b \f \n \r \t, \u00XX for
// other control bytes, U+FFFD for each invalid UTF-8 byte, \u2028 and
// \u2029 escaped (they end lines in JavaScript); <, > and & left as they
// are, so a text search finds them.
func Append(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		// Plain bytes sixteen, then eight at a time: most text needs no
		// escaping.
		for i+16 <= len(s) && notPlain(load8(s[i:i+8]))|notPlain(load8(s[i+8:i+16])) == 0 {
			i += 16
		}
		for i+8 <= len(s) && plain8(s[i:i+8]) {
			i += 8
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '"', '\\':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}

// plain8 reports whether none of the 8 bytes of s (len 8) needs escaping
// or decoding: each is printable ASCII other than '"' and '\\'.
func plain8(s string) bool { return notPlain(load8(s)) == 0 }

// load8 is the first 8 bytes of s as a little-endian word (one load).
func load8(s string) uint64 {
	return uint64(s[0]) | uint64(s[1])<<8 | uint64(s[2])<<16 | uint64(s[3])<<24 |
		uint64(s[4])<<32 | uint64(s[5])<<40 | uint64(s[6])<<48 | uint64(s[7])<<56
}

// notPlain has the high bit set in each byte of x (at least in the first
// such byte) that is not printable ASCII or is '"' or '\\'; 0 when all
// eight are plain.
func notPlain(x uint64) uint64 {
	const lo, hi = 0x0101010101010101, 0x8080808080808080
	ctl := (x - 0x20*lo) & ^x & hi // some byte < 0x20
	q := x ^ ('"' * lo)
	bs := x ^ ('\\' * lo)
	return (x & hi) | ctl | (q-lo)&^q&hi | (bs-lo)&^bs&hi
}
