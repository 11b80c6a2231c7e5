package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/co-cli/co/hooks"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

type callItem struct {
	call    message.ToolCall
	tool    tools.Tool
	check   tools.Check
	retry   string // set when the call is malformed
	decided bool
	run     bool
	by      message.Source
	bang    bool          // the user's own !cmd: no hook runs for it
	hook    hooks.Outcome // what its PreToolUse hooks said (hooks.go)
}

// runCalls decides, asks about and runs one batch of calls, appending their
// results to the history (unless bang).
func (a *Agent) runCalls(ctx context.Context, e *emitter, st *turnState, calls []message.ToolCall, bang bool) []ToolCallFinished {
	items := make([]*callItem, len(calls))
	for i, c := range calls {
		it := &callItem{call: c, bang: bang}
		items[i] = it
		e.send(ToolCallStarted{CallID: c.ID, Name: c.Name, Args: c.Args, Bang: bang})
		t, ok := a.cfg.Tools.Get(c.Name)
		if !ok {
			it.retry = fmt.Sprintf("there is no tool named %q; the tools are: %s", c.Name, strings.Join(a.cfg.Tools.Names(), ", "))
			continue
		}
		if !a.offered(t) {
			it.retry = fmt.Sprintf("the tool %s is not offered in this scheduled run (its \"tools\" setting leaves it out); do without it", c.Name)
			continue
		}
		it.tool = t
		if err := a.validator.Validate(t, json.RawMessage(c.Args)); err != nil {
			it.retry = err.Error()
			continue
		}
		it.check = tools.Decide(ctx, t, json.RawMessage(c.Args))
		if !bang {
			// A !cmd is the user's own: no content chose it.
			it.check = a.guard(it.check)
		}
		if it.check.Retry != "" {
			it.retry = it.check.Retry
			continue
		}
		if !bang {
			a.preToolHooks(ctx, e, it)
		}
		it.decided, it.run, it.by = a.cfg.Approvals.DecideHooked(t, it.check, it.hook.Decision)
	}

	var pending []*callItem
	for _, it := range items {
		if it.retry == "" && !it.decided {
			pending = append(pending, it)
		}
	}
	if len(pending) > 0 {
		req := ApprovalRequested{reply: make(chan []message.Verdict, 1)}
		names := make([]string, len(pending))
		for i, it := range pending {
			req.Calls = append(req.Calls, PendingCall{CallID: it.call.ID, Tool: it.call.Name, Args: it.call.Args, Check: it.check})
			names[i] = it.call.Name
		}
		if !a.cfg.Approvals.Unattended() {
			// A scheduled run waits for nobody: its calls go to the inbox.
			a.notifyHooks(ctx, e, "permission_prompt", "co needs your approval to run "+strings.Join(names, ", "))
		}
		e.send(req)
		var verdicts []message.Verdict
		select {
		case <-ctx.Done():
		case verdicts = <-req.reply:
		}
		for k, it := range pending {
			v := message.Deny
			if k < len(verdicts) {
				v = verdicts[k]
			}
			if !bang {
				// A !cmd's answer is saved with its run (its aside says
				// who decided), as its result is: it is no message.
				a.recordDecision(e, it, v)
			}
			switch v {
			case message.ApproveSession:
				a.cfg.Approvals.Grant(it.check)
				it.run, it.by = true, message.ByUser
			case message.ApproveOnce:
				it.run, it.by = true, message.ByUser
			case message.Unattended:
				it.run, it.by = false, message.ByHeadless
			case message.Wait:
				it.run, it.by = false, message.ByWaiting
			default:
				it.run, it.by = false, message.ByUserDenied
			}
		}
	}

	fins := make([]ToolCallFinished, 0, len(items))
	for _, it := range items {
		fin, content := a.runOne(ctx, e, it, st)
		fin.Bang = bang
		if bang && fin.Status == message.CallRetry {
			// No model is involved in a !cmd: nothing is sent back to
			// one, so a call the model would retry simply failed.
			fin.Status = message.CallFailed
		}
		if !bang {
			// Saved before it is shown: what is on screen is on disk.
			a.appendHistory(e, message.Message{Role: message.RoleTool, ToolCallID: it.call.ID, ToolName: it.call.Name, Content: content, Sources: fin.Result.Origins})
		}
		e.send(fin)
		fins = append(fins, fin)
	}
	return fins
}

func (a *Agent) recordDecision(e *emitter, it *callItem, v message.Verdict) {
	a.mu.Lock()
	rec := a.rec
	a.mu.Unlock()
	if rec != nil {
		a.record(e, func() error { return rec.Decision(it.call.ID, it.call.Name, v) })
	}
}

