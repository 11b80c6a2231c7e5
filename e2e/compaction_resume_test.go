package e2e

import (
	"fmt"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// Issue 39: a chain of co run --continue starts each run from the saved
// compaction. Before, each run after the history passed
// max_history_messages summarised every saved message again, in one
// request that grew with the session; now no run sends more than the
// chain did before it had much history.
func TestRunContinueStartsFromTheSavedCompaction(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	// A summary request's one user message is the transcript ("USER: …").
	srv.Rules(llmtest.Reply{Match: "USER: ", Reusable: true, Text: "- numbered questions, long answers"})
	srv.SetDefault(llmtest.Reply{Text: strings.Repeat("a long answer ", 200), ChunkSize: 4096})
	dir := t.TempDir()
	e := env(t, srv, "CO_CLI_MAX_HISTORY_MESSAGES=20", "CO_CLI_MEMORY_ENABLED=false")
	largest := func(from int) (n, summaries int) {
		for _, r := range srv.Requests()[from:] {
			n = max(n, len(r.Raw))
			if !r.Stream {
				summaries++
			}
		}
		return n, summaries
	}
	const runs, early = 24, 14
	var before int
	for i := 0; i < runs; i++ {
		q := fmt.Sprintf("question %d: %s", i, strings.Repeat("more detail ", 250))
		args := []string{"run", "--continue", q}
		if i == 0 {
			args = []string{"run", q}
		}
		if i == early {
			before, _ = largest(0)
			if _, s := largest(0); s == 0 {
				t.Fatal("no run summarised: the test proves nothing")
			}
		}
		out, errs, code := runCo(t, dir, e, "", args...)
		if code != 0 || !strings.Contains(out, "a long answer") {
			t.Fatalf("run %d: exit %d\n%s\n%s", i, code, out, errs)
		}
	}
	n, s := largest(0)
	t.Logf("largest request of the first %d runs: %d bytes; of all %d: %d (%d summaries)", early, before, runs, n, s)
	if n > before {
		t.Errorf("a later co run --continue sent %d bytes; the first %d runs sent at most %d", n, early, before)
	}
	// co sessions still counts every turn.
	out, _, _ := runCo(t, dir, e, "", "sessions")
	if !strings.Contains(out, fmt.Sprintf("  %d  ", runs)) {
		t.Errorf("co sessions:\n%s", out)
	}
}
