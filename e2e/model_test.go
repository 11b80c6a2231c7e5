package e2e

import (
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

func TestPlainModelListsAndSwitches(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetModels("big-one", "test-model")
	srv.Script(llmtest.Reply{Text: "from big"})
	out, errOut, code := runCo(t, t.TempDir(), env(t, srv), "/model\n/model big-one\nhi\n/status\n", "--plain")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	for _, want := range []string{"fetching models…", "Models of openai (* current):\n  big-one\n* test-model\n",
		"Switched to openai · big-one for the next request on.", "from big", "context window"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// /status after the switch names the new model.
	if !strings.Contains(out, "\nmodel ") || !strings.Contains(strings.SplitN(strings.SplitN(out, "\nmodel ", 2)[1], "\n", 2)[0], "big-one") {
		t.Errorf("/status does not show the switched model:\n%s", out)
	}
	if got := srv.Requests()[0].Body.Model; got != "big-one" {
		t.Errorf("the request asked for %q", got)
	}
}
