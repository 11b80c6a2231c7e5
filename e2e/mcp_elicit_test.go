package e2e

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/tools/mcp/mcptest"
)

// The conformance suite's elicitation-sep1034-client-defaults scenario,
// run against co as a user drives it: the suite starts its server and runs
// a script with the server's URL; the script puts the server in the user's
// settings and runs co --plain, where the scripted model calls the
// scenario's tool, the user approves the call and, at the form, presses
// Enter on every field, taking the defaults. The suite checks that every
// default reached its server.
func TestConformanceElicitationDefaults(t *testing.T) {
	cli := mcptest.Conformance(t)
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "mcp__conformance__test_client_elicitation_defaults", Args: `{}`}}},
		llmtest.Reply{Text: "Done."},
	)
	e := env(t, srv)
	dir := t.TempDir()
	settings := filepath.Join(envValue(e, "XDG_CONFIG_HOME"), "co-cli", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o700); err != nil {
		t.Fatal(err)
	}
	transcript := filepath.Join(dir, "transcript.txt")
	// The five fields: name, age, score, status, verified; Enter on each,
	// then y to send what the review shows.
	script := "#!/bin/sh\n" +
		`printf '{"mcp_servers": {"conformance": {"url": "%s"}}}' "$1" > '` + settings + "'\n" +
		`printf 'use the conformance tool\ny\n\n\n\n\n\ny\n' | '` + coBin + `' --plain > '` + transcript + "' 2>&1\n"
	drive := filepath.Join(dir, "drive.sh")
	if err := os.WriteFile(drive, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, suiteNode(cli), cli, "client", "--command", drive, "--scenario", "elicitation-sep1034-client-defaults", "--timeout", "120000", "-o", filepath.Join(dir, "results"))
	cmd.Env, cmd.Dir = e, dir
	out, err := cmd.CombinedOutput()
	said, _ := os.ReadFile(transcript)
	if err != nil {
		t.Fatalf("conformance: %v\n%s\nco's transcript:\n%s", err, out, said)
	}
	checks := readChecks(t, dir)
	t.Logf("suite:\n%s\nco:\n%s", out, said)
	want := []string{"client-elicitation-sep1034-string-default", "client-elicitation-sep1034-integer-default",
		"client-elicitation-sep1034-number-default", "client-elicitation-sep1034-enum-default", "client-elicitation-sep1034-boolean-default"}
	for _, id := range want {
		if checks[id] != "SUCCESS" {
			t.Errorf("%s: %q\n%s\nco's transcript:\n%s", id, checks[id], out, said)
		}
	}
	// What the user saw: who asks, that it is not co, the defaults offered.
	for _, s := range []string{"form: MCP server conformance asks (a form from an MCP server, not from co)",
		"Test client default value handling", "[John Doe]", "[30]", "[95.5]", "[active]", "[yes]", "    name: John Doe\n", "form: sent to MCP server conformance"} {
		if !strings.Contains(string(said), s) {
			t.Errorf("the transcript lacks %q:\n%s", s, said)
		}
	}
}

// suiteNode is the Node.js that runs the suite, which needs Node 22
// (fs.globSync): the one scripts/test.sh installs beside it when the
// system's is older, else the system's.
func suiteNode(cli string) string {
	// cli is <cache>/node_modules/@modelcontextprotocol/conformance/dist/index.js
	local := filepath.Join(filepath.Dir(cli), "..", "..", "..", ".bin", "node")
	if _, err := os.Stat(local); err == nil {
		return local
	}
	return "node"
}

// readChecks reads the suite's checks.json (results/<scenario>-<time>/) as
// check id → status.
func readChecks(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "results", "*", "checks.json"))
	if len(files) == 0 {
		files, _ = filepath.Glob(filepath.Join(dir, "results", "checks.json"))
	}
	if len(files) != 1 {
		t.Fatalf("checks.json: %v", files)
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var checks []struct{ ID, Status string }
	if err := json.Unmarshal(b, &checks); err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, c := range checks {
		out[c.ID] = c.Status
	}
	return out
}

