package agent_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/tools"
)

// noticeTool tells the user something while it runs (tools.Notify).
type noticeTool struct{}

func (noticeTool) Name() string            { return "slow_start" }
func (noticeTool) Description() string     { return "Says it is starting." }
func (noticeTool) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (noticeTool) Class() tools.Class      { return tools.ReadOnly }
func (noticeTool) Run(ctx context.Context, _ json.RawMessage) (tools.Result, error) {
	tools.Notify(ctx, "starting the thing…")
	return tools.Result{Display: "ran"}, nil
}

// What a tool says while it runs is a Notice, after the call started and before it finished (the
// shell tool's "starting the sandbox…" while the container is made).
func TestToolNoticeIsAnEventDuringTheCall(t *testing.T) {
	f := newFixture(t, func(c *agent.Config) {
		reg, err := tools.NewRegistry(noticeTool{})
		if err != nil {
			t.Fatal(err)
		}
		c.Tools = reg
	})
	f.srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "n", Name: "slow_start", Args: `{}`}}}, llmtest.Reply{Text: "ok"})
	evs := run(t, context.Background(), f.ag, "go", nil)
	finished(t, evs)
	var order []string
	for _, ev := range evs {
		switch e := ev.(type) {
		case agent.ToolCallStarted:
			order = append(order, "started")
		case agent.Notice:
			order = append(order, "notice:"+e.Text)
		case agent.ToolCallFinished:
			order = append(order, "finished")
		}
	}
	if len(order) != 3 || order[0] != "started" || order[1] != "notice:starting the thing…" || order[2] != "finished" {
		t.Errorf("events = %v", order)
	}
}

// A turn starts the background tools (ToolsStart: the sandbox's container) even when the front
// end never called Warm and nothing needs waiting for (co run without MCP servers).
func TestTurnStartsToolsWithoutWarm(t *testing.T) {
	var started atomic.Int32
	f := newFixture(t, func(c *agent.Config) { c.ToolsStart = func() { started.Add(1) } })
	f.srv.Script(llmtest.Reply{Text: "hi"}, llmtest.Reply{Text: "again"})
	finished(t, run(t, context.Background(), f.ag, "go", nil))
	finished(t, run(t, context.Background(), f.ag, "go", nil))
	if n := started.Load(); n != 1 {
		t.Errorf("ToolsStart ran %d times, want once", n)
	}
}
