package agent_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

// A scheduled run's approvals (issue 29): no grant, yolo or --yes applies;
// the approve list runs its tools, but never a call that must always ask.
func TestUnattendedApprovalsNeverWiden(t *testing.T) {
	a := agent.NewApprovals(agent.ApprovalOptions{Isolated: true, Yolo: true})
	ask := tools.Check{Decision: tools.Ask, Scope: "write_file"}
	a.Grant(ask)
	if d, run, _ := a.Decide(ask); !d || !run {
		t.Fatal("the grant does not apply before: the test proves nothing")
	}
	a.SetUnattended([]string{"write_file"})
	a.SetYes(true)
	if err := a.SetYolo(true); !errors.Is(err, agent.ErrYoloUnattended) {
		t.Errorf("yolo in a scheduled run: %v", err)
	}
	if d, _, _ := a.Decide(ask); d {
		t.Error("a grant, yolo or --yes decided a call of a scheduled run (no tool known)")
	}
	if d, run, by := a.DecideCall(writeLike("send_slack_message"), ask); d || run {
		t.Errorf("a tool not in the approve list ran unattended (%s)", by)
	}
	if d, run, by := a.DecideCall(writeLike("write_file"), ask); !d || !run || by != message.BySchedule {
		t.Errorf("the approve list: %v %v %s", d, run, by)
	}
	always := tools.Check{Decision: tools.Ask, AlwaysAsk: true, Untrusted: []string{"web x"}}
	if d, _, _ := a.DecideCall(writeLike("write_file"), always); d {
		t.Error("a call that always asks ran because the approve list names its tool")
	}
	if d, run, by := a.DecideCall(writeLike("rm"), tools.Check{Decision: tools.Deny}); !d || run || by != message.ByPolicyDeny {
		t.Error("a deny did not stay a deny")
	}
}

type writeLike string

func (w writeLike) Name() string          { return string(w) }
func (writeLike) Description() string     { return "" }
func (writeLike) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (writeLike) Class() tools.Class      { return tools.SideEffect }
func (writeLike) Run(context.Context, json.RawMessage) (tools.Result, error) {
	return tools.Result{}, nil
}

// The turn span names the schedule; a waiting call's span says it waits.
func TestUnattendedSpans(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer func() {
		if err := tp.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	f := newFixture(t, func(c *agent.Config) { c.Tracer = tp.Tracer("test") })
	f.ag.SetUnattended(agent.Unattended{Schedule: "brief"})
	f.srv.Script(llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "w1", Name: "write_note", Args: `{"name":"x","text":"t"}`}}}, llmtest.Reply{Text: "ok"})
	evs := run(t, context.Background(), f.ag, "go", func(r agent.ApprovalRequested) []message.Verdict {
		return []message.Verdict{message.Wait}
	})
	finished(t, evs)
	if c := calls(evs); len(c) != 1 || c[0].Status != message.CallWaiting || c[0].Decision != message.ByWaiting {
		t.Fatalf("calls = %+v", c)
	}
	attrs := map[string]map[string]string{}
	for _, s := range rec.Ended() {
		m := map[string]string{}
		for _, kv := range s.Attributes() {
			m[string(kv.Key)] = kv.Value.String()
		}
		attrs[s.Name()] = m
	}
	if a := attrs["invoke_agent"]; a["co.schedule.name"] != "brief" || a["co.run.kind"] != "scheduled" {
		t.Errorf("turn span = %v", a)
	}
	if a := attrs["execute_tool write_note"]; a["co.approval.waiting"] != "true" || a["co.tool.status"] != "waiting" {
		t.Errorf("waiting call's span = %v", a)
	}
}

// A schedule's approve list naming the shell runs its commands only
// isolated (the Docker sandbox) or with yolo_unsandboxed, as --yes: run
// unsandboxed, a command the approve list names still waits, so a
// schedule approving commands for the sandbox never runs them on the
// machine itself. Other approved tools are not affected.
func TestUnattendedApproveListRunsNoUnsandboxedCommand(t *testing.T) {
	ask := tools.Check{Decision: tools.Ask, Scope: "run_shell_command:touch", SandboxAllows: false}
	shell := writeLike("run_shell_command")

	a := agent.NewApprovals(agent.ApprovalOptions{Isolated: false})
	a.SetUnattended([]string{"run_shell_command", "write_file"})
	if d, run, by := a.DecideCall(shell, ask); d || run {
		t.Errorf("an approved command ran unsandboxed, unattended (%s)", by)
	}
	if d, run, _ := a.DecideCall(writeLike("write_file"), tools.Check{Decision: tools.Ask, Scope: "write_file:./"}); !d || !run {
		t.Error("the approve list no longer runs write_file unsandboxed")
	}

	for name, o := range map[string]agent.ApprovalOptions{"isolated": {Isolated: true}, "yolo_unsandboxed": {YoloUnsandboxed: true}} {
		a := agent.NewApprovals(o)
		a.SetUnattended([]string{"run_shell_command"})
		if d, run, by := a.DecideCall(shell, ask); !d || !run || by != message.BySchedule {
			t.Errorf("%s: the approved command did not run: %v %v %s", name, d, run, by)
		}
	}
}