func (a *Agent) runOne(ctx context.Context, e *emitter, it *callItem, st *turnState) (fin ToolCallFinished, content string) {
	fin = ToolCallFinished{CallID: it.call.ID, Name: it.call.Name, Decision: it.by}
	ctx, span := a.tracer.Start(ctx, "execute_tool "+it.call.Name, trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", it.call.Name),
		attribute.String("co.tool.family", ToolFamily(it.tool)),
		attribute.String("gen_ai.tool.call.id", it.call.ID),
		attribute.Int("co.tool.args_size", len(it.call.Args)),
		attribute.String("co.approval.decision", it.check.Decision.String()),
		attribute.String("co.approval.by", string(it.by)),
	))
	if sa, ok := it.tool.(tools.SpanAttributer); ok {
		for k, v := range sa.SpanAttributes() {
			span.SetAttributes(attribute.String(k, v))
		}
	}
	if it.hook.Ran > 0 {
		span.SetAttributes(attribute.String("co.hook.decision", string(it.hook.Decision)))
	}
	if len(it.check.Untrusted) > 0 {
		span.SetAttributes(attribute.StringSlice("co.risk.untrusted", it.check.Untrusted))
	}
	if span.IsRecording() {
		span.SetAttributes(attribute.String("gen_ai.tool.call.arguments", it.call.Args))
	}
	start := time.Now()
	defer func() {
		fin.Duration = time.Since(start)
		span.SetAttributes(attribute.String("co.tool.status", fin.Status.String()), attribute.Int("co.tool.result_size", len(content)))
		if span.IsRecording() {
			span.SetAttributes(attribute.String("gen_ai.tool.call.result", content))
		}
		if code, ok := fin.Result.Meta["exit_code"]; ok {
			span.SetAttributes(attribute.String("co.tool.exit_code", fmt.Sprint(code)))
		}
		if len(fin.Result.Origins) > 0 {
			span.SetAttributes(attribute.StringSlice("co.provenance", Labels(fin.Result.Origins)))
		}
		if iso, ok := fin.Result.Meta["isolation"]; ok {
			span.SetAttributes(attribute.String("co.sandbox.isolation", fmt.Sprint(iso)))
		}
		if fin.Status == message.CallFailed || fin.Status == message.CallRetry {
			span.SetStatus(codes.Error, fin.Err)
			span.RecordError(errors.New(fin.Err))
		}
		span.End()
	}()

	switch {
	case ctx.Err() != nil:
		fin.Status, fin.Err = message.CallInterrupted, message.InterruptedResult
		return fin, message.InterruptedResult
	case it.retry != "":
		return a.retryResult(fin, it.call.Name, it.retry, st)
	case !it.run && it.by == message.ByWaiting:
		// A scheduled run's call that needs approval: not denied, kept
		// waiting for the user (issue 29).
		fin.Status, fin.Err = message.CallWaiting, Waiting
		span.SetAttributes(attribute.Bool("co.approval.waiting", true))
		return fin, waitingJSON(it.check.Reason)
	case !it.run:
		fin.Status = message.CallDenied
		switch it.by {
		case message.ByPolicyDeny:
			fin.Err = PolicyDenied(it.check.Reason)
			return fin, deniedJSON("policy", it.check.Reason, "This call is forbidden by co's policy and will never run. Do not retry it; find another way or tell the user.")
		case message.ByHookDeny:
			return hookDenied(fin, it)
		case message.ByHeadless:
			fin.Err = NeedsApproval
			return fin, deniedJSON("nobody", it.check.Reason, "This call needs approval and no one is present to give it (a headless run), so it did not run. Do not retry it; do what you can without it and tell the user what needs approval.")
		}
		fin.Err = "denied by the user"
		return fin, deniedJSON("user", it.check.Reason, "The user denied this call; it did not run. Do not repeat it unchanged: propose another way or ask the user.")
	}

	// No tool runs before the turn's checkpoint has begun; the call's
	// context carries the session's journal and the turn.
	if u := st.undo; u != nil {
		var ok bool
		if ctx, ok = u.ready(ctx, a, e); !ok {
			fin.Status, fin.Err = message.CallInterrupted, message.InterruptedResult
			return fin, message.InterruptedResult
		}
	}
	// A PostToolUse hook is told the files this call changed: the
	// workspace is scanned before and after it, only when one matches.
	post := !it.bang && a.postToolWanted(it)
	if post {
		markChanges(st.undo)
		defer func() {
			// As Claude Code's, for a call that ran to its end: done,
			// or failed (a command's non-zero exit), not one called
			// wrongly.
			if (fin.Status == message.CallDone || fin.Status == message.CallFailed) && ctx.Err() == nil {
				content = a.postToolHooks(ctx, e, it, fin, content, changedFiles(st.undo))
			}
		}()
	}
	// What the tool has to say while it runs (tools.Notify) is a Notice,
	// before the call's result.
	ctx = tools.WithNotice(ctx, func(text string) { e.send(Notice{Text: text, CallID: it.call.ID}) })
	forms := &formGate{}
	ctx = tools.WithForm(ctx, a.askForm(ctx, e, it.call.ID, forms))
	if w := a.cfg.Protected; w != nil && mayChangeProtected(it) {
		w.BeginApproved()
	}
	res, err := safeRun(ctx, it.tool, json.RawMessage(it.call.Args))
	if w := a.cfg.Protected; w != nil && mayChangeProtected(it) {
		w.EndApproved()
	}
	forms.end()
	fin.Result = res
	switch {
	case ctx.Err() != nil:
		fin.Status, fin.Err = message.CallInterrupted, message.InterruptedResult
		return fin, message.InterruptedResult
	case tools.IsRetry(err):
		msg := err.Error()
		if res.Display != "" {
			msg = msg + "\n" + res.Display
		}
		return a.retryResult(fin, it.call.Name, msg, st)
	case tools.IsFailed(err):
		// It ran and failed (a command's non-zero exit): the model sees
		// why and the output, but it called nothing wrongly.
		delete(st.retries, it.call.Name)
		fin.Status, fin.Err = message.CallFailed, err.Error()
		content = errorPrefix + failedPrefix + err.Error()
		if res.Display != "" {
			content += "\n" + res.Display
		}
		return fin, content
	case err != nil:
		fin.Status, fin.Err = message.CallFailed, err.Error()
		return fin, errorPrefix + failedPrefix + err.Error()
	}
	st.retries[it.call.Name] = 0
	fin.Status = message.CallDone
	return fin, res.ForModel()
}