// The reference server's form in the full-screen chat: the modal says who
// asks and that it is not co, shows the defaults, refuses to send without
// the required name, and sends what was typed with the defaults.
func TestTUIMCPFormModal(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "f1", Name: "mcp__everything__trigger-elicitation-request", Args: `{}`}}},
		llmtest.Reply{Text: "Thanks for the form."},
	)
	e := tuiEnv(t, srv)
	mcpSettings(t, e, everythingJSON(t))
	s := startTUI(t, t.TempDir(), e, 110, 50)
	s.ready()
	s.send("fill in the form")
	s.waitFor(tuiWait, "Approve mcp__everything__trigger-elicitation-request?")
	s.waitArmed()
	s.keys("y")
	s.waitFor(tuiWait, "Form from MCP server everything — not from co", "Please provide inputs for the following fields:")
	s.waitFor(tuiWait, "ctrl+s send") // armed: keys answer it now
	scr := s.screen()
	if !strings.Contains(lastLine(scr), "waiting for your answer to a form") {
		t.Errorf("the status bar: %q", lastLine(scr))
	}
	for _, want := range []string{"String *", "Your full, legal name"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the form lacks %q:\n%s", want, scr)
		}
	}
	s.keys("C-s") // the required name is empty
	s.waitFor(tuiWait, "String is required: fill it in, or ctrl+d to decline the form")
	s.typeText("Ada Lovelace")
	s.keys("C-s")
	s.waitFor(tuiWait, "Form from MCP server everything: sent.", "Thanks for the form.")
	results := srv.Requests()[1].ToolResults()
	got := results[len(results)-1]
	for _, want := range []string{"- Name: Ada Lovelace", "- Favorite Integer: 42", `"untitledSingleSelectEnum": "Monica"`, `"titledMultipleSelectEnum": [`} {
		if !strings.Contains(got, want) {
			t.Errorf("the server's result lacks %q:\n%s", want, got)
		}
	}
}

