package mcp

import (
	"strings"
	"testing"
)

// The first line on a stdio server's stdout that cannot be JSON-RPC is
// quoted, escaped and cut on a character boundary; JSON lines, blank lines
// and indentation before '{' are not junk, however the reads split them.
func TestJunkWatch(t *testing.T) {
	long := strings.Repeat("é", 40) // 80 bytes
	for _, tc := range []struct {
		name  string
		reads []string
		want  string // the quoted part; "" for none
	}{
		{"json only", []string{`{"jsonrpc":"2.0"}` + "\n", "  [1]\n", "\n"}, ""},
		{"banner first", []string{"hello \x1b[2J world\n{}\n"}, `"hello \x1b[2J world"`},
		{"after a message, split reads", []string{`{"a":1}` + "\n  lo", "g: ready\n", "more junk\n"}, `"log: ready"`},
		{"long, multibyte", []string{long + "\n"}, `"` + strings.Repeat("é", 30) + `"…`},
		{"cut inside a character", []string{"a" + long + "\n"}, `"a` + strings.Repeat("é", 29) + `"…`},
		{"no newline yet", []string{"Usage: server [options]"}, `"Usage: server [options]"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j := newJunkWatch()
			for _, r := range tc.reads {
				j.see([]byte(r))
			}
			got := j.explain()
			if tc.want == "" {
				if got != "" {
					t.Errorf("junk found: %q", got)
				}
				return
			}
			want := "the server wrote something that is not JSON-RPC to stdout: " + tc.want + " ("
			if !strings.HasPrefix(got, want) {
				t.Errorf("got  %q\nwant %q…", got, want)
			}
			if strings.Contains(got, "\x1b") {
				t.Errorf("a raw escape: %q", got)
			}
		})
	}
	if (*junkWatch)(nil).explain() != "" {
		t.Error("a remote server (no watch) has junk")
	}
}