func (a *Agent) retryResult(fin ToolCallFinished, name, msg string, st *turnState) (ToolCallFinished, string) {
	fin.Status, fin.Err = message.CallRetry, msg
	if st.retries == nil {
		st.retries = map[string]int{}
	}
	st.retries[name]++
	if st.retries[name] > a.cfg.ToolRetries {
		st.failed = fmt.Sprintf("The model called %s wrongly %d times in a row (tool_retries is %d), so the turn stopped. Last error: %s", name, st.retries[name], a.cfg.ToolRetries, firstLine(msg))
	}
	return fin, errorPrefix + msg + retryHint
}

// NeedsApproval is the error of a call that needed approval with nobody
// there to give it.
const NeedsApproval = "needs approval: nobody was asked"

// PolicyDenied is the error of a call the policy denies: "denied by
// policy: REASON", without repeating "denied" when the reason starts so.
func PolicyDenied(reason string) string {
	return "denied by policy: " + DenyReason(reason)
}

// DenyReason is a deny's reason without the "denied" it starts with
// ("denied: fork bomb", "denied by rule \"rm\"": the shell policy's
// wording), for a line that already says it is a deny.
func DenyReason(reason string) string {
	if r, ok := strings.CutPrefix(reason, "denied: "); ok {
		return r
	}
	if r, ok := strings.CutPrefix(reason, "denied by "); ok {
		return r
	}
	return reason
}

// ToolFamily is the family a tool belongs to, for the spans: its package
// under tools/ (shell, files, google, slack, notes, web, todo), or the last
// element of its package path for a tool defined elsewhere; "" when the
// model named no tool co has.
func ToolFamily(t tools.Tool) string {
	if t == nil {
		return ""
	}
	ty := reflect.TypeOf(t)
	for ty.Kind() == reflect.Pointer {
		ty = ty.Elem()
	}
	p := ty.PkgPath()
	if i := strings.Index(p, "/tools/"); i >= 0 {
		return strings.SplitN(p[i+len("/tools/"):], "/", 2)[0]
	}
	return p[strings.LastIndexByte(p, '/')+1:]
}

func deniedJSON(by, reason, msg string) string {
	b, _ := json.Marshal(map[string]any{"status": "denied", "denied_by": by, "reason": reason, "message": msg})
	return string(b)
}

func safeRun(ctx context.Context, t tools.Tool, args json.RawMessage) (res tools.Result, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("tool %s panicked: %v", t.Name(), r)
		}
	}()
	return t.Run(ctx, args)
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}
