package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/tools/mcp/mcptest"
)

// mcpSettings writes a user settings file with one local MCP server.
func mcpSettings(t *testing.T, environ []string, servers string) {
	t.Helper()
	var home string
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "XDG_CONFIG_HOME="); ok {
			home = v
		}
	}
	p := filepath.Join(home, "co-cli", "settings.json")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(`{"mcp_servers": `+servers+`}`), 0o600); err != nil {
		t.Fatal(err)
	}
}

func everythingJSON(t *testing.T) string {
	return `{"everything": {"command": "node", "args": ["` + mcptest.Everything(t) + `", "stdio"]}}`
}

func TestMCPList(t *testing.T) {
	e := env(t, nil)
	mcpSettings(t, e, everythingJSON(t))
	out, errOut, code := runCo(t, t.TempDir(), e, "", "mcp", "list")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"everything (local): connected, ", "mcp__everything__echo", "mcp__everything__get-sum", "log: "} {
		if !strings.Contains(out, want) {
			t.Errorf("co mcp list lacks %q:\n%s", want, out)
		}
	}
}

// co mcp list says, on stderr, which servers it waits for and for how long
// at most, before the wait: a slow server is not seconds of silence. The
// limit is far above what node needs even on a loaded machine: the test is
// about the sentence, not about a start within a time.
func TestMCPListSaysItWaits(t *testing.T) {
	e := env(t, nil)
	mcpSettings(t, e, `{"slow": {"command": "sh", "args": ["-c", "sleep 1; exec node `+mcptest.Everything(t)+` stdio"], "timeout_seconds": 300}}`)
	out, errOut, code := runCo(t, t.TempDir(), e, "", "mcp", "list")
	if code != 0 || !strings.Contains(out, "slow (local): connected, ") {
		t.Fatalf("exit %d: %s\n%s", code, errOut, out)
	}
	if !strings.Contains(errOut, "waiting for MCP server slow to start (up to 300 s)") {
		t.Errorf("co mcp list did not say what it waits for; stderr:\n%s", errOut)
	}
	// Nothing starting: nothing said.
	mcpSettings(t, e, `{"off": {"command": "true", "enabled": false}}`)
	if _, errOut, _ := runCo(t, t.TempDir(), e, "", "mcp", "list"); strings.Contains(errOut, "waiting") {
		t.Errorf("waiting while nothing starts:\n%s", errOut)
	}
}

// A model-requested MCP call asks in the modal, runs on y, and its result
// reaches the model.
func TestTUIMCPCallApproved(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "m1", Name: "mcp__everything__get-sum", Args: `{"a":40,"b":2}`}}},
		llmtest.Reply{Text: "The tool says forty-two."},
	)
	e := tuiEnv(t, srv)
	mcpSettings(t, e, everythingJSON(t))
	s := startTUI(t, t.TempDir(), e, 110, 40)
	s.ready()
	s.send("add 40 and 2")
	s.waitFor(tuiWait, "Approve mcp__everything__get-sum?", "server: everything", "tool: get-sum")
	s.waitArmed()
	s.keys("y")
	s.waitFor(tuiWait, "The tool says forty-two.")
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests: %d", len(reqs))
	}
	if !strings.Contains(string(reqs[0].Raw), `"mcp__everything__get-sum"`) {
		t.Error("the first request did not offer the server's tools")
	}
	results := reqs[1].ToolResults()
	result := ""
	if len(results) > 0 {
		result = results[len(results)-1]
	}
	if !strings.Contains(result, "The sum of 40 and 2 is 42.") {
		t.Errorf("the model received %q", result)
	}
}

