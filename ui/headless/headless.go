// Package headless is the front end of `co run PROMPT`: one turn, no person.
// Calls that need approval do not run (and are reported); --yes approves
// exactly what /yolo would approve in the same isolation, nothing more;
// calls the policy denies never run. A scheduled run (Options.Unattended)
// keeps such calls waiting for the user (sessions.Pending) instead, and
// no --yes, yolo or grant applies to it. The answer goes to
// standard output as plain text, or as JSON lines with --json (one object
// per event; see docs/commands.md for the schema).
package headless

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/co-cli/co/lib/cost"
	"io"
	"slices"
	"strings"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/ui/present"
)

// Exit codes of co run.
const (
	ExitOK     = 0 // the turn finished
	ExitError  = 1 // the turn failed (provider error, limit reached, …)
	ExitUsage  = 2 // bad flags or arguments
	ExitDenied = 3 // the turn finished but at least one call was denied
	// ExitWaiting: a scheduled run finished, and at least one call waits
	// for the user's approval (co inbox).
	ExitWaiting = 4
	// ExitMaxCost: the turn stopped at the cost limit (max_cost, --max-cost)
	// after the call that reached it; the session is saved.
	ExitMaxCost     = 5
	ExitInterrupted = 130 // cancelled by SIGINT/SIGTERM
)

// Options configures Run.
type Options struct {
	Agent  *agent.Agent
	Prompt string
	// Attachments are the images and PDFs the prompt carries (co run
	// --attach).
	Attachments []message.Attachment
	Out         io.Writer // answer (text or JSON lines)
	Err         io.Writer // progress and errors in text mode
	JSON        bool
	Yes         bool // approve what /yolo would approve (Approvals.SetYes)
	// Piped is the data piped to co run on standard input, attached to
	// the prompt as untrusted (agent.Input.Piped).
	Piped *message.Piped
	// HideReasoning leaves out the reasoning events (--no-reasoning).
	HideReasoning bool
	// Shown is the prompt as the user wrote it, when Prompt is made from
	// it ("/greet Ann" for a custom command's text): the saved session
	// shows it, as the chat's does.
	Shown string
	// Unattended, when set, makes this a scheduled run: what needs
	// approval is kept waiting in Unattended.Store instead of running.
	Unattended *Unattended
	// AtExit, when set, is the check of the protected paths as co exits
	// (app.App.ExitCheck), run once the turn is over: its warning, when
	// not empty, is said like the turn's (a protected_changed event).
	AtExit func() (text string, paths []string)
	// Failed, when set, is given the turn's failure, when it fails (a
	// scheduled run decides from it whether to try again).
	Failed func(agent.TurnFailed)
}

// Unattended is what a scheduled run needs beyond a co run's options.
type Unattended struct {
	// Schedule is the schedule's name.
	Schedule string
	// Approve are the tools the schedule lets run without asking (its
	// "approve" setting); see agent.Approvals.SetUnattended for what
	// never runs unattended whatever it says.
	Approve []string
	// Tools, when not empty, are the only tools offered besides the
	// read-only ones and the drafts (the schedule's "tools" setting).
	Tools []string
	// Store keeps the calls that wait and the run's outcome: the store
	// the agent's session is saved in (app.App.Sessions), whose session
	// must be of kind sessions.Scheduled.
	Store *sessions.Store
}