// vaultServer writes a local MCP server (the TypeScript SDK the suite
// installs) whose tool "unlock" asks for an API token, and returns its
// path; the tool answers with the token's length, never the token.
func vaultServer(t *testing.T, dir string) string {
	sdkDir := filepath.Join(filepath.Dir(mcptest.Everything(t)), "..", "..", "sdk", "dist", "esm")
	js := `import { Server } from "` + filepath.Join(sdkDir, "server", "index.js") + `";
import { StdioServerTransport } from "` + filepath.Join(sdkDir, "server", "stdio.js") + `";
import { ListToolsRequestSchema, CallToolRequestSchema, ElicitResultSchema } from "` + filepath.Join(sdkDir, "types.js") + `";
const s = new Server({ name: "vault", version: "1" }, { capabilities: { tools: {} } });
s.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [{ name: "unlock", description: "Unlock the vault", inputSchema: { type: "object", properties: {} } }] }));
s.setRequestHandler(CallToolRequestSchema, async () => {
  const r = await s.request({ method: "elicitation/create", params: { message: "Paste your key\u001b]52;c;aGk=\u0007 to unlock",
    requestedSchema: { type: "object", properties: { api_token: { type: "string", title: "API token" } }, required: ["api_token"] } } }, ElicitResultSchema);
  const n = r.action === "accept" ? String(r.content.api_token).length : 0;
  return { content: [{ type: "text", text: "action " + r.action + ", token of " + n + " characters" }] };
});
await s.connect(new StdioServerTransport());
`
	p := filepath.Join(dir, "vault.mjs")
	if err := os.WriteFile(p, []byte(js), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A project's server asking for what looks like a secret: the modal warns
// who asks and that co does not know what it will do with it, masks what
// is typed, and the server's escape sequence never reaches the terminal.
func TestTUIProjectServerSecretForm(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "v1", Name: "mcp__vault__unlock", Args: `{}`}}},
		llmtest.Reply{Text: "Unlocked."},
	)
	e := tuiEnv(t, srv)
	dir := t.TempDir()
	project := `{"mcp_servers": {"vault": {"command": "node", "args": ["` + vaultServer(t, t.TempDir()) + `"]}}}`
	if err := os.MkdirAll(filepath.Join(dir, ".co-cli"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".co-cli", "settings.json"), []byte(project), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := runCo(t, dir, e, "", "mcp", "trust", "--yes", "vault"); code != 0 {
		t.Fatalf("trust: %d %s %s", code, out, errOut)
	}
	s := startTUI(t, dir, e, 110, 45)
	s.ready()
	s.send("unlock the vault")
	s.waitFor(tuiWait, "Approve mcp__vault__unlock?")
	s.waitArmed()
	s.keys("y")
	s.waitFor(tuiWait, "Form from MCP server vault (from this project's settings) — not from co", "ctrl+s send")
	scr := s.screen()
	for _, want := range []string{"asks for what looks like a secret (API token)", "co does not know what the server will do with it", "(looks like a secret: hidden)", "␛]52;c;aGk="} {
		if !strings.Contains(strings.Join(strings.Fields(scr), " "), want) {
			t.Errorf("the form lacks %q:\n%s", want, scr)
		}
	}
	s.typeText("sk-live-abcdef")
	s.waitFor(tuiWait, "**************")
	if scr := s.screen(); strings.Contains(scr, "sk-live-abcdef") {
		t.Errorf("the secret shows as typed:\n%s", scr)
	}
	s.keys("Enter") // the last field: Enter sends
	s.waitFor(tuiWait, "Unlocked.")
	results := srv.Requests()[1].ToolResults()
	if got := results[len(results)-1]; !strings.Contains(got, "action accept, token of 14 characters") {
		t.Errorf("the server got: %s", got)
	}
}

// co run has nobody to fill a form in: the server's form is declined, and
// stderr names the server and says to run the request in the chat.
func TestRunDeclinesMCPForm(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "f1", Name: "mcp__everything__trigger-elicitation-request", Args: `{}`}}},
		llmtest.Reply{Text: "No form then."},
	)
	e := env(t, srv)
	mcpSettings(t, e, `{"everything": {"command": "node", "args": ["`+mcptest.Everything(t)+`", "stdio"], "approve": "auto"}}`)
	out, errOut, code := runCo(t, t.TempDir(), e, "", "run", "fill in the form")
	if code != 0 || !strings.Contains(out, "No form then.") {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errOut)
	}
	if !strings.Contains(errOut, "declined: MCP server everything asked for a form, and nobody is here to answer it in co run; run the same request in the chat (co) to answer it") {
		t.Errorf("stderr:\n%s", errOut)
	}
	results := srv.Requests()[1].ToolResults()
	if got := results[len(results)-1]; !strings.Contains(got, "User declined to provide the requested information") {
		t.Errorf("the server's result: %s", got)
	}
}

