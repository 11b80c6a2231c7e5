package e2e

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// rawTerminalControl is what must never reach the terminal raw from co's
// viewers: C0 controls but newline and tab, DEL, C1 controls, bidi overrides.
var rawTerminalControl = regexp.MustCompile("[\x00-\x08\x0b-\x1f\x7f\u0080-\u009f\u202a-\u202e\u2066-\u2069]")

// hostileText is a screen clear, an OSC 52 clipboard write and a bidi
// override, as an MCP server's isError text or a model's reply may carry.
const hostileText = "bad\x1b[2J\x1b]52;c;ZXZpbA==\x07\u202e.txt"

// TestTelemetryViewersNeutraliseEscapes: hostile text from the model (a
// tool name, whose call fails with it in the span's status and name, and the
// reply) is stored in the spans; co tail, co tail --detail and --json, and
// co traces' page show it as visible ␛…, never as escape sequences.
func TestTelemetryViewersNeutraliseEscapes(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "lookup_" + hostileText, Args: `{}`}}},
		llmtest.Reply{Text: "Done: " + hostileText},
	)
	e := env(t, srv)
	if _, errOut, code := runCo(t, t.TempDir(), e, "", "run", "read it"); code != 0 {
		t.Fatal(errOut)
	}
	for _, args := range [][]string{{"tail", "--no-follow"}, {"tail", "--no-follow", "--detail"}, {"tail", "--no-follow", "--json"}} {
		out, errOut, code := runCo(t, t.TempDir(), e, "", args...)
		if code != 0 {
			t.Fatalf("co %v: exit %d %s", args, code, errOut)
		}
		if !strings.Contains(out, "execute_tool lookup_") {
			t.Fatalf("co %v lacks the call:\n%s", args, out)
		}
		if m := rawTerminalControl.FindString(out); m != "" {
			t.Errorf("co %v prints a raw %q:\n%q", args, m, out)
		}
		if args[len(args)-1] != "--json" && !strings.Contains(out, "bad␛[2J␛]52;c;ZXZpbA==␇<U+202E>.txt") {
			t.Errorf("co %v does not show the escapes visibly:\n%s", args, out)
		}
	}
	page := filepath.Join(t.TempDir(), "trace.html")
	if out, errOut, code := runCo(t, t.TempDir(), e, "", "traces", "--no-open", "-o", page); code != 0 {
		t.Fatalf("co traces: exit %d %s %s", code, out, errOut)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if m := rawTerminalControl.FindString(string(b)); m != "" {
		t.Errorf("co traces' page holds a raw %q", m)
	}
	if !strings.Contains(string(b), "lookup_bad␛[2J") {
		t.Errorf("co traces' page does not show the escape visibly")
	}
}
