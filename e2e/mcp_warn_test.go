package e2e

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/tools/mcp/mcptest"
)

// brokenMCPJSON is the reference server beside four broken ones, each as a
// new user breaks them (issue 27): a missing binary, an unset ${VAR}, a
// refused URL, a server that writes a banner (with an escape sequence) to
// stdout.
func brokenMCPJSON(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refused := "http://" + l.Addr().String() + "/mcp"
	l.Close()
	return `{"everything": {"command": "node", "args": ["` + mcptest.Everything(t) + `", "stdio"]},
		"gone": {"command": "` + filepath.Join(t.TempDir(), "no-such-mcp-server") + `"},
		"unset": {"command": "node", "args": ["${CO_TEST_SURELY_UNSET}"]},
		"refused": {"url": "` + refused + `"},
		"junk": {"command": "sh", "args": ["-c", "printf 'hello \\033[2J world\\n'; exec sleep 30"]}}`
}

// What each front end must say about the broken servers, without a prompt.
var brokenMCPSaid = []string{
	// In words, with the setting to check (not "fork/exec …", "dial tcp …"):
	// the rest of each line is brokenMCPWords.
	"MCP server gone failed to start: command ",
	"MCP server unset failed to start: the settings reference ${CO_TEST_SURELY_UNSET}, which is not set",
	"MCP server refused failed to start: could not connect to http://127.0.0.1:",
	`MCP server junk failed to start: the server wrote something that is not JSON-RPC to stdout: "hello \x1b[2J world"`,
}

// brokenMCPWords end the lines of brokenMCPSaid that name a path or port.
var brokenMCPWords = []string{
	"no-such-mcp-server not found — check mcp_servers.gone.command",
	"/mcp: connection refused — is the server running? (mcp_servers.refused.url)",
}

// The full-screen chat shows each broken MCP server when it fails, before
// any prompt, and its banner counts the reference server's tools once
// connected.
func TestTUIShowsMCPFailuresAtStart(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	e := tuiEnv(t, srv)
	mcpSettings(t, e, brokenMCPJSON(t))
	s := startTUI(t, t.TempDir(), e, 160, 50)
	s.ready()
	scr := s.waitFor(tuiWait, append([]string{"MCP server everything connected: 15 tools", "29 (15 from MCP; MCP: 4 failed: gone, junk, refused, unset)"},
		// A notice wraps at the pane's width: its first words suffice.
		"MCP server gone failed to start", "MCP server unset failed to start", "MCP server refused failed to start",
		"MCP server junk failed to start: the server wrote something that is not JSON-RPC to stdout:")...)
	if strings.Contains(scr, "invalid character") {
		t.Errorf("the decoder's error is shown:\n%s", scr)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests: nothing was asked", n)
	}
}

// --plain prints each broken MCP server when it fails, at the prompt; its
// banner says the servers are starting, not a count without their tools.
func TestPlainShowsMCPFailuresAtStart(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	e := env(t, srv)
	mcpSettings(t, e, brokenMCPJSON(t))
	p := start(t, t.TempDir(), e, "--plain")
	p.waitFor("tools: 14 (MCP: 5 servers starting)", tuiWait)
	for _, want := range brokenMCPSaid {
		p.waitFor("warning: "+want, tuiWait)
	}
	p.waitFor("note: MCP server everything connected: 15 tools", tuiWait)
	for _, want := range brokenMCPWords {
		p.waitFor(want, tuiWait)
	}
	if strings.Contains(p.stdout.String(), "\x1b") || strings.Contains(p.stdout.String(), "invalid character") {
		t.Errorf("a raw escape or the decoder's error:\n%q", p.stdout.String())
	}
	// A turn does not say it all again.
	srv.Script(llmtest.Reply{Text: "hello there"})
	p.send("hi")
	p.waitFor("hello there", tuiWait)
	p.stdin.Close()
	p.wait(tuiWait)
	if n := p.count("MCP server gone failed to start"); n != 1 {
		t.Errorf("the failure was said %d times", n)
	}
}

