package e2e

import (
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// A command with quotes is shown as it is written, in --plain's call line
// and question: echo 'hi' read as cmd='echo \'hi\''. What came from the
// model is still sanitised: an escape sequence in it shows as ␛.
func TestPlainShowsQuotesAsWritten(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "run_shell_command", Args: `{"cmd":"echo 'hi there' \u001b[2J"}`}}},
		llmtest.Reply{Text: "Not run then."},
	)
	out, _, code := runCo(t, t.TempDir(), env(t, srv), "greet\nn\n", "--plain")
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	want := `run_shell_command(cmd="echo 'hi there' ␛[2J")`
	if !strings.Contains(out, "tool: "+want) || !strings.Contains(out, "Approve "+want+"?") {
		t.Errorf("the call is not shown as written, %s:\n%s", want, out)
	}
	if strings.Contains(out, `\'`) || strings.ContainsRune(out, 0x1b) {
		t.Errorf("an escaped quote or a raw escape is shown:\n%q", out)
	}
}
