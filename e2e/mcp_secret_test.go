package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
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

// storeBytes is a SQLite file with its journal files, as a leak would lie
// in any of them.
func storeBytes(path string) []byte {
	var all []byte
	for _, suffix := range []string{"", "-wal", "-shm", "-journal"} {
		b, _ := os.ReadFile(path + suffix)
		all = append(all, b...)
	}
	return all
}

// A sign-up form whose fields are named as real forms name them
// (password_confirmation as Rails and Laravel do, a "Verification code"
// title), from a server built with the official SDK that echoes every
// value it got: in --plain the secrets are read without being shown, and
// what was typed into them is in neither the saved session (the model's
// copy of the result) nor the span store; the e-mail address, no secret,
// is shown and kept.
func TestPlainMCPFormSecretFieldsStayOutOfTranscriptAndSpans(t *testing.T) {
	const pass, code, mail = "Zx9-hunter2-correct-horse", "493817", "ada@example.org"
	server := sdk.NewServer(&sdk.Implementation{Name: "signup", Version: "1"}, nil)
	server.AddTool(&sdk.Tool{Name: "register", Description: "Sign up.", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			res, err := req.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Create your account", RequestedSchema: json.RawMessage(`{"type":"object",
"properties":{"email":{"type":"string","format":"email"},"password_confirmation":{"type":"string"},
"code":{"type":"string","title":"Verification code"}},"required":["email","password_confirmation","code"]}`)})
			if err != nil {
				return nil, err
			}
			b, _ := json.Marshal(res.Content)
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "registered " + string(b)}}}, nil
		})
	web := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return server }, nil))
	defer web.Close()

	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "s1", Name: "mcp__signup__register", Args: `{}`}}},
		llmtest.Reply{Text: "You are registered."},
	)
	e := env(t, srv)
	mcpSettings(t, e, `{"signup": {"url": "`+web.URL+`", "approve": "auto", "timeout_seconds": 30}}`)
	out, errOut, exit := runCo(t, t.TempDir(), e, "sign me up\n"+mail+"\n"+pass+"\n"+code+"\ny\n", "--plain")
	if exit != 0 {
		t.Fatalf("exit %d:\n%s\n%s", exit, out, errOut)
	}
	for _, want := range []string{"password_confirmation (required, looks like a secret: not shown as you type)",
		"Verification code (required, looks like a secret: not shown as you type)",
		"    email: " + mail + "\n    password_confirmation: (not shown)\n    Verification code: (not shown)", "You are registered."} {
		if !strings.Contains(out, want) {
			t.Errorf("the screen lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, pass) || strings.Contains(out, code) {
		t.Errorf("a secret was shown:\n%s", out)
	}
	// The server got them (its echo is what is redacted), the model not.
	results := srv.Requests()[1].ToolResults()
	got := results[len(results)-1]
	if !strings.Contains(got, `"email":"`+mail+`"`) || !strings.Contains(got, `"password_confirmation":"[REDACTED]"`) || !strings.Contains(got, `"code":"[REDACTED]"`) {
		t.Errorf("the model got: %s", got)
	}
	transcript := storeBytes(filepath.Join(dataDir(e), "sessions.db"))
	if !bytes.Contains(transcript, []byte(mail)) {
		t.Fatal("the e-mail address is not in the saved session: this test would prove nothing")
	}
	spans := storeBytes(storeFile(e))
	if !bytes.Contains(spans, []byte("mcp__signup__register")) {
		t.Fatal("the call is not in the span store: this test would prove nothing")
	}
	for name, b := range map[string][]byte{"saved session": transcript, "span store": spans} {
		for _, secret := range []string{pass, code} {
			if bytes.Contains(b, []byte(secret)) {
				t.Errorf("%q is in the %s", secret, name)
			}
		}
	}
}
