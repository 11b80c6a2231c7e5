package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/co-cli/co/checkpoint"
	"github.com/co-cli/co/hooks"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

// Hooks (issue 42): package hooks runs the user's commands (Config.Hooks)
// and says what they said; here their word is put where it belongs.
// SessionStart (once per conversation) and UserPromptSubmit (before the
// prompt is saved; a block ends the turn unsent) add context the turn's
// requests carry, never saved. PreToolUse's decision goes through
// Approvals.DecideHooked, the one approval path, which no hook widens.
// PostToolUse is told the result and the files the call changed (the
// turn's checkpoint, scanned only when such a hook matches). A Stop block
// makes the turn go on once. Notification runs when co waits for the
// user, PreCompact before a summary. Each run is a span under the turn's
// or the call's; messages are Notices, a failure is said once a session.

// hookState is the agent's memory of its hooks; guarded by Agent.mu.
type hookState struct {
	// started: SessionStart ran for this conversation; resumed: the
	// conversation was restored (its source is "resume"), cleared: /clear
	// began it ("clear").
	started, resumed, cleared bool
	// session is SessionStart's context, sent with every turn.
	session string
	// told are the failures said already: session, event and command.
	told map[string]bool
}

// hookSaid shows what hooks said for the user: their messages, and each
// failure once per session.
func (a *Agent) hookSaid(e *emitter, out hooks.Outcome) {
	if e == nil {
		return
	}
	for _, m := range out.Messages {
		e.send(Notice{Text: "hook: " + m})
	}
	sid := a.SessionID()
	for _, f := range out.Failures {
		key := sid + "\x00" + string(f.Event) + "\x00" + f.Command
		a.mu.Lock()
		if a.hooks.told == nil {
			a.hooks.told = map[string]bool{}
		}
		told := a.hooks.told[key]
		a.hooks.told[key] = true
		a.mu.Unlock()
		if told {
			continue
		}
		text := "A hook failed: " + f.String() + "."
		if f.Event == hooks.PreToolUse {
			text += ` The call went ahead (a failing hook lets calls through); give the hook "on_failure": "block" to stop calls when it fails.`
		}
		e.send(Notice{Text: text + " (Said once per session.)"})
	}
}

// runHooks runs ev's hooks when any matches subject, and shows what they
// said for the user; ok is false when none ran.
func (a *Agent) runHooks(ctx context.Context, e *emitter, ev hooks.Event, subject string, in hooks.Input) (hooks.Outcome, bool) {
	if !a.cfg.Hooks.Has(ev, subject) {
		return hooks.Outcome{}, false
	}
	out := a.cfg.Hooks.Run(ctx, ev, in)
	if ctx.Err() != nil {
		// Interrupted: the hooks were killed with the turn, which is no
		// failure of theirs to tell.
		out.Failures = nil
	}
	a.hookSaid(e, out)
	return out, out.Ran > 0
}

// blockedBy names the hooks that blocked, for the user and the model.
func blockedBy(out hooks.Outcome) string {
	if len(out.Blockers) == 0 {
		return "a hook"
	}
	q := make([]string, len(out.Blockers))
	for i, b := range out.Blockers {
		q[i] = fmt.Sprintf("%q", b)
	}
	if len(q) == 1 {
		return "the hook " + q[0]
	}
	return "the hooks " + strings.Join(q, ", ")
}

// preToolHooks runs the PreToolUse hooks of a call the model made, before
// it is decided: it.hook keeps what they said, and a hook's question says
// why it asks.
func (a *Agent) preToolHooks(ctx context.Context, e *emitter, it *callItem) {
	out, ok := a.runHooks(ctx, e, hooks.PreToolUse, it.call.Name, hooks.Input{
		ToolName: it.call.Name, ToolInput: json.RawMessage(it.call.Args), ToolUseID: it.call.ID})
	if !ok {
		return
	}
	it.hook = out
	if out.Decision == hooks.Ask && it.check.Decision != tools.Deny {
		why := "a hook asks"
		if out.DecisionReason != "" {
			why += ": " + out.DecisionReason
		}
		if it.check.Decision == tools.Allow || it.check.Reason == "" {
			it.check.Reason = why
		} else {
			it.check.Reason = why + "; " + it.check.Reason
		}
		it.check.Decision = tools.Ask
		// Only a person answers it: no --yes, yolo, sandbox or tool
		// setting would (Approvals.Hint says so in co run). Not
		// AlwaysAsk, which would also let the call change protected
		// files once approved.
		it.check.NoYolo, it.check.Unattended, it.check.SandboxAllows = true, "", false
	}
}

