package e2e

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/tools/mcp/mcptest"
)

// co mcp add NAME -- COMMAND ARGS with the MCP reference server, as a user
// adds one: it lands in the user's settings file, co mcp list starts it and
// lists its tools, and a run calls one of them. The same name again is
// refused without --force; co mcp remove takes it out.
func TestMCPAddCommandThenListAndCall(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "m1", Name: "mcp__everything__get-sum", Args: `{"a":40,"b":2}`}}},
		llmtest.Reply{Text: "Forty-two."},
	)
	e := env(t, srv, "CO_CLI_YOLO_UNSANDBOXED=true")
	everything := mcptest.Everything(t)
	dir := t.TempDir()
	out, errOut, code := runCo(t, dir, e, "", "mcp", "add", "everything", "--", "node", everything, "stdio")
	if code != 0 || !strings.Contains(out, "Added MCP server everything in ") || !strings.Contains(out, "the command node "+everything+" stdio") {
		t.Fatalf("co mcp add: exit %d\n%s%s", code, out, errOut)
	}
	file := filepath.Join(envValue(e, "XDG_CONFIG_HOME"), "co-cli", "settings.json")
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), `"command": "node"`) {
		t.Fatalf("the settings file:\n%s", b)
	}
	out, errOut, code = runCo(t, dir, e, "", "mcp", "list")
	if code != 0 || !strings.Contains(out, "everything (local): connected, ") || !strings.Contains(out, "mcp__everything__get-sum") {
		t.Fatalf("co mcp list: exit %d\n%s%s", code, out, errOut)
	}
	out, errOut, code = runCo(t, dir, e, "", "run", "--yes", "add 40 and 2")
	if code != 0 || !strings.Contains(out, "Forty-two.") {
		t.Fatalf("co run: exit %d\n%s%s", code, out, errOut)
	}
	if r := srv.Requests(); len(r) != 2 || !strings.Contains(strings.Join(r[1].ToolResults(), "\n"), "The sum of 40 and 2 is 42.") {
		t.Fatalf("the tool's result did not reach the model: %d requests", len(r))
	}

	_, errOut, code = runCo(t, dir, e, "", "mcp", "add", "everything", "--", "node", "other.js")
	if code != 1 || !strings.Contains(errOut, "an MCP server named everything is in "+file+" already: add --force to replace it") {
		t.Errorf("a duplicate name: exit %d\n%s", code, errOut)
	}
	if b, _ := os.ReadFile(file); strings.Contains(string(b), "other.js") {
		t.Errorf("a refused add changed the file:\n%s", b)
	}
	out, errOut, code = runCo(t, dir, e, "", "mcp", "remove", "everything")
	if code != 0 || !strings.Contains(out, "Removed MCP server everything from "+file) {
		t.Fatalf("co mcp remove: exit %d\n%s%s", code, out, errOut)
	}
	if _, errOut, code = runCo(t, dir, e, "", "mcp", "remove", "everything"); code != 1 || !strings.Contains(errOut, "no MCP server named everything in "+file) {
		t.Errorf("removing it again: exit %d\n%s", code, errOut)
	}
}

// co mcp add NAME URL --header: a remote server (the official SDK's
// streamable HTTP handler) gets the header on every request, as written
// with its ${VAR} read at start; the token stays out of the file.
func TestMCPAddURLWithHeader(t *testing.T) {
	server := sdk.NewServer(&sdk.Implementation{Name: "docs", Version: "1"}, nil)
	server.AddTool(&sdk.Tool{Name: "lookup", Description: "Look a word up.", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "found"}}}, nil
		})
	var mu sync.Mutex
	var auth []string
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth = append(auth, r.Header.Get("Authorization"))
		mu.Unlock()
		h.ServeHTTP(w, r)
	}))
	defer hs.Close()
	e := env(t, nil, "DOCS_TOKEN=tok-e2e-123")
	dir := t.TempDir()
	out, errOut, code := runCo(t, dir, e, "", "mcp", "add", "docs", hs.URL+"/mcp", "--header", "Authorization: Bearer ${DOCS_TOKEN}")
	if code != 0 || !strings.Contains(out, "Added MCP server docs in ") {
		t.Fatalf("co mcp add: exit %d\n%s%s", code, out, errOut)
	}
	if b, _ := os.ReadFile(filepath.Join(envValue(e, "XDG_CONFIG_HOME"), "co-cli", "settings.json")); !strings.Contains(string(b), `"Authorization": "Bearer ${DOCS_TOKEN}"`) {
		t.Fatalf("the settings file:\n%s", b)
	}
	out, errOut, code = runCo(t, dir, e, "", "mcp", "list")
	if code != 0 || !strings.Contains(out, "docs (remote): connected, 1 tool") || !strings.Contains(out, "mcp__docs__lookup") {
		t.Fatalf("co mcp list: exit %d\n%s%s", code, out, errOut)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(auth) == 0 || auth[0] != "Bearer tok-e2e-123" {
		t.Errorf("the server got Authorization %q", auth)
	}
}

// What co mcp add refuses, before writing anything: a name that is not
// one, a command's option typed without --, a URL of another scheme,
// --env for a URL and --header for a command.
func TestMCPAddRefusesBadInput(t *testing.T) {
	e := env(t, nil)
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"my server", "http://h/mcp"}, 1, `"my server" is not an MCP server name: use letters, digits, - and _`},
		{[]string{"files", "npx", "-y", "pkg"}, 2, "A command's own options go after --: co mcp add NAME -- COMMAND [ARGS...]"},
		{[]string{"files", "ftp://h/x"}, 1, "ftp://h/x is not an http:// or https:// URL"},
		{[]string{"docs", "--env", "A=1", "https://h/mcp"}, 1, "--env is for a command's process"},
		{[]string{"files", "--header", "A: 1", "--", "node", "s.js"}, 1, "--header is for a URL's server"},
		{[]string{"files", "--env", "NOEQUALS", "--", "node", "s.js"}, 1, `--env "NOEQUALS" is not KEY=VALUE`},
	} {
		_, errOut, code := runCo(t, t.TempDir(), e, "", append([]string{"mcp", "add"}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("co mcp add %q: exit %d, want %d with %q:\n%s", c.args, code, c.code, c.want, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(envValue(e, "XDG_CONFIG_HOME"), "co-cli", "settings.json")); err == nil {
		t.Error("a refused add wrote the settings file")
	}
}