// Run runs one turn and returns the exit code.
func Run(ctx context.Context, o Options) int {
	r := &runner{o: o, enc: json.NewEncoder(o.Out)}
	if u := o.Unattended; u != nil {
		if o.Yes {
			r.say("co: --yes never applies to a scheduled run: list the tools it may use without asking in the schedule's \"approve\" setting")
			return ExitUsage
		}
		if u.Store == nil || o.Agent.SessionID() == "" {
			r.say("co: a scheduled run needs its saved session (the sessions store could not be opened), or the calls that need approval could not wait for you")
			return ExitError
		}
		o.Agent.SetUnattended(agent.Unattended{Schedule: u.Schedule, Approve: u.Approve, Tools: u.Tools})
		defer r.saveOutcome()
	}
	if o.Yes {
		o.Agent.Approvals().SetYes(true)
		defer o.Agent.Approvals().SetYes(false)
	}
	r.enc.SetEscapeHTML(false)
	code := ExitError
	// First, the conversation's id: the saved session's (co sessions, co
	// run --resume ID) and the spans' co.session.id (co logs, co traces);
	// and the provider and model the turn goes to (once resolved: an
	// Ollama probe may still be running; unresolved, what was configured).
	if o.JSON {
		m := map[string]any{"type": "session"}
		if id := o.Agent.SessionID(); id != "" {
			m["id"] = id
		}
		_, _, _ = o.Agent.WaitProvider(ctx) // only waits: Provider below says what it is, a failure included
		p, _, _ := o.Agent.Provider()       // a model switched to (resumed) included
		m["provider"], m["model"] = p.Name, p.Model
		r.encode(m)
	}
	for _, a := range o.Attachments {
		r.emit(map[string]any{"type": "attached", "name": a.Name, "path": a.Path, "kind": string(a.Kind), "mime": a.MIME,
			"size": a.Size, "width": a.Width, "height": a.Height, "sha256": a.SHA256}, "attached "+safe.Text(a.Summary()))
	}
	if p := o.Piped; p != nil {
		r.emit(map[string]any{"type": "attached", "source": message.PipedSource, "kind": "text", "size": len(p.Text), "lines": p.Lines,
			"untrusted": true}, "attached "+p.Summary())
	}
	events := o.Agent.SubmitInput(ctx, agent.Input{Prompt: o.Prompt, Shown: o.Shown, Attachments: o.Attachments, Piped: o.Piped})
	for ev := range events {
		_, isThink := ev.(agent.ReasoningDelta)
		if !isThink {
			r.thinking = false
		}
		switch e := ev.(type) {
		case agent.ReasoningDelta:
			// Reasoning never goes to stdout in text mode: one progress
			// line on stderr per block.
			if !o.HideReasoning {
				line := ""
				if !r.thinking {
					line = "thinking…"
				}
				r.emit(map[string]any{"type": "reasoning", "text": e.Text}, line)
			}
			r.thinking = true
		case agent.TextDelta:
			r.text(e.Text)
		case agent.Notice:
			if len(e.Protected) > 0 {
				paths := make([]string, len(e.Protected))
				for i, c := range e.Protected {
					paths[i] = c.Path
				}
				r.protectedChanged(e.Text, paths)
				break
			}
			r.emit(map[string]any{"type": "notice", "text": e.Text}, "note: "+present.AfterLabel(safe.Text(e.Text)))
		case agent.MemoryRecalled:
			ids := make([]string, len(e.Memories))
			for i, m := range e.Memories {
				ids[i] = m.ID
			}
			r.emit(map[string]any{"type": "memory_recalled", "ids": ids}, "memory: recalled "+safe.Text(strings.Join(ids, ", ")))
		case agent.RiskRaised:
			r.emit(map[string]any{"type": "untrusted_content", "sources": agent.Labels(e.New)}, "untrusted: "+safe.Text(agent.RiskNotice(e)))
		case agent.ToolCallStarted:
			r.emit(map[string]any{"type": "tool_call", "id": e.CallID, "name": e.Name, "args": json.RawMessage(validJSON(e.Args))},
				"tool: "+present.Call(e.Name, e.Args))
		case agent.ApprovalRequested:
			r.approve(e)
		case agent.FormRequested:
			r.declineForm(e)
		case agent.ToolCallFinished:
			if e.Status == message.CallDenied {
				r.denied = true
			}
			if e.Status == message.CallWaiting {
				r.waiting++
			}
			m := map[string]any{"type": "tool_result", "id": e.CallID, "name": e.Name, "status": e.Status.String(),
				"decision": string(e.Decision), "duration_ms": e.Duration.Milliseconds()}
			if e.Result.Display != "" {
				m["display"] = e.Result.Display
			}
			if len(e.Result.Meta) > 0 {
				m["meta"] = e.Result.Meta
			}
			if e.Err != "" {
				m["error"] = e.Err
			}
			outcome := present.Outcome(e)
			if e.Status == message.CallDenied && e.Decision == message.ByHeadless {
				outcome = "needs approval: " + safe.Text(r.hints[e.CallID])
			}
			if e.Status == message.CallWaiting {
				outcome = "waiting for your approval: " + r.hints[e.CallID]
			}
			r.emit(m, "result: "+e.Name+" "+outcome)
			if w := revertedNote(e.Result.Meta); w != "" {
				r.protected = true
				if !r.o.JSON && r.o.Err != nil { // --json has them in the result's meta
					fmt.Fprintln(r.o.Err, w)
				}
			}
		case agent.TurnFinished:
			code = ExitOK
			if r.denied {
				code = ExitDenied
			}
			if r.waiting > 0 {
				code = ExitWaiting
			}
			r.emit(withCost(map[string]any{"type": "turn_finished", "text": e.Text, "requests": e.Requests}, e.Usage, e.Session), "")
			if !o.JSON && r.midLine {
				_, _ = io.WriteString(o.Out, "\n")
			}
		case agent.TurnFailed:
			code = ExitError
			if e.Interrupted {
				code = ExitInterrupted
			}
			if errors.Is(e.Err, agent.ErrMaxCost) {
				code = ExitMaxCost
			}
			r.failed, r.interrupted = e.Message, e.Interrupted
			if o.Failed != nil {
				o.Failed(e)
			}
			r.emit(withCost(map[string]any{"type": "turn_failed", "message": e.Message, "interrupted": e.Interrupted}, e.Usage, e.Session), "error: "+safe.Text(e.Message))
			if !o.JSON && r.midLine {
				_, _ = io.WriteString(o.Out, "\n")
			}
		}
	}
	if o.AtExit != nil {
		if text, paths := o.AtExit(); text != "" {
			r.protectedChanged(text, paths)
		}
	}
	return code
}

