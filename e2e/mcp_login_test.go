package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/tools/mcp/mcptest"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// browserEnv makes this test binary co's $BROWSER (scriptedBrowser),
// recording each page it is given in the returned file.
func browserEnv(t *testing.T) (extra []string, visited string) {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	visited = filepath.Join(t.TempDir(), "visited")
	return []string{"BROWSER=" + self, "CO_E2E_BROWSER=1", "CO_E2E_BROWSER_LOG=" + visited}, visited
}

// A remote server that needs a login: co run calls none of its tools,
// opens no browser and says how to log in; co mcp list shows it as needing
// a login, not failed (and does not exit 1 for it).
func TestMCPNeedsLoginHeadless(t *testing.T) {
	oauth := mcptest.NewOAuthServer(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "Nothing to call."})
	extra, visited := browserEnv(t)
	e := env(t, srv, extra...)
	mcpSettings(t, e, `{"hosted": {"url": "`+oauth.URL+`"}}`)
	out, errOut, code := runCo(t, t.TempDir(), e, "", "run", "who am I?")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	if !strings.Contains(out+errOut, "MCP server hosted needs you to log in: run co mcp login hosted") {
		t.Errorf("co run did not say how to log in:\n%s%s", out, errOut)
	}
	if _, err := os.Stat(visited); err == nil || oauth.Registered() != 0 || len(oauth.Authorized()) != 0 {
		t.Errorf("a headless run started a login (browser log: %v; %d registrations)", err, oauth.Registered())
	}
	out, errOut, code = runCo(t, t.TempDir(), e, "", "mcp", "list")
	if code != 0 || !strings.Contains(out, "hosted (remote): needs login — run co mcp login hosted or /mcp login hosted") {
		t.Errorf("co mcp list: exit %d\n%s%s", code, out, errOut)
	}
}

// co mcp login with the scripted browser: the page printed, the browser
// sent to it, the server connected; the token is in the data directory
// only (never the settings, the terminal or the span store, even when a
// tool returns it and the model repeats it); co mcp logout deletes it.
func TestMCPLoginTokenStaysPrivate(t *testing.T) {
	oauth := mcptest.NewOAuthServer(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	extra, visited := browserEnv(t)
	e := env(t, srv, extra...)
	mcpSettings(t, e, `{"hosted": {"url": "`+oauth.URL+`", "approve": "auto"}}`)
	dir := t.TempDir()
	out, errOut, code := runCo(t, dir, e, "", "mcp", "login", "hosted")
	if code != 0 {
		t.Fatalf("co mcp login: exit %d\n%s%s", code, out, errOut)
	}
	if !regexp.MustCompile(`To log in to MCP server hosted, visit http://127\.0\.0\.1:\d+/authorize\?\S+ \(opening it in your browser\)`).MatchString(errOut) {
		t.Errorf("the page was not printed:\n%s", errOut)
	}
	if b, _ := os.ReadFile(visited); !bytes.Contains(b, []byte("/authorize?")) {
		t.Errorf("the browser was not sent to the page: %q", b)
	}
	if !strings.Contains(out, "Logged in to MCP server hosted.") || !strings.Contains(out, "hosted (remote, approve auto): connected, 1 tool") {
		t.Errorf("co mcp login:\n%s", out)
	}
	home := strings.TrimPrefix(e[0], "HOME=")
	stored, err := os.ReadFile(filepath.Join(home, ".local", "share", "co-cli", "mcp-auth", "hosted.json"))
	if err != nil {
		t.Fatal(err)
	}
	token := regexp.MustCompile(`at-[A-Z0-9]+`).FindString(string(stored))
	if token == "" {
		t.Fatalf("no access token stored:\n%s", stored)
	}

	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "mcp__hosted__whoami", Args: `{}`}}},
		llmtest.Reply{Text: "Your token is " + token + "."}, // the model repeating it
	)
	out, errOut, code = runCo(t, dir, e, "", "run", "who am I?")
	if code != 0 {
		t.Fatalf("co run: exit %d\n%s%s", code, out, errOut)
	}
	if r := srv.Requests(); len(r) != 2 || !strings.Contains(strings.Join(r[1].ToolResults(), ""), "your token is "+token) {
		t.Fatalf("the call did not carry the stored token: %d requests\n%s%s", len(r), out, errOut)
	}
	settings, _ := os.ReadFile(filepath.Join(home, ".config", "co-cli", "settings.json"))
	if bytes.Contains(settings, []byte(token)) {
		t.Error("the token is in the settings")
	}
	var all []byte
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		b, _ := os.ReadFile(storeFile(e) + suffix)
		all = append(all, b...)
	}
	if !bytes.Contains(all, []byte("mcp__hosted__whoami")) {
		t.Fatal("the call is not in the span store: this test would prove nothing")
	}
	if bytes.Contains(all, []byte(token)) {
		t.Error("the token is in the span store")
	}

	out, errOut, code = runCo(t, dir, e, "", "mcp", "logout", "hosted")
	if code != 0 || !strings.Contains(out, "Logged out of MCP server hosted") {
		t.Fatalf("co mcp logout: exit %d\n%s%s", code, out, errOut)
	}
	if out, _, _ := runCo(t, dir, e, "", "mcp", "list"); !strings.Contains(out, "needs login") {
		t.Errorf("after logout co mcp list says:\n%s", out)
	}
}

