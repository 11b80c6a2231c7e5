package e2e

import (
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// A count of one reads in the singular: co status against a server that
// lists one model said "yes (1 models listed)".
func TestStatusCountsOneModelInTheSingular(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetModels("test-model")
	out, errOut, code := runCo(t, t.TempDir(), env(t, srv), "", "status")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if !hasRow(out, "reachable", "yes (1 model listed)") {
		t.Errorf("co status does not say one model in the singular:\n%s", out)
	}
}

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