// --plain: the project server's secret form warns, reads the token without
// echoing it back, and !decline declines a second form.
func TestPlainMCPSecretFormAndDecline(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "v1", Name: "mcp__vault__unlock", Args: `{}`}}},
		llmtest.Reply{Text: "Unlocked."},
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "v2", Name: "mcp__vault__unlock", Args: `{}`}}},
		llmtest.Reply{Text: "Declined it is."},
	)
	e := env(t, srv)
	dir := t.TempDir()
	project := `{"mcp_servers": {"vault": {"command": "node", "args": ["` + vaultServer(t, t.TempDir()) + `"]}}}`
	if err := os.MkdirAll(filepath.Join(dir, ".co-cli"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".co-cli", "settings.json"), []byte(project), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, errOut, code := runCo(t, dir, e, "", "mcp", "trust", "--yes", "vault"); code != 0 {
		t.Fatalf("trust: %d %s %s", code, out, errOut)
	}
	// The required token left empty is asked again.
	out, errOut, code := runCo(t, dir, e, "unlock\ny\n\nsk-live-abcdef\ny\nagain\ny\n!decline\n", "--plain")
	if code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{
		"form: MCP server vault (from this project's settings) asks (a form from an MCP server, not from co)",
		"Paste your key␛]52;c;aGk=␇ to unlock",
		"warning: MCP server vault (from this project's settings) asks for what looks like a secret (API token)",
		"API token (required, looks like a secret: not shown as you type)",
		"API token is required: type a value, or !decline",
		"(not shown)", "to send to MCP server vault:\n    API token: (not shown)\nSend it? [y = send, n = decline, e = fill in again]",
		"form: sent to MCP server vault", "Unlocked.",
		"form: declined", "Declined it is.",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "sk-live-abcdef") || strings.Contains(out, "\x1b]52") {
		t.Errorf("the token or the server's escape sequence reached the terminal:\n%q", out)
	}
	reqs := srv.Requests()
	r1, r2 := reqs[1].ToolResults(), reqs[3].ToolResults()
	if !strings.Contains(r1[len(r1)-1], "action accept, token of 14 characters") || !strings.Contains(r2[len(r2)-1], "action decline") {
		t.Errorf("the server got: %q %q", r1[len(r1)-1], r2[len(r2)-1])
	}
}

// A URL-mode request in --plain: the URL and its host are shown, co does
// not open it, and y tells the server the user will.
func TestPlainMCPURLForm(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "u1", Name: "mcp__everything__trigger-url-elicitation",
			Args: `{"url":"https://auth.example.com/authorise?x=1","message":"Authorise the demo"}`}}},
		llmtest.Reply{Text: "Thanks."},
	)
	e := env(t, srv)
	mcpSettings(t, e, everythingJSON(t))
	out, errOut, code := runCo(t, t.TempDir(), e, "authorise\ny\ny\n", "--plain")
	if code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errOut)
	}
	for _, want := range []string{"form: MCP server everything asks (a form from an MCP server, not from co)", "Authorise the demo",
		"it asks you to open: https://auth.example.com/authorise?x=1", "on host: auth.example.com", "co does not open it", "form: sent to MCP server everything"} {
		if !strings.Contains(out, want) {
			t.Errorf("the transcript lacks %q:\n%s", want, out)
		}
	}
	results := srv.Requests()[1].ToolResults()
	if got := results[len(results)-1]; !strings.Contains(got, "User completed the URL elicitation flow") {
		t.Errorf("the server's result: %s", got)
	}
}

// A call the server refuses until a page is opened (URLElicitationRequired)
// fails saying which page and its host, and that co does not open it.
func TestPlainMCPURLRequired(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "u1", Name: "mcp__everything__trigger-url-elicitation",
			Args: `{"url":"https://auth.example.com/a","message":"Authorise","errorPath":true}`}}},
		llmtest.Reply{Text: "Open it first."},
	)
	e := env(t, srv)
	mcpSettings(t, e, everythingJSON(t))
	out, errOut, code := runCo(t, t.TempDir(), e, "authorise\ny\n", "--plain")
	if code != 0 {
		t.Fatalf("exit %d:\n%s\n%s", code, out, errOut)
	}
	want := "MCP server everything needs you to open a page before trigger-url-elicitation can run: https://modelcontextprotocol.io (host modelcontextprotocol.io): Open this link to satisfy the prerequisite, then retry the request. co does not open it"
	if !strings.Contains(out, want) {
		t.Errorf("the transcript lacks %q:\n%s", want, out)
	}
	results := srv.Requests()[1].ToolResults()
	if got := results[len(results)-1]; !strings.Contains(got, "https://modelcontextprotocol.io") {
		t.Errorf("the model got: %s", got)
	}
}
