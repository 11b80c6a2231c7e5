package sandbox

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// parseBytes parses a memory size the way Docker's --memory does: a number with an optional
// binary unit, b, k, m, g or t, optionally followed by "b" or "ib", case-insensitive ("512m",
// "1g", "1.5GiB", "65536"). The result is positive.
func parseBytes(s string) (int64, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	t = strings.TrimSuffix(t, "ib")
	t = strings.TrimSuffix(t, "b")
	mult := int64(1)
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'k':
			mult = 1 << 10
		case 'm':
			mult = 1 << 20
		case 'g':
			mult = 1 << 30
		case 't':
			mult = 1 << 40
		}
		if mult != 1 {
			t = t[:n-1]
		}
	}
	if t == "" || strings.ContainsAny(t, "+-eE") { // no signs, no exponents, no "Inf"/"NaN"
		return 0, fmt.Errorf("invalid size %q (want e.g. 512m or 1g)", s)
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, fmt.Errorf("invalid size %q (want e.g. 512m or 1g)", s)
	}
	v := f * float64(mult)
	if v < 1 || v > math.MaxInt64/2 {
		return 0, fmt.Errorf("size %q out of range", s)
	}
	return int64(v), nil
}