// hookDenied is the result of a call a PreToolUse hook blocked.
func hookDenied(fin ToolCallFinished, it *callItem) (ToolCallFinished, string) {
	reason := it.hook.Reason
	if reason == "" {
		reason = it.hook.DecisionReason
	}
	who := blockedBy(it.hook)
	fin.Status = message.CallDenied
	fin.Err = "blocked by " + who
	if reason != "" {
		fin.Err += ": " + reason
	}
	return fin, deniedJSON("hook", reason, "A PreToolUse hook of the user's ("+who+") blocked this call; it did not run. Do not retry it unchanged: follow the reason, find another way, or tell the user.")
}

// changeScanner is the optional side of a Checkpointer that says what
// changed during a turn since it was last asked (*checkpoint.Store).
type changeScanner interface {
	Changes(id string) ([]checkpoint.Change, error)
}

// postToolWanted reports whether a PostToolUse hook matches the call.
func (a *Agent) postToolWanted(it *callItem) bool {
	return a.cfg.Hooks.Has(hooks.PostToolUse, it.call.Name)
}

// markChanges scans the workspace before a call a PostToolUse hook will
// be told of, so that afterwards only that call's changes are named.
func markChanges(u *undoTurn) {
	if cs := scannerOf(u); cs != nil {
		_, _ = cs.Changes(u.id)
	}
}

func scannerOf(u *undoTurn) changeScanner {
	if u == nil || u.beginErr != nil {
		return nil
	}
	cs, _ := u.cp.(changeScanner)
	return cs
}

// changedFiles are the workspace's files the call changed (since
// markChanges), relative to the workspace; nil without a checkpoint.
func changedFiles(u *undoTurn) []string {
	cs := scannerOf(u)
	if cs == nil {
		return nil
	}
	changes, err := cs.Changes(u.id)
	if err != nil {
		return nil
	}
	var out []string
	for _, c := range changes {
		if (c.After != nil && c.After.Type == checkpoint.TypeDir) || (c.After == nil && c.Before != nil && c.Before.Type == checkpoint.TypeDir) {
			continue // a folder made or removed: its files are listed
		}
		out = append(out, filepath.ToSlash(c.Path))
	}
	return out
}

// postToolHooks runs the PostToolUse hooks of a call that ran, telling
// them its result as the model gets it; a block's reason and the hooks'
// context are added to that result.
func (a *Agent) postToolHooks(ctx context.Context, e *emitter, it *callItem, fin ToolCallFinished, content string, changed []string) string {
	resp := map[string]any{"status": fin.Status.String(), "content": content}
	if code, ok := fin.Result.Meta["exit_code"]; ok {
		resp["exit_code"] = code
	}
	if fin.Err != "" {
		resp["error"] = fin.Err
	}
	raw, _ := json.Marshal(resp)
	out, ok := a.runHooks(ctx, e, hooks.PostToolUse, it.call.Name, hooks.Input{ToolName: it.call.Name,
		ToolInput: json.RawMessage(it.call.Args), ToolUseID: it.call.ID, ToolResponse: raw, ChangedFiles: changed})
	if !ok {
		return content
	}
	var add []string
	if out.Block {
		reason := out.Reason
		if reason == "" {
			reason = "(no reason given)"
		}
		e.send(Notice{Text: "A PostToolUse hook (" + blockedBy(out) + ") objects to " + it.call.Name + ": " + reason, CallID: it.call.ID})
		add = append(add, "[The user's PostToolUse hook ("+blockedBy(out)+") objects to this call's result (the call already ran)]: "+reason)
	}
	for _, c := range out.Context {
		add = append(add, "[From the user's PostToolUse hook]: "+c)
	}
	if len(add) == 0 {
		return content
	}
	feedback := strings.Join(add, "\n")
	// A result in JSON (a tool's display with its meta) stays JSON, so a
	// resumed session still reads it back (Outcome).
	var obj map[string]any
	if strings.HasPrefix(content, "{") && json.Unmarshal([]byte(content), &obj) == nil {
		obj["hook_feedback"] = feedback
		if b, err := json.Marshal(obj); err == nil {
			return string(b)
		}
	}
	return content + "\n\n" + feedback
}