// withCost adds a turn's tokens and cost to its --json event: usage (this
// turn's tokens, cached ones included), cost_usd (this turn) and
// session_cost_usd (the session so far), or cost_unknown saying why when a
// call's model has no known price.
func withCost(m map[string]any, turn, session message.Usage) map[string]any {
	m["usage"] = map[string]int{"input_tokens": turn.InputTokens, "output_tokens": turn.OutputTokens,
		"cached_tokens": turn.CachedTokens, "reasoning_tokens": turn.ReasoningTokens}
	m["cost_usd"], m["session_cost_usd"] = turn.Cost, session.Cost
	if turn.Unpriced != "" {
		m["cost_unknown"] = cost.NoPrice(turn.Unpriced)
	}
	return m
}

// revertedNote is the warning co run prints under a command's result when the sandbox undid
// the command's changes to protected paths (its meta, see tools/shell), or could not: the chat
// shows the command's output, which says so, but co run's log shows only the outcome, and a
// manipulated model's attempt at AGENTS.md or .envrc must not pass unseen under --yes.
func revertedNote(meta map[string]any) string {
	var parts []string
	if p, _ := meta["protected_reverted"].([]string); len(p) > 0 {
		parts = append(parts, "co refused and reverted its changes to protected files: "+strings.Join(p, ", "))
	}
	if p, _ := meta["protected_not_reverted"].([]string); len(p) > 0 {
		parts = append(parts, "co could not revert its changes to: "+strings.Join(p, ", "))
	}
	if parts == nil {
		return ""
	}
	return safe.Text("co: warning: the command wrote protected files; " + strings.Join(parts, "; "))
}

// protectedChanged says a warning of the protected paths' check: a
// protected_changed event, or the warning on stderr.
func (r *runner) protectedChanged(text string, paths []string) {
	r.protected = true
	r.emit(map[string]any{"type": "protected_changed", "text": text, "paths": paths}, "co: "+safe.Text(text))
}

type runner struct {
	o        Options
	enc      *json.Encoder
	midLine  bool
	denied   bool
	thinking bool // in a block of reasoning
	// hints are what the approval line said of each call that needs
	// approval, said again on its result line.
	hints map[string]string
	// A scheduled run's: the calls kept waiting, how the turn ended.
	waiting     int
	failed      string
	interrupted bool
	protected   bool // protected files changed that no approved call changed
}

func (r *runner) text(t string) {
	if r.o.JSON {
		r.encode(map[string]any{"type": "text", "text": t})
		return
	}
	s := safe.Text(t)
	// A failed write to the output goes unreported, as fmt.Print's would:
	// on a closed stdout the process ends with SIGPIPE before it matters.
	_, _ = io.WriteString(r.o.Out, s)
	if s != "" {
		r.midLine = !strings.HasSuffix(s, "\n")
	}
}

// JSONSchema is the version of co run --json's events, in each one's
// "schema" field. It changes when a field is removed or changes meaning,
// never when one is added.
const JSONSchema = 1

