package agent_test

import (
	"context"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/message"
)

// runWaiting runs RunWaiting to its end, answering its question with
// answer (nil: fail on a question).
func runWaiting(t *testing.T, ag *agent.Agent, w agent.WaitingCall, answer func(agent.ApprovalRequested) []message.Verdict) []agent.Event {
	t.Helper()
	var evs []agent.Event
	timeout := time.After(2 * time.Minute) // only a hang
	ch := ag.RunWaiting(context.Background(), w)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return evs
			}
			evs = append(evs, ev)
			if req, isReq := ev.(agent.ApprovalRequested); isReq {
				if answer == nil {
					t.Fatalf("unexpected question: %+v", req.Calls)
				}
				req.Reply(answer(req))
			}
		case <-timeout:
			t.Fatalf("the turn did not end; events: %#v", evs)
		}
	}
}

// A waiting call is always asked, even with yolo on, and approving it
// once grants nothing; the turn's span names the waiting call.
func TestRunWaitingAlwaysAsksAndGrantsNothing(t *testing.T) {
	rec := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(rec))
	defer func() {
		if err := tp.Shutdown(context.Background()); err != nil {
			t.Error(err)
		}
	}()
	f := newFixture(t, func(c *agent.Config) { c.Tracer = tp.Tracer("test") })
	if err := f.ag.Approvals().SetYolo(true); err != nil {
		t.Fatal(err)
	}
	f.ag.Restore([]message.Message{{Role: message.RoleUser, Content: "write x"}, {Role: message.RoleAssistant, Content: "It waits."}}, message.Usage{}, 1)
	f.srv.Script(llmtest.Reply{Text: "Written."})
	var decided []bool
	w := agent.WaitingCall{ID: 4, CallID: "c9", Tool: "write_note", Args: `{"name":"x","text":"t"}`, Schedule: "brief",
		Decide: func(ok bool) error { decided = append(decided, ok); return nil }}
	asked := 0
	evs := runWaiting(t, f.ag, w, func(agent.ApprovalRequested) []message.Verdict {
		asked++
		return []message.Verdict{message.ApproveOnce}
	})
	if asked != 1 || len(decided) != 1 || !decided[0] {
		t.Fatalf("asked %d, decided %v", asked, decided)
	}
	if fin := finished(t, evs); fin.Text != "Written." || !f.write.exists("x") {
		t.Fatalf("finished %+v, written %v", fin, f.write.exists("x"))
	}
	if g := f.ag.Approvals().Grants(); len(g) != 0 {
		t.Errorf("approving a waiting call once granted %+v", g)
	}
	attrs := map[string]map[string]string{}
	for _, s := range rec.Ended() {
		m := map[string]string{}
		for _, kv := range s.Attributes() {
			m[string(kv.Key)] = kv.Value.String()
		}
		attrs[s.Name()] = m
	}
	if a := attrs["invoke_agent"]; a["co.inbox.pending_id"] != "4" || a["co.schedule.name"] != "brief" {
		t.Errorf("turn span = %v", a)
	}
	if a := attrs["execute_tool write_note"]; a["co.approval.by"] != string(message.ByUser) || a["gen_ai.tool.call.id"] != agent.WaitingCallID(4) {
		t.Errorf("the call's span = %v", a)
	}
}

// Deny beats every grant: a session grant for the scope, yolo, the user's
// approval: a call the policy denies is not asked about and never runs.
func TestRunWaitingPolicyDenyWins(t *testing.T) {
	f := newFixture(t, nil)
	if err := f.ag.Approvals().SetYolo(true); err != nil {
		t.Fatal(err)
	}
	var decided []bool
	w := agent.WaitingCall{ID: 5, CallID: "c1", Tool: "write_note", Args: `{"name":"forbidden","text":"t"}`,
		Decide: func(ok bool) error { decided = append(decided, ok); return nil }}
	evs := runWaiting(t, f.ag, w, nil)
	finished(t, evs)
	if c := calls(evs); len(c) != 1 || c[0].Decision != message.ByPolicyDeny || f.write.exists("forbidden") {
		t.Fatalf("calls %+v", c)
	}
	if len(decided) != 1 || decided[0] {
		t.Errorf("decided %v, want one denial", decided)
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Errorf("the model was called %d times", n)
	}
	if x := f.ag.Asides(); len(x) != 1 || x[0].Notice == "" {
		t.Errorf("no note of the denial: %+v", x)
	}
}
