package tools

import (
	"fmt"
	"strconv"
	"strings"
)

// Clamp is a tool's count argument made safe: v, or def when v <= 0 (the
// model left it out), at most max.
func Clamp(v, def, max int) int {
	if v <= 0 {
		v = def
	}
	if v > max {
		v = max
	}
	return v
}

// Size renders a byte count for people: 512 B, 4 KB, 1.5 MB, 2 GB.
func Size(n int64) string {
	units := []string{"B", "KB", "MB", "GB"}
	f, i := float64(n), 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if f == float64(int64(f)) {
		return strconv.FormatInt(int64(f), 10) + " " + units[i]
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}

// HeadTail keeps at most max characters of s, as the shell keeps a
// command's output (sandbox): the first quarter and the last three
// quarters, a line between them saying how many characters were left out,
// since what went wrong is usually at the end. cut is false when s fits.
func HeadTail(s string, max int) (kept string, cut bool) {
	n := 0
	for range s {
		n++
	}
	if n <= max {
		return s, false
	}
	r := []rune(s)
	h := max / 4
	head, tail := string(r[:h]), string(r[n-(max-h):])
	note := fmt.Sprintf("[… output truncated: kept the first %d and the last %d of %d characters; the %d between are left out …]", h, max-h, n, n-max)
	if head != "" && !strings.HasSuffix(head, "\n") {
		head += "\n"
	}
	return head + note + "\n" + tail, true
}

// CutRunes is s's first n characters (runes), s itself when it is no
// longer: a cut never splits a character.
func CutRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}