// encode writes m as one JSON line, with the schema version.
func (r *runner) encode(m map[string]any) {
	m["schema"] = JSONSchema
	_ = r.enc.Encode(m) // maps of strings, numbers and bools: only the write can fail (see text)
}

// say writes line to stderr, when there is one.
func (r *runner) say(line string) {
	if r.o.Err != nil {
		fmt.Fprintln(r.o.Err, line)
	}
}

// emit writes m as a JSON line, or line to stderr in text mode.
func (r *runner) emit(m map[string]any, line string) {
	if r.o.JSON {
		r.encode(m)
		return
	}
	if line != "" && r.o.Err != nil {
		fmt.Fprintln(r.o.Err, line)
	}
}

// approve answers the calls that are still undecided. With --yes the
// approvals already ran everything /yolo would approve in this isolation
// (Approvals.SetYes), so what reaches here needs a person, and there is
// none: it does not run, and the line says what would let that call run
// (Approvals.Hint: per tool, isolation and --yes), or that only a person can.
func (r *runner) approve(req agent.ApprovalRequested) {
	if r.o.Unattended != nil {
		r.keep(req)
		return
	}
	v := make([]message.Verdict, len(req.Calls))
	for i, c := range req.Calls {
		v[i] = message.Unattended
		untrusted := len(c.Check.Untrusted) > 0
		h := r.o.Agent.Approvals().Hint(c.Check)
		if r.hints == nil {
			r.hints = map[string]string{}
		}
		r.hints[c.CallID] = h
		m := map[string]any{"type": "approval", "id": c.CallID, "name": c.Tool, "reason": c.Check.Reason, "answer": "needs approval", "hint": h}
		line := fmt.Sprintf("needs approval: %s (%s) — %s", present.Call(c.Tool, c.Args), safe.Text(c.Check.Reason), safe.Text(h)) // h may name an MCP server
		if untrusted {
			m["untrusted_sources"] = c.Check.Untrusted
			if o := c.Check.Outbound; o != nil {
				m["to"], m["sends"] = o.To, o.What
			}
			for _, l := range present.Risk(c.Check) {
				line += "\n" + safe.Text(l)
			}
		}
		r.emit(m, line)
	}
	req.Reply(v)
}

// declineForm declines a form an MCP server asks for: nobody is there to
// fill it in. The line names the server and says where it can be answered.
func (r *runner) declineForm(req agent.FormRequested) {
	req.Reply(tools.FormAnswer{Action: tools.FormDecline})
	what := "a form"
	if req.Form.URL != "" {
		what = "to open a URL"
	}
	hint := "run the same request in the chat (co) to answer it"
	m := map[string]any{"type": "elicitation", "id": req.CallID, "server": req.Form.Server, "answer": "declined", "hint": hint}
	if len(req.Form.Fields) > 0 {
		names := make([]string, len(req.Form.Fields))
		for i, f := range req.Form.Fields {
			names[i] = f.Name
		}
		m["fields"] = names
	}
	r.emit(m, fmt.Sprintf("declined: MCP server %s asked for %s, and nobody is here to answer it in co run; %s", safe.Text(req.Form.Server), what, hint))
}

func validJSON(s string) string {
	if json.Valid([]byte(s)) {
		return s
	}
	b, _ := json.Marshal(s)
	return string(b)
}

// shellTool is the shell tool's name (tools/shell).
const shellTool = "run_shell_command"