// A server a project declares does not start before the user consents to
// it, and does after co mcp trust, which shows the definition first and
// without a terminal needs --yes; a changed script it names asks again.
func TestMCPProjectConsent(t *testing.T) {
	e := env(t, nil)
	dir := t.TempDir()
	marker := filepath.Join(t.TempDir(), "started")
	script := "touch " + marker + "; exec node " + mcptest.Everything(t) + " stdio\n"
	if err := os.WriteFile(filepath.Join(dir, "start.sh"), []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	project := `{"mcp_servers": {"repo": {"command": "sh", "args": ["start.sh"], "env": {"REPO_TOKEN": "${HOME}"}}}}`
	if err := os.MkdirAll(filepath.Join(dir, ".co-cli"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".co-cli", "settings.json"), []byte(project), 0o644); err != nil {
		t.Fatal(err)
	}

	out, _, code := runCo(t, dir, e, "", "mcp", "list")
	if code != 0 || !strings.Contains(out, "repo (local, project): awaiting your consent, not started (co mcp trust repo") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
	// What the user consents to is shown in full, the environment it reads too.
	if !strings.Contains(out, "env: REPO_TOKEN=${HOME}") || !strings.Contains(out, "reads your environment variables: HOME") ||
		!strings.Contains(out, "files whose content the consent covers: start.sh") {
		t.Errorf("the definition awaiting consent is not shown in full:\n%s", out)
	}
	// A chat turn does not start it either.
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "hello"})
	if _, errOut, code := runCo(t, dir, env(t, srv, "HOME="+envValue(e, "HOME"), "XDG_CONFIG_HOME="+envValue(e, "XDG_CONFIG_HOME"), "XDG_DATA_HOME="+envValue(e, "XDG_DATA_HOME")), "", "run", "hi"); code != 0 {
		t.Fatalf("co run: %d %s", code, errOut)
	}
	if strings.Contains(string(srv.Requests()[0].Raw), "mcp__repo__") {
		t.Error("a project server's tools were offered without consent")
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the project's server started without consent")
	}

	// Without a terminal to ask on, co mcp trust shows the definition and
	// refuses, naming --yes.
	out, errOut, code := runCo(t, dir, e, "y\n", "mcp", "trust", "repo")
	if code == 0 || !strings.Contains(errOut, "--yes") || !strings.Contains(out, "env: REPO_TOKEN=${HOME}") || !strings.Contains(out, "sh start.sh") {
		t.Fatalf("trust without a terminal: exit %d: %s %s", code, out, errOut)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the server started without consent")
	}
	out, errOut, code = runCo(t, dir, e, "", "mcp", "trust", "--yes", "repo")
	if code != 0 || !strings.Contains(out, "Trusted MCP server repo") || !strings.Contains(out, "connected, ") ||
		strings.Index(out, "files whose content the consent covers: start.sh") > strings.Index(out, "Trusted") {
		t.Fatalf("trust: exit %d: %s %s", code, out, errOut)
	}
	if _, err := os.Stat(marker); err != nil {
		t.Fatal("the trusted server did not start")
	}
	out, _, _ = runCo(t, dir, e, "", "mcp", "list")
	if !strings.Contains(out, "repo (local, project): connected") {
		t.Errorf("after trust:\n%s", out)
	}
	// A git pull changes the script: consent is asked again.
	os.Remove(marker)
	if err := os.WriteFile(filepath.Join(dir, "start.sh"), []byte("echo changed; "+script), 0o644); err != nil {
		t.Fatal(err)
	}
	out, _, _ = runCo(t, dir, e, "", "mcp", "list")
	if !strings.Contains(out, "repo (local, project): awaiting your consent") {
		t.Errorf("after the script changed:\n%s", out)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("the changed script ran without consent")
	}
}

func envValue(environ []string, key string) string {
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// /mcp trust NAME in the chat shows the definition and asks, as co mcp
// trust does: "n" leaves the server off, "y" starts it.
func TestPlainMCPTrustAsks(t *testing.T) {
	e := env(t, nil)
	dir := t.TempDir()
	marker := filepath.Join(t.TempDir(), "started")
	project := `{"mcp_servers": {"repo": {"command": "sh", "args": ["-c", "touch ` + marker + `; exec node ` + mcptest.Everything(t) + ` stdio"]}}}`
	if err := os.MkdirAll(filepath.Join(dir, ".co-cli"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".co-cli", "settings.json"), []byte(project), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer()
	defer srv.Close()
	ce := env(t, srv, "HOME="+envValue(e, "HOME"), "XDG_CONFIG_HOME="+envValue(e, "XDG_CONFIG_HOME"), "XDG_DATA_HOME="+envValue(e, "XDG_DATA_HOME"))

	out, _, code := runCo(t, dir, ce, "/mcp trust repo\nn\n", "--plain")
	if code != 0 || !strings.Contains(out, "touch "+marker) || !strings.Contains(out, "Let co start MCP server repo as defined above") {
		t.Fatalf("the definition and the question were not shown (exit %d):\n%s", code, out)
	}
	time.Sleep(300 * time.Millisecond)
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("answering n started the server")
	}
	// The next turn waits for the server it started.
	srv.Script(llmtest.Reply{Text: "hi"})
	out, _, _ = runCo(t, dir, ce, "/mcp trust repo\ny\nhello\n", "--plain")
	if !strings.Contains(out, "Trusted MCP server repo") {
		t.Fatalf("y did not trust:\n%s", out)
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if _, err := os.Stat(marker); err == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("the trusted server never started:\n%s", out)
}
