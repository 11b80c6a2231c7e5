package e2e

import (
	"strings"
	"testing"
)

// A missing or extra argument names the command once: its usage line
// already says which command it is ("co config unset" was named on two
// lines, the error and the hint to run --help).
func TestUsageErrorNamesTheCommandOnce(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"config", "unset"}, "co: missing KEY: co config unset KEY (--help says more)\n"},
		{[]string{"config", "unset", "theme", "dark"}, `co: one argument too many ("dark"): co config unset KEY (--help says more)` + "\n"},
	} {
		_, errOut, code := runCo(t, t.TempDir(), env(t, nil), "", tc.args...)
		if code != 2 || errOut != tc.want {
			t.Errorf("co %s: exit %d, stderr %q; want 2 and %q", strings.Join(tc.args, " "), code, errOut, tc.want)
		}
		if n := strings.Count(errOut, "co config unset"); n != 1 {
			t.Errorf("co %s names the command %d times:\n%s", strings.Join(tc.args, " "), n, errOut)
		}
	}
}