// keep answers a scheduled run's calls that need approval: each is kept
// waiting for the user in the store, with what the user needs to decide
// it (why it asks, the untrusted content the run had read, where an
// outbound call goes), and does not run. One that cannot be kept (the
// store failing) does not run either, as in co run.
func (r *runner) keep(req agent.ApprovalRequested) {
	u := r.o.Unattended
	sid := r.o.Agent.SessionID()
	// The whole conversation's untrusted sources: what the model had read
	// when it made the call, outbound or not.
	untrusted := r.o.Agent.Risk().Labels()
	v := make([]message.Verdict, len(req.Calls))
	for i, c := range req.Calls {
		p := sessions.Pending{SessionID: sid, CallID: c.CallID, Tool: c.Tool, Args: c.Args, Reason: c.Check.Reason, Untrusted: untrusted}
		if o := c.Check.Outbound; o != nil {
			p.To, p.Sends = o.To, o.What
		}
		if r.hints == nil {
			r.hints = map[string]string{}
		}
		m := map[string]any{"type": "approval", "id": c.CallID, "name": c.Tool, "reason": c.Check.Reason}
		if len(untrusted) > 0 {
			m["untrusted_sources"] = untrusted
		}
		if p.To != "" || p.Sends != "" {
			m["to"], m["sends"] = p.To, p.Sends
		}
		id, err := u.Store.AddPending(p)
		if err != nil {
			v[i] = message.Unattended
			h := "it could not be kept waiting (" + err.Error() + "), so it did not run: run the same request in the chat"
			r.hints[c.CallID] = safe.Text(h)
			m["answer"], m["hint"] = "needs approval", h
			r.emit(m, fmt.Sprintf("needs approval: %s (%s) — %s", present.Call(c.Tool, c.Args), safe.Text(c.Check.Reason), safe.Text(h)))
			continue
		}
		v[i] = message.Wait
		h := fmt.Sprintf("kept as call %d: co inbox lists it; approve it in the chat: /inbox approve %d", id, id)
		r.hints[c.CallID] = h
		m["answer"], m["hint"], m["pending_id"] = "waiting", h, id
		line := fmt.Sprintf("waiting for approval: %s (%s) — %s", present.Call(c.Tool, c.Args), safe.Text(c.Check.Reason), h)
		if len(untrusted) > 0 {
			line += "\n  after untrusted content from " + safe.Text(agent.SourceList(untrusted))
		}
		if c.Tool == shellTool && slices.Contains(u.Approve, c.Tool) && !c.Check.AlwaysAsk && len(c.Check.Untrusted) == 0 {
			// Why the approve list did not run it (agent.Approvals).
			line += "\n  the schedule's approve list names " + shellTool + ", but commands run unsandboxed here: it runs them only in the Docker sandbox, or with yolo_unsandboxed"
		}
		r.emit(m, line)
	}
	req.Reply(v)
}

// saveOutcome saves how a scheduled run ended, for co inbox and
// co schedule list: "done", "done, 2 calls waiting", "failed: …".
func (r *runner) saveOutcome() {
	out := "done"
	switch {
	case r.interrupted:
		out = "interrupted"
	case r.failed != "":
		out = "failed: " + present.FirstLine(r.failed)
	}
	if r.protected {
		out += ", protected files changed (see the log)"
	}
	switch {
	case r.waiting == 1:
		out += ", 1 call waiting"
	case r.waiting > 1:
		out += fmt.Sprintf(", %d calls waiting", r.waiting)
	}

	// A name in approve or tools that is no tool (a typo, a server that
	// did not start) approves or offers nothing: said, not silently.
	if r.o.Err != nil {
		for _, w := range unknownTools(r.o.Agent.Tools(), r.o.Unattended) {
			fmt.Fprintf(r.o.Err, "co: warning: %s\n", safe.Text(w))
		}
	}
	if r.waiting > 0 && !r.o.JSON && r.o.Err != nil {
		// The last line of the run's log (co schedule logs): where to go.
		fmt.Fprintf(r.o.Err, "co: %s for your approval: co inbox lists them; approve one in the chat with /inbox approve ID\n", waitNote(r.waiting))
	}
	if err := r.o.Unattended.Store.SetOutcome(r.o.Agent.SessionID(), out); err != nil && r.o.Err != nil {
		fmt.Fprintf(r.o.Err, "co: the run's outcome was not saved: %v\n", err)
	}
}

func waitNote(n int) string {
	if n == 1 {
		return "1 call waits"
	}
	return fmt.Sprintf("%d calls wait", n)
}

// unknownTools says which names of the schedule's approve and tools
// settings are no tool of this run (checked at its end: an MCP server's
// tools come when it connects).
func unknownTools(reg *tools.Registry, u *Unattended) []string {
	if reg == nil {
		return nil
	}
	var out []string
	for _, set := range []struct {
		key   string
		names []string
	}{{"approve", u.Approve}, {"tools", u.Tools}} {
		for _, n := range set.names {
			if _, ok := reg.Get(n); !ok {
				out = append(out, fmt.Sprintf("the schedule %q's %q setting names %q, which is no tool of this run, so it changed nothing (co status and /tools list the tools)", u.Schedule, set.key, n))
			}
		}
	}
	return out
}
