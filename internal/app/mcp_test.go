package app

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/co-cli/co/config"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/mcp"
)

// "trusted_content" from the user's own settings reaches the manager and
// takes the untrusted origin off the server's results; from a project
// file it is ignored with a warning and the server's results stay
// untrusted, once the user has consented to start it.
func TestMCPTrustedContentFromSettings(t *testing.T) {
	s := sdk.NewServer(&sdk.Implementation{Name: "co-test", Version: "1"}, nil)
	s.AddTool(&sdk.Tool{Name: "echo", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: "hello"}}}, nil
		})
	hs := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	defer hs.Close()

	home, work := t.TempDir(), t.TempDir()
	write := func(path, body string) {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, ".config", "co-cli", "settings.json"),
		`{"mcp_servers": {"mine": {"url": "`+hs.URL+`", "trusted_content": true}}}`)
	project := filepath.Join(work, ".co-cli", "settings.json")
	write(project, `{"mcp_servers": {"repo": {"url": "`+hs.URL+`", "trusted_content": true}}}`)
	env := map[string]string{}
	l, err := config.Load(config.LoadOptions{Getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }, WorkDir: work, HomeDir: home})
	if err != nil {
		t.Fatal(err)
	}
	warned := false
	for _, w := range l.Warnings {
		warned = warned || (w.Source == project && strings.Contains(w.Msg, `ignored "trusted_content": true for the MCP server "repo"`))
	}
	if !warned {
		t.Errorf("no warning for the project's trusted_content: %+v", l.Warnings)
	}

	reg, _ := tools.NewRegistry()
	m := NewMCP(l, reg, "test")
	defer m.Close()
	m.Start()
	if err := m.Trust("repo"); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if n := m.Wait(ctx); len(n) != 0 {
		t.Fatalf("notices: %v", n)
	}
	st := m.Statuses()
	if len(st) != 2 || st[0].State != mcp.Connected || st[1].State != mcp.Connected || !st[0].TrustedContent || st[1].TrustedContent || !st[1].Project {
		t.Fatalf("statuses: %+v", st)
	}
	for name, want := range map[string][]tools.Origin{
		"mcp__mine__echo": nil,
		"mcp__repo__echo": {tools.UntrustedPrivate("mcp", "mcp repo.echo")},
	} {
		tl, ok := reg.Get(name)
		if !ok {
			t.Fatalf("no %s: %v", name, reg.Names())
		}
		res, err := tl.Run(ctx, json.RawMessage(`{}`))
		if err != nil || res.Display != "hello" || !slices.Equal(res.Origins, want) {
			t.Errorf("%s: %q %+v %v", name, res.Display, res.Origins, err)
		}
	}
}