// sessionHooks runs SessionStart once per conversation, before its first
// turn: startup, resume (a restored conversation) or clear (after /clear).
func (a *Agent) sessionHooks(ctx context.Context, e *emitter) {
	a.mu.Lock()
	if a.hooks.started {
		a.mu.Unlock()
		return
	}
	a.hooks.started = true
	kind := "startup"
	switch {
	case a.hooks.resumed:
		kind = "resume"
	case a.hooks.cleared:
		kind = "clear"
	}
	a.mu.Unlock()
	out, ok := a.runHooks(ctx, e, hooks.SessionStart, kind, hooks.Input{Kind: kind})
	if !ok || len(out.Context) == 0 {
		return
	}
	a.mu.Lock()
	a.hooks.session = strings.Join(out.Context, "\n")
	a.mu.Unlock()
}

// promptHooks runs UserPromptSubmit before the model sees the prompt:
// blocked with why, or the context the hooks add for this turn.
func (a *Agent) promptHooks(ctx context.Context, e *emitter, prompt string) (block string, context []string) {
	out, ok := a.runHooks(ctx, e, hooks.UserPromptSubmit, "", hooks.Input{Prompt: prompt})
	if !ok {
		return "", nil
	}
	if out.Block {
		reason := out.Reason
		if reason == "" {
			reason = "no reason given"
		}
		return "The prompt was not sent: the UserPromptSubmit hook (" + blockedBy(out) + ") blocked it: " + reason, nil
	}
	return "", out.Context
}

// hookContext is the block the turn's requests put before the user's
// message (as recalled memories are): SessionStart's context and this
// turn's UserPromptSubmit context; never saved, never shown as the
// user's words.
func (a *Agent) hookContext(turn []string) string {
	a.mu.Lock()
	session := a.hooks.session
	a.mu.Unlock()
	var parts []string
	if session != "" {
		parts = append(parts, "[Context from the user's SessionStart hooks]\n"+session)
	}
	if len(turn) > 0 {
		parts = append(parts, "[Context from the user's UserPromptSubmit hooks]\n"+strings.Join(turn, "\n"))
	}
	return strings.Join(parts, "\n\n")
}

// stopHooks runs the Stop hooks after the model's final reply: the message
// to go on with when one blocks, at most once per turn.
func (a *Agent) stopHooks(ctx context.Context, e *emitter, st *turnState) (goOn string) {
	out, ok := a.runHooks(ctx, e, hooks.Stop, "", hooks.Input{StopActive: st.stopActive})
	if !ok || !out.Block {
		return ""
	}
	reason := out.Reason
	if reason == "" {
		reason = "(no reason given)"
	}
	if st.stopActive {
		e.send(Notice{Text: "A Stop hook (" + blockedBy(out) + ") blocked the reply again; the turn ends here (a Stop hook makes a turn go on once): " + reason})
		return ""
	}
	st.stopActive = true
	e.send(Notice{Text: "A Stop hook (" + blockedBy(out) + ") asks the model to go on: " + reason})
	return "[The user's Stop hook (" + blockedBy(out) + ") says the reply is not finished; go on]: " + reason
}

// notifyHooks runs the Notification hooks when co waits for the user.
func (a *Agent) notifyHooks(ctx context.Context, e *emitter, kind, msg string) {
	a.runHooks(ctx, e, hooks.Notification, kind, hooks.Input{Kind: kind, Message: msg})
}

// compactHooks runs the PreCompact hooks before a summary: kind is "auto"
// or "manual" (/compact). A PreCompact hook cannot stop the summary.
func (a *Agent) compactHooks(ctx context.Context, e *emitter, kind string) {
	a.runHooks(ctx, e, hooks.PreCompact, kind, hooks.Input{Kind: kind})
}
