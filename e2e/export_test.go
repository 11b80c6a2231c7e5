package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
)

// Issue 43: /export in --plain writes the chat's session to the
// workspace; co sessions import of its JSON makes a new session, and
// co run --resume of it sends the model the whole earlier conversation:
// the same messages a resume of the original sends.
func TestExportImportResumeSendsTheWholeConversation(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Rules(
		llmtest.Reply{Match: "write it", ToolCalls: []llmtest.ToolCall{{ID: "call_w", Name: "write_file", Args: `{"path":"hello.txt","content":"hi\n"}`}}},
		llmtest.Reply{Match: "write it", Text: "Wrote hello.txt."},
	)
	srv.SetDefault(llmtest.Reply{Echo: true})
	dir := t.TempDir()
	e := env(t, srv)
	out, errOut, code := runCo(t, dir, e, "write it\ny\nthen say more\n/export json\n/export html\n/export md notes/../talk.md\n/export ../away.md\n", "--plain")
	if code != 0 || !strings.Contains(out, "Wrote hello.txt.") {
		t.Fatalf("the chat failed (exit %d):\n%s%s", code, out, errOut)
	}
	m := regexp.MustCompile(`Exported this session \(([0-9a-f]+)\) to (\S+)\.`).FindAllStringSubmatch(out, -1)
	if len(m) != 3 {
		t.Fatalf("/export said, %d times:\n%s", len(m), out)
	}
	id := m[0][1]
	for i, want := range []string{"co-session-" + id + ".json", "co-session-" + id + ".html", "talk.md"} {
		if m[i][2] != filepath.Join(dir, want) {
			t.Errorf("/export %d wrote %s, want %s", i+1, m[i][2], filepath.Join(dir, want))
		}
		if _, err := os.Stat(filepath.Join(dir, want)); err != nil {
			t.Errorf("/export left no %s: %v", want, err)
		}
	}
	if !strings.Contains(out+errOut, "away.md is outside the workspace") {
		t.Errorf("/export ../away.md was not refused:\n%s%s", out, errOut)
	}
	md, _ := os.ReadFile(filepath.Join(dir, "talk.md"))
	if !strings.Contains(string(md), "#### Tool call: write_file") || !strings.Contains(string(md), "then say more") {
		t.Errorf("the Markdown export lacks the conversation:\n%s", md)
	}

	out, errOut, code = runCo(t, dir, e, "", "sessions", "import", filepath.Join(dir, "co-session-"+id+".json"))
	im := regexp.MustCompile(`as session ([0-9a-f]+)`).FindStringSubmatch(out)
	if code != 0 || im == nil {
		t.Fatalf("co sessions import = %d:\n%s%s", code, out, errOut)
	}
	newID := im[1]
	if newID == id {
		t.Fatal("the import reused the exported id")
	}

	sent := func(resume string) []llmtest.WireMessage {
		t.Helper()
		n := len(srv.Requests())
		out, errOut, code := runCo(t, dir, e, "", "run", "--resume", resume, "next")
		if code != 0 || !strings.Contains(out, "You said: next") {
			t.Fatalf("co run --resume %s = %d:\n%s%s", resume, code, out, errOut)
		}
		reqs := srv.Requests()
		if len(reqs) != n+1 {
			t.Fatalf("co run --resume %s made %d requests", resume, len(reqs)-n)
		}
		validHistory(t, reqs[n])
		return reqs[n].Messages()
	}
	imported := sent(newID)
	original := sent(id)
	if !reflect.DeepEqual(stripSystem(imported), stripSystem(original)) {
		a, _ := json.MarshalIndent(imported, "", " ")
		b, _ := json.MarshalIndent(original, "", " ")
		t.Fatalf("the imported session sent\n%s\nthe original\n%s", a, b)
	}
	all, _ := json.Marshal(imported)
	for _, want := range []string{"write it", "call_w", "write_file", "Wrote hello.txt.", "then say more", "You said: then say more", "next"} {
		if !strings.Contains(string(all), want) {
			t.Errorf("the resumed import did not send %q:\n%s", want, all)
		}
	}
}

// stripSystem is msgs without the system prompt, which names the
// session's id.
func stripSystem(msgs []llmtest.WireMessage) []llmtest.WireMessage {
	var out []llmtest.WireMessage
	for _, m := range msgs {
		if m.Role != "system" {
			out = append(out, m)
		}
	}
	return out
}

// /export in the full-screen chat writes the session to the workspace
// and says where (it runs off the loop, as the other commands that read
// the store do).
func TestFullScreenExportWritesTheSession(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetDefault(llmtest.Reply{Echo: true})
	dir := t.TempDir()
	s := startTUI(t, dir, tuiEnv(t, srv), 120, 30)
	s.ready()
	s.send("remember the tide tables")
	s.waitFor(tuiWait, "You said: remember the tide tables")
	s.send("/export html tides.html")
	s.waitFor(tuiWait, "Exported this session")
	page, err := os.ReadFile(filepath.Join(dir, "tides.html"))
	if err != nil {
		t.Fatalf("/export wrote no tides.html: %v", err)
	}
	for _, want := range []string{"<!doctype html>", "remember the tide tables", "You said: remember the tide tables"} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