// In --plain, a server needing a login is said at start; /mcp login runs
// the flow in the background (the page told as a note, the scripted
// browser sent to it) and the server connects; /mcp logout forgets it.
func TestPlainMCPSlashLogin(t *testing.T) {
	oauth := mcptest.NewOAuthServer(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	extra, visited := browserEnv(t)
	e := env(t, srv, extra...)
	mcpSettings(t, e, `{"hosted": {"url": "`+oauth.URL+`"}}`)
	p := start(t, t.TempDir(), e, "--plain")
	p.waitFor("warning: MCP server hosted needs you to log in: run co mcp login hosted (or /mcp login hosted in the chat)", tuiWait)
	p.send("/mcp login hosted")
	p.waitFor("To log in to MCP server hosted, visit http://127.0.0.1:", tuiWait)
	p.waitFor("note: MCP server hosted connected: 1 tool", tuiWait)
	if b, _ := os.ReadFile(visited); !bytes.Contains(b, []byte("/authorize?")) {
		t.Errorf("the browser was not sent to the page: %q", b)
	}
	p.send("/mcp")
	p.waitFor("hosted (remote): connected, 1 tool", tuiWait)
	p.waitForNew("warning: MCP server hosted needs you to log in", tuiWait, func() { p.send("/mcp logout hosted") })
	p.waitFor("Logged out of MCP server hosted", tuiWait)
	p.stdin.Close()
	p.wait(tuiWait)
}

// The full-screen chat: the server needing a login is said as it happens,
// /mcp login runs in the background with the scripted browser, and the
// server's connection is told when it comes.
func TestTUIMCPSlashLogin(t *testing.T) {
	oauth := mcptest.NewOAuthServer(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	extra, visited := browserEnv(t)
	e := tuiEnv(t, srv, extra...)
	mcpSettings(t, e, `{"hosted": {"url": "`+oauth.URL+`"}}`)
	s := startTUI(t, t.TempDir(), e, 120, 40)
	s.ready()
	s.waitFor(tuiWait, "MCP server hosted needs you to log in")
	s.send("/mcp login hosted")
	s.waitFor(tuiWait, "MCP server hosted connected: 1 tool")
	if b, _ := os.ReadFile(visited); !bytes.Contains(b, []byte("/authorize?")) {
		t.Errorf("the browser was not sent to the page: %q", b)
	}
}

// A stored login co does not use (here: readable by other users) is said
// with why in co mcp list and by co run, not as a bare "needs login"; a new
// login replaces it.
func TestMCPStoredLoginNotUsedSaysWhy(t *testing.T) {
	oauth := mcptest.NewOAuthServer(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	extra, _ := browserEnv(t)
	e := env(t, srv, extra...)
	mcpSettings(t, e, `{"hosted": {"url": "`+oauth.URL+`"}}`)
	dir := t.TempDir()
	if out, errOut, code := runCo(t, dir, e, "", "mcp", "login", "hosted"); code != 0 {
		t.Fatalf("co mcp login: exit %d\n%s%s", code, out, errOut)
	}
	home := strings.TrimPrefix(e[0], "HOME=")
	file := filepath.Join(home, ".local", "share", "co-cli", "mcp-auth", "hosted.json")
	if err := os.Chmod(file, 0o644); err != nil {
		t.Fatal(err)
	}
	why := "the stored login " + file + " is readable by other users (mode 0644), so co does not use it"
	out, errOut, code := runCo(t, dir, e, "", "mcp", "list")
	if code != 0 || !strings.Contains(out, "hosted (remote): needs login — "+why) || !strings.Contains(out, "run co mcp login hosted") {
		t.Errorf("co mcp list: exit %d\n%s%s", code, out, errOut)
	}
	srv.Script(llmtest.Reply{Text: "Nothing to call."})
	if out, errOut, _ := runCo(t, dir, e, "", "run", "who am I?"); !strings.Contains(errOut, "needs you to log in again ("+why) {
		t.Errorf("co run did not say why:\n%s%s", out, errOut)
	}
	if out, errOut, code := runCo(t, dir, e, "", "mcp", "login", "hosted"); code != 0 || !strings.Contains(out, "connected, 1 tool") {
		t.Fatalf("co mcp login again: exit %d\n%s%s", code, out, errOut)
	}
	if fi, err := os.Stat(file); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("after the new login: %v %v", fi.Mode(), err)
	}
	if n := oauth.Registered(); n != 2 {
		t.Errorf("a client kept in a file others could read was reused: %d registrations, want 2", n)
	}
}

// co mcp login twice in a row registers co once: the second login reuses
// the client (and its loopback port) and says so; a logout forgets it.
func TestMCPLoginTwiceRegistersOnce(t *testing.T) {
	oauth := mcptest.NewOAuthServer(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	extra, _ := browserEnv(t)
	e := env(t, srv, extra...)
	mcpSettings(t, e, `{"hosted": {"url": "`+oauth.URL+`"}}`)
	dir := t.TempDir()
	for i := range 2 {
		if out, errOut, code := runCo(t, dir, e, "", "mcp", "login", "hosted"); code != 0 || !strings.Contains(out, "connected, 1 tool") {
			t.Fatalf("co mcp login #%d: exit %d\n%s%s", i+1, code, out, errOut)
		} else if reused := strings.Contains(errOut, "co reuses the client it registered at the last login"); reused != (i == 1) {
			t.Errorf("co mcp login #%d says it reuses a client: %v\n%s", i+1, reused, errOut)
		}
	}
	if n := oauth.Registered(); n != 1 {
		t.Fatalf("two logins registered %d clients, want 1", n)
	}
	if out, errOut, code := runCo(t, dir, e, "", "mcp", "logout", "hosted"); code != 0 {
		t.Fatalf("co mcp logout: exit %d\n%s%s", code, out, errOut)
	}
	if out, errOut, code := runCo(t, dir, e, "", "mcp", "login", "hosted"); code != 0 {
		t.Fatalf("co mcp login after logout: exit %d\n%s%s", code, out, errOut)
	}
	if n := oauth.Registered(); n != 2 {
		t.Errorf("the login after a logout registered %d clients in all, want 2", n)
	}
}

// co mcp login to a server that asks for none connects it and says so,
// without claiming a login: it printed "asked for no login" and then
// "Logged in to MCP server open.".
func TestMCPLoginToServerNeedingNone(t *testing.T) {
	server := sdk.NewServer(&sdk.Implementation{Name: "open", Version: "1"}, nil)
	server.AddTool(&sdk.Tool{Name: "echo", Description: "Echo.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo"}}}, nil
		})
	open := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	defer open.Close()
	srv := llmtest.NewServer()
	defer srv.Close()
	extra, visited := browserEnv(t)
	e := env(t, srv, extra...)
	mcpSettings(t, e, `{"open": {"url": "`+open.URL+`"}}`)
	out, errOut, code := runCo(t, t.TempDir(), e, "", "mcp", "login", "open")
	if code != 0 || !strings.Contains(errOut, "MCP server open asked for no login: it connected without one") ||
		!strings.Contains(out, "open (remote): connected, 1 tool") {
		t.Fatalf("co mcp login: exit %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(out+errOut, "Logged in") {
		t.Errorf("co mcp login claims a login that did not happen:\n%s%s", out, errOut)
	}
	if _, err := os.Stat(visited); err == nil {
		t.Error("a browser was opened for a server that asks for no login")
	}
}

// co mcp login with the browser on another machine (no tunnel to this
// one's loopback listener): the address the browser ended on, pasted into
// the terminal, finishes the login.
func TestMCPLoginTakesThePastedAddress(t *testing.T) {
	oauth := mcptest.NewOAuthServer(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	extra, _ := browserEnv(t)
	ended := filepath.Join(t.TempDir(), "ended-on")
	e := tuiEnv(t, srv, append(extra, "CO_E2E_BROWSER_ELSEWHERE="+ended)...)
	mcpSettings(t, e, `{"hosted": {"url": "`+oauth.URL+`"}}`)
	s := startTUI(t, t.TempDir(), e, 200, 40, "mcp", "login", "hosted")
	s.waitFor(tuiWait, "paste here the address it ends on")
	var addr []byte
	deadline := time.Now().Add(tuiWait)
	for len(addr) == 0 && time.Now().Before(deadline) {
		addr, _ = os.ReadFile(ended)
		if len(addr) == 0 {
			time.Sleep(50 * time.Millisecond)
		}
	}
	if !bytes.Contains(addr, []byte("/callback?")) {
		t.Fatalf("the browser elsewhere ended on %q", addr)
	}
	s.send(string(addr))
	s.waitFor(tuiWait, "Logged in to MCP server hosted.", "CO_EXIT=0")
}
