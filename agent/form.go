package agent

import (
	"context"
	"sync"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/co-cli/co/tools"
)

// formGate closes a call's form function when the call returns: a form the
// server asks for later is not shown (its events would follow the call's
// end).
type formGate struct {
	mu    sync.Mutex
	ended bool
}

func (g *formGate) end() {
	g.mu.Lock()
	g.ended = true
	g.mu.Unlock()
}

// askForm is the form function of call id (tools.WithForm): the form goes
// to the front end as a FormRequested, on the turn's one event path, so
// it never shows over an approval. It is called from the tool's own
// goroutines (the MCP client's) while the agent's waits in the tool's
// Run. The span records who asked, the field names and the answer's
// action, never a value or the server's text.
func (a *Agent) askForm(callCtx context.Context, e *emitter, id string, g *formGate) tools.FormFunc {
	return func(ctx context.Context, f tools.Form) (tools.FormAnswer, error) {
		names := make([]string, len(f.Fields))
		for i, fl := range f.Fields {
			names[i] = fl.Name
		}
		mode := "form"
		if f.URL != "" {
			mode = "url"
		}
		_, span := a.tracer.Start(callCtx, "elicitation", trace.WithAttributes(
			attribute.String("co.mcp.server", f.Server),
			attribute.String("co.elicitation.mode", mode),
			attribute.StringSlice("co.elicitation.fields", names),
			attribute.Bool("co.elicitation.project_server", f.Project),
		))
		defer span.End()
		a.notifyHooks(callCtx, e, "elicitation_dialog", "a tool asks you to fill in a form ("+f.Server+")")
		req := FormRequested{CallID: id, Form: f, Withdrawn: ctx.Done(), reply: make(chan tools.FormAnswer, 1)}
		g.mu.Lock()
		if g.ended {
			g.mu.Unlock()
			span.SetAttributes(attribute.String("co.elicitation.action", string(tools.FormCancel)))
			return tools.FormAnswer{Action: tools.FormCancel}, context.Canceled
		}
		e.send(req)
		g.mu.Unlock()
		select {
		case ans := <-req.reply:
			if ans.Action != tools.FormAccept {
				ans.Content = nil
			}
			span.SetAttributes(attribute.String("co.elicitation.action", string(ans.Action)))
			return ans, nil
		case <-ctx.Done():
			span.SetAttributes(attribute.String("co.elicitation.action", "withdrawn"))
			return tools.FormAnswer{Action: tools.FormCancel}, ctx.Err()
		}
	}
}
