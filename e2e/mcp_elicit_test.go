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
	// The five fields: name, age, score, status, verified; Enter on each.
	script := "#!/bin/sh\n" +
		`printf '{"mcp_servers": {"conformance": {"url": "%s"}}}' "$1" > '` + settings + "'\n" +
		`printf 'use the conformance tool\ny\n\n\n\n\n\n' | '` + coBin + `' --plain > '` + transcript + "' 2>&1\n"
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
		"Test client default value handling", "[John Doe]", "[30]", "[95.5]", "[active]", "[yes]", "form: sent to MCP server conformance"} {
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
