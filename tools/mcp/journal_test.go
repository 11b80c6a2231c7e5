package mcp_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/tools/mcp"
)

// Each call an MCP server received is journalled as not undoable, naming
// the server and the tool and never the arguments: one the server
// reported failed too, and one to a tool it marks read-only (a hint, which
// co does not trust for approval either). A call that reached no server is
// not journalled.
func TestMCPCallsAreJournalledAsNotUndoable(t *testing.T) {
	url := provenanceServer(t)
	f := newFixture(t, mcp.ServerConfig{Name: "fx", URL: url, Timeout: 5 * time.Second})
	if n := f.start(t); len(n) != 0 {
		t.Fatalf("notices: %v", n)
	}
	j, err := journal.Open(t.TempDir(), "s-1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ctx = journal.WithTurn(ctx, j, 6, time.Now())
	call := func(name, args string) {
		t.Helper()
		_, _ = f.tool(t, name).Run(ctx, json.RawMessage(args))
	}
	secret := "sk-live-" + strings.Repeat("9", 24)
	call("mcp__fx__echo", `{"text":"`+secret+`"}`)
	call("mcp__fx__fail", `{}`)
	call("mcp__fx__lookup", `{}`)
	echo := f.tool(t, "mcp__fx__echo")
	f.m.Close()
	_, _ = echo.Run(ctx, json.RawMessage(`{"text":"after close"}`))

	es, err := j.List(6)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ tool, what string }{
		{"mcp__fx__echo", "called echo on the MCP server fx"},
		{"mcp__fx__fail", "called fail on the MCP server fx"},
		{"mcp__fx__lookup", "called lookup on the MCP server fx (the server marks it read-only)"},
	}
	if len(es) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(es), len(want), es)
	}
	for i, e := range es {
		if e.Kind != journal.MCPCall || e.Undoable || e.WhyNot != journal.WhyMCP || e.Tool != want[i].tool || e.What != want[i].what || e.Turn != 6 {
			t.Errorf("entry %d: %+v, want %s %q", i, e, want[i].tool, want[i].what)
		}
	}
	r := journal.NewRegistry()
	if _, err := r.Undo(ctx, j, es[0].Seq); err == nil || !strings.Contains(err.Error(), journal.WhyMCP) {
		t.Fatalf("undo of an MCP call: %v", err)
	}
}
