package mcp_test

import (
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