// co run says on stderr which servers failed; the answer on stdout has
// none of it.
func TestRunSaysMCPFailuresOnStderr(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "the answer"})
	e := env(t, srv)
	mcpSettings(t, e, brokenMCPJSON(t))
	out, errOut, code := runCo(t, t.TempDir(), e, "", "run", "hi")
	if code != 0 || strings.TrimSpace(out) != "the answer" {
		t.Fatalf("exit %d, stdout %q\n%s", code, out, errOut)
	}
	for _, want := range brokenMCPSaid {
		if !strings.Contains(errOut, "note: "+want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	for _, want := range brokenMCPWords {
		if !strings.Contains(errOut, want) {
			t.Errorf("stderr lacks %q:\n%s", want, errOut)
		}
	}
	if strings.Contains(errOut, "\x1b") {
		t.Errorf("a raw escape on stderr:\n%q", errOut)
	}
}

// co mcp list exits 1 when no server connected and some failed, 0 when one
// connected; co status has an MCP line and counts the MCP tools.
func TestMCPListExitAndStatusLine(t *testing.T) {
	srv := llmtest.NewServer() // the provider answers: co status exits 0
	defer srv.Close()
	e := env(t, srv)
	mcpSettings(t, e, `{"gone": {"command": "`+filepath.Join(t.TempDir(), "no-such-mcp-server")+`"}, "off": {"command": "true", "enabled": false}}`)
	out, errOut, code := runCo(t, t.TempDir(), e, "", "mcp", "list")
	if code != 1 || !strings.Contains(out, "gone (local): failed: ") ||
		!strings.Contains(errOut, "co: no MCP server connected: 1 failed (gone)") {
		t.Errorf("every server failed: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, code = runCo(t, t.TempDir(), e, "", "status")
	if code != 0 {
		t.Fatalf("co status: %d\n%s", code, errOut)
	}
	for _, want := range []string{"tools 14 (MCP: 1 failed: gone)\n", "mcp 1 failed, 1 disabled", "\ngone: failed: ", "\noff: disabled\n"} {
		if !strings.Contains(squeeze(out), want) {
			t.Errorf("co status lacks %q:\n%s", want, out)
		}
	}

	mcpSettings(t, e, brokenMCPJSON(t))
	if out, errOut, code := runCo(t, t.TempDir(), e, "", "mcp", "list"); code != 0 {
		t.Errorf("one connected: exit %d\n%s\n%s", code, out, errOut)
	}
	out, errOut, _ = runCo(t, t.TempDir(), e, "", "status")
	// It says what it waits for, and for its own bound, not the servers'.
	if !strings.Contains(errOut, "to start (up to 10 s)…") {
		t.Errorf("co status did not say it waits:\n%s", errOut)
	}
	for _, want := range []string{"tools 29 (15 from MCP; MCP: 4 failed: gone, junk, refused, unset)\n", "mcp 1 connected, 4 failed",
		"\neverything: connected, 15 tools", "\n" + `junk: failed: the server wrote something that is not JSON-RPC to stdout: "hello \x1b[2J world"`} {
		if !strings.Contains(squeeze(out), want) {
			t.Errorf("co status lacks %q:\n%s", want, out)
		}
	}
}

// squeeze is a report with each line's runs of spaces made one and its
// indentation dropped: the columns' widths depend on the rows.
func squeeze(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.Join(strings.Fields(l), " ")
	}
	return strings.Join(lines, "\n")
}

// A project's server that fails right after /mcp trust is reported then,
// not at the next prompt.
func TestPlainMCPTrustFailureShown(t *testing.T) {
	dir := t.TempDir()
	project := `{"mcp_servers": {"repo": {"command": "./no-such-server"}}}`
	if err := os.MkdirAll(filepath.Join(dir, ".co-cli"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".co-cli", "settings.json"), []byte(project), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer()
	defer srv.Close()
	p := start(t, dir, env(t, srv), "--plain")
	p.waitFor("co> ", tuiWait)
	p.send("/mcp trust repo")
	p.waitFor("Let co start MCP server repo as defined above", tuiWait)
	p.send("y")
	p.waitFor("Trusted MCP server repo", tuiWait)
	p.waitFor("warning: MCP server repo failed to start: ", tuiWait)
}

// The full-screen chat says at start that a project's server waits for
// consent, and, after /mcp trust and y, that it failed — without a prompt.
func TestTUIMCPTrustFailureShown(t *testing.T) {
	dir := t.TempDir()
	project := `{"mcp_servers": {"repo": {"command": "./no-such-server"}}}`
	if err := os.MkdirAll(filepath.Join(dir, ".co-cli"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".co-cli", "settings.json"), []byte(project), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer()
	defer srv.Close()
	s := startTUI(t, dir, tuiEnv(t, srv), 160, 50)
	s.ready()
	s.waitFor(tuiWait, "MCP server repo is declared by this project and waits for your consent", "(MCP awaiting consent: repo)")
	s.send("/mcp trust repo")
	s.waitFor(tuiWait, "Type y to confirm")
	s.send("y")
	s.waitFor(tuiWait, "MCP server repo failed to start: ", "(MCP: 1 failed: repo)")
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests: nothing was asked", n)
	}
}
