package count

import "testing"

func TestOf(t *testing.T) {
	for _, tc := range []struct {
		n    int
		one  string
		many []string
		want string
	}{
		{0, "model", nil, "0 models"},
		{1, "model", nil, "1 model"},
		{2, "model", nil, "2 models"},
		{-1, "byte", nil, "-1 byte"},
		{1, "entry", []string{"entries"}, "1 entry"},
		{12, "entry", []string{"entries"}, "12 entries"},
		{1, "tool result", nil, "1 tool result"},
	} {
		if got := Of(tc.n, tc.one, tc.many...); got != tc.want {
			t.Errorf("Of(%d, %q, %q) = %q, want %q", tc.n, tc.one, tc.many, got, tc.want)
		}
	}
}
