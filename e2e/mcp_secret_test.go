package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/co-cli/co/agent/llmtest"
)

// A remote MCP server whose URL carries a token (${VAR} in the settings)
// drops the connection in the middle of a call: the transport error names
// the endpoint it posted to, and the token in it must reach neither the
// model (the tool result) nor the span store.
func TestMCPURLSecretNeverLeaks(t *testing.T) {
	const token = "SUPERSECRETPATHTOKEN123"
	server := sdk.NewServer(&sdk.Implementation{Name: "e2e", Version: "1"}, nil)
	server.AddTool(&sdk.Tool{Name: "echo", Description: "Echo.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "echo"}}}, nil
		})
	h := sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil)
	mux := http.NewServeMux()
	mux.HandleFunc("/api/mcp/s/"+token+"/mcp", func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodPost {
			body, _ := io.ReadAll(r.Body)
			if bytes.Contains(body, []byte(`"tools/call"`)) { // dropped mid-session
				conn, _, err := w.(http.Hijacker).Hijack()
				if err == nil {
					conn.Close()
				}
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		h.ServeHTTP(w, r)
	})
	web := httptest.NewServer(mux)
	defer web.Close()

	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "m1", Name: "mcp__web__echo", Args: `{}`}}},
		// The model repeating the token: only the span store's redaction
		// of the server's ${VAR} values keeps this one out.
		llmtest.Reply{Text: "The server at /s/" + token + "/mcp went away."},
	)
	e := env(t, srv, "CO_E2E_MCP_TOKEN="+token)
	mcpSettings(t, e, `{"web": {"url": "`+web.URL+`/api/mcp/s/${CO_E2E_MCP_TOKEN}/mcp", "approve": "auto", "timeout_seconds": 10}}`)
	out, errOut, code := runCo(t, t.TempDir(), e, "", "run", "call the web tool")
	if code != 0 {
		t.Fatalf("exit %d: %s %s", code, out, errOut)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("requests: %d\n%s\n%s", len(reqs), out, errOut)
	}
	results := reqs[1].ToolResults()
	result := ""
	if len(results) > 0 {
		result = results[len(results)-1]
	}
	if !strings.Contains(result, "MCP server web") {
		t.Fatalf("the call did not fail as a dropped connection: %q", result)
	}
	if strings.Contains(result, token) || strings.Contains(errOut, token) {
		t.Errorf("the token reached the model or the terminal:\n%s\n%s%s", result, out, errOut)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "failed") && strings.Contains(l, token) {
			t.Errorf("the failure shown names the token: %s", l)
		}
	}
	if len(spanRows(t, storeFile(e))) < 3 {
		t.Fatal("the spans were not stored")
	}
	var all []byte
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		b, _ := os.ReadFile(storeFile(e) + suffix)
		all = append(all, b...)
	}
	if !bytes.Contains(all, []byte("mcp__web__echo")) {
		t.Fatal("the call is not in the store: this test would prove nothing")
	}
	if bytes.Contains(all, []byte(token)) {
		t.Error("the token is in the span store")
	}
}
