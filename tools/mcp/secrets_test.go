package mcp_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/co-cli/co/tools/mcp"
)

// The values the span store must redact: every ${VAR} a server reads
// (but HOME and its like), every literal env or header value long enough
// to be a secret.
func TestSecrets(t *testing.T) {
	env := map[string]string{"TOKEN": "url-token-value", "KEY": "header-key-value", "HOME": "/home/someone", "ARG": "arg-secret"}
	get := func(k string) (string, bool) { v, ok := env[k]; return v, ok }
	got := mcp.Secrets([]mcp.ServerConfig{
		{Name: "web", URL: "https://h/s/${TOKEN}/mcp", Headers: map[string]string{"Authorization": "Bearer ${KEY}", "X-Api": "literal-header-secret"}},
		{Name: "loc", Command: "node", Args: []string{"--key=${ARG}", "${HOME}/srv.js"}, Env: map[string]string{"DEBUG": "true", "API": "literal-env-secret"}},
	}, get)
	slices.Sort(got)
	want := []string{"arg-secret", "header-key-value", "literal-env-secret", "literal-header-secret", "url-token-value"}
	if !slices.Equal(got, want) {
		t.Errorf("secrets: %q, want %q", got, want)
	}
}

// A server that cannot start reports the settings as written, not the
// ${VAR} values they expanded to.
func TestStartFailureShowsSettingsAsWritten(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tok-3141592653")
	t.Setenv("CO_TEST_MCP_DIR", dir)
	f := newFixture(t, mcp.ServerConfig{Name: "gone", Command: "${CO_TEST_MCP_DIR}/server"})
	all := strings.Join(f.start(t), "\n")
	if !strings.Contains(all, "MCP server gone failed to start") || !strings.Contains(all, "${CO_TEST_MCP_DIR}/server") {
		t.Fatalf("notices: %s", all)
	}
	if strings.Contains(all, "tok-3141592653") {
		t.Errorf("the expanded value is in the notice: %s", all)
	}
	if st := f.m.Statuses()[0]; strings.Contains(st.Err, "tok-3141592653") {
		t.Errorf("status: %+v", st)
	}
}

// The log file /mcp names for a failed server says why it failed, settings
// as written; so it does for a server that exits.
func TestFailureReasonInLog(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "tok-2718281828")
	t.Setenv("CO_TEST_MCP_DIR", dir)
	f := newFixture(t, mcp.ServerConfig{Name: "gone", Command: "${CO_TEST_MCP_DIR}/no-such-mcp-binary"}, stdioServer(t, "fx", nil))
	f.start(t)
	st := f.m.Statuses()[0]
	if st.State != mcp.Failed || st.Log == "" {
		t.Fatalf("status: %+v", st)
	}
	log, err := os.ReadFile(st.Log)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(log), "gone failed to start: ") || !strings.Contains(string(log), "${CO_TEST_MCP_DIR}/no-such-mcp-binary") ||
		!strings.Contains(string(log), "no such file or directory") {
		t.Errorf("the log lacks the reason:\n%s", log)
	}
	if strings.Contains(string(log), "tok-2718281828") {
		t.Errorf("the expanded value is in the log:\n%s", log)
	}

	tl, ok := f.reg.Get("mcp__fx__exit")
	if !ok {
		t.Fatalf("no exit tool: %+v", f.m.Statuses())
	}
	// The server exits in the middle of the call: the call must fail.
	if _, err := tl.Run(context.Background(), json.RawMessage(`{}`)); err == nil {
		t.Fatal("a call whose server exited in its middle succeeded")
	}
	waitFor(t, func() bool { return f.m.Statuses()[1].State == mcp.Failed })
	log, _ = os.ReadFile(f.m.Statuses()[1].Log)
	if !strings.Contains(string(log), "fx failed: the server process exited") {
		t.Errorf("the log lacks the exit:\n%s", log)
	}
}
