package e2e

import (
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// One session id everywhere: co run --json names it first, co sessions
// lists it, the spans carry it, and --resume continues it.
func TestSessionIDIsOneIDEverywhere(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "Hello."}, llmtest.Reply{Text: "Again."})
	e := env(t, srv)
	dir := t.TempDir()
	out, errOut, code := runCo(t, dir, e, "", "run", "--json", "hi")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	evs := jsonEvents(t, out)
	if evs[0]["type"] != "session" || evs[0]["provider"] == nil || evs[0]["provider"] == "" || evs[0]["model"] == nil || evs[0]["model"] == "" {
		t.Fatalf("first event = %v", evs[0])
	}
	for _, ev := range evs {
		if ev["schema"] != float64(1) {
			t.Errorf("event without schema 1: %v", ev)
		}
	}
	id, _ := evs[0]["id"].(string)
	if list, _, _ := runCo(t, dir, e, "", "sessions"); id == "" || !strings.Contains(list, id) {
		t.Fatalf("co sessions does not list %q:\n%s", id, list)
	}
	for _, r := range spanRows(t, storeFile(e)) {
		if sid := r["resource"].(map[string]any)["session.id"]; sid != id {
			t.Errorf("%s: session.id %v, want %s", r["name"], sid, id)
		}
		if r["name"] == "invoke_agent" && r["attributes"].(map[string]any)["co.session.id"] != id {
			t.Errorf("invoke_agent co.session.id = %v", r["attributes"])
		}
	}
	out, errOut, code = runCo(t, dir, e, "", "run", "--json", "--resume", id, "again")
	if code != 0 || jsonEvents(t, out)[0]["id"] != id {
		t.Fatalf("--resume %s: exit %d %s %s", id, code, out, errOut)
	}
}
