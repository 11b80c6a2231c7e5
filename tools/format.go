package tools

import (
	"fmt"
	"strconv"
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
