// Package tools defines what a tool is for co: the Tool interface, the Result
// it returns, the Retry error that sends a mistake back to the model, the
// approval Check a side-effecting tool makes per call, and the Registry that
// holds the tools of one chat session.
//
// Tool families live in sub-packages (tools/shell, tools/files, ...). They
// import this package and never agent or a front end (ui/). Per-session state (page tokens,
// credentials, todos) lives in the tool values built for that session, never
// in package globals.
package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
)

// Class is a tool's approval class: what happens by default when the model
// calls it.
type Class int

const (
	// ReadOnly tools run at once.
	ReadOnly Class = iota
	// SideEffect tools stop for approval unless their Check says otherwise.
	SideEffect
)

func (c Class) String() string {
	if c == ReadOnly {
		return "read-only"
	}
	return "ask"
}

// Tool is one function the model may call.
type Tool interface {
	// Name is verb_noun, e.g. run_shell_command.
	Name() string
	// Description is sent to the model.
	Description() string
	// Schema is the JSON Schema of the arguments object.
	Schema() json.RawMessage
	// Class is the approval class.
	Class() Class
	// Run executes the call. A *Retry error goes back to the model as "you
	// called this wrong"; a *Failed error as "it ran and failed" (a command
	// that exited non-zero), with the result's output; any other error is
	// an infrastructure failure.
	Run(ctx context.Context, args json.RawMessage) (Result, error)
}

// Checker is implemented by tools whose approval depends on the arguments
// (the shell's command policy, file writes to places that run code later, web
// fetches of URLs the user never gave). Tools without it are decided by Class.
type Checker interface {
	Check(ctx context.Context, args json.RawMessage) Check
}

// PromptObserver is implemented by tools that need to see what the user
// typed: the web tools let a URL run without asking only if it appeared in
// the user's messages (or an earlier result). The agent calls ObservePrompt
// with every user prompt of the session before the model sees it.
type PromptObserver interface {
	ObservePrompt(text string)
}

// AttachmentObserver is implemented by tools that also need to see the
// files attached to a user message (@path): their text is the workspace's,
// which the model may have written, so a URL in it counts as one from an
// earlier result, not as one the user gave.
type AttachmentObserver interface {
	ObserveAttached(text string)
}

// SpanAttributer is implemented by tools whose execute_tool spans carry
// more than the tool's name and family: an MCP tool names its server
// (co.mcp.server). Keys are attribute names, values plain strings.
type SpanAttributer interface {
	SpanAttributes() map[string]string
}

// OwnState is implemented by tools of the ReadOnly class that change
// something all the same, but only co's own state in this run (the todo
// list): they run at once, and /tools says what they change rather than
// calling them read-only.
type OwnState interface {
	// Changes names what the tool changes, e.g. "the run's todo list".
	Changes() string
}

// Drafter is implemented by tools that only draft: what they make stays
// with the user, unsent, to review (a Gmail draft). An unattended
// (scheduled) run may make a draft without asking, as long as no
// untrusted content came before it (agent.Approvals.SetUnattended).
type Drafter interface {
	// Drafts names what the tool makes, e.g. "a Gmail draft (not sent)".
	Drafts() string
}

// Decision is the policy's verdict on one call.
type Decision int

const (
	Allow Decision = iota // runs without asking
	Ask                   // stops for the user
	Deny                  // never runs, whatever grants or yolo say
)

func (d Decision) String() string {
	switch d {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	default:
		return "deny"
	}
}

// Check is the approval verdict for one call, with what the approval modal
// needs to show.
type Check struct {
	Decision Decision
	// Reason is human-readable: why it asks or denies.
	Reason string
	// Scope is the key a session grant ("a" in the modal) applies to, e.g.
	// "run_shell_command:git status". Empty means the tool name.
	Scope string
	// ScopeLabel is how the scope is shown to the user, e.g. "git status".
	ScopeLabel string
	// AlwaysAsk means no grant and no yolo may approve this call: the user
	// must answer it each time (writes to .git/, .envrc, ...).
	AlwaysAsk bool
	// NoYolo means yolo does not approve this call, though a session grant
	// for its scope may (a URL the user never gave: yolo must not turn the
	// exfiltration guard off).
	NoYolo bool
	// Preview is a readable rendering of what will happen (a diff, a draft
	// email, a Slack post), shown in the modal. Plain text, never styled.
	Preview string
	// Where are the lines a question shows under a shell command: where it
	// runs (the sandbox, whose workspace is /workspace) and what a host
	// path it names is there. Plain text, never styled.
	Where []string
	// Retry, when not empty, fails the call at once: it is neither asked
	// about nor run, and the model is told Retry as for arguments that do
	// not validate. For a check that cannot be made now (the memory store
	// busy in another co): asking without it would be unsafe, waiting for
	// it would stall the turn.
	Retry string
	// Outbound, when set, says the call sends data off the machine, changes
	// what others see, or changes what runs or steers co later: once
	// untrusted content is in the conversation it always asks (see Origin).
	Outbound *Outbound
	// Untrusted, set by the agent on a call that asks because it follows
	// untrusted content, names those sources ("web 127.0.0.1:8765/page").
	Untrusted []string
	// Unattended, on a call that asks, says what of the tool's own lets
	// such a call run without asking anyone ("set memory_auto_save to true
	// …", "write the URL in your request"); empty when nothing of the
	// tool's does. co run's hints name it (agent.Approvals.Ways).
	Unattended string
	// SandboxAllows, on a shell command that asks only because commands run
	// unsandboxed, says the command policy runs it without asking in the
	// Docker sandbox.
	SandboxAllows bool
}

// Decide returns the Check for a call of t with args: the tool's own Checker
// when it has one, otherwise its Class.
func Decide(ctx context.Context, t Tool, args json.RawMessage) Check {
	if c, ok := t.(Checker); ok {
		ch := c.Check(ctx, args)
		if ch.Scope == "" {
			ch.Scope = t.Name()
		}
		if ch.ScopeLabel == "" {
			ch.ScopeLabel = t.Name()
		}
		return ch
	}
	if t.Class() == ReadOnly {
		return Check{Decision: Allow, Reason: "read-only tool", Scope: t.Name(), ScopeLabel: t.Name()}
	}
	return Check{Decision: Ask, Reason: "this tool has side effects", Scope: t.Name(), ScopeLabel: t.Name()}
}

// Result is what a tool returns: text shown verbatim to the user plus
// metadata for the model (count, has_more, ...).
type Result struct {
	// Display is shown verbatim to the user and sent to the model.
	Display string
	// Meta holds small JSON-encodable fields such as count and has_more.
	Meta map[string]any
	// Origins say where the content came from when it is not the
	// workspace or the machine: a web page, a mail's sender, a Slack
	// channel, an MCP server. Never sent to the model.
	Origins []Origin
}

// Text is a Result with only display text.
func Text(s string) Result { return Result{Display: s} }

// ForModel is the text sent back to the model as the tool's result: the
// display alone when there is no metadata, otherwise a JSON object with a
// display field beside the metadata.
func (r Result) ForModel() string {
	if len(r.Meta) == 0 {
		return r.Display
	}
	m := make(map[string]any, len(r.Meta)+1)
	for k, v := range r.Meta {
		m[k] = v
	}
	m["display"] = r.Display
	b, err := json.Marshal(m)
	if err != nil {
		return r.Display
	}
	return string(b)
}

// Retry is the error a tool returns when the model called it wrongly (bad
// arguments, unknown id, service not configured). Its message goes back to
// the model, which may try again; it counts against tool_retries.
type Retry struct{ Msg string }

func (e *Retry) Error() string { return e.Msg }

// Retryf makes a *Retry with a formatted message.
func Retryf(format string, a ...any) error { return &Retry{Msg: fmt.Sprintf(format, a...)} }

// IsRetry reports whether err is (or wraps) a *Retry.
func IsRetry(err error) bool {
	var r *Retry
	return errors.As(err, &r)
}

// Failed is the error a tool returns when the call was right and ran but
// what it ran failed: a shell command that exited non-zero or timed out.
// The message goes back to the model with the result's output, so it can
// try another way, but the call is shown as failed, not as the model's
// mistake, and it does not count against tool_retries.
type Failed struct{ Msg string }

func (e *Failed) Error() string { return e.Msg }

// Failedf makes a *Failed with a formatted message.
func Failedf(format string, a ...any) error { return &Failed{Msg: fmt.Sprintf(format, a...)} }

// IsFailed reports whether err is (or wraps) a *Failed.
func IsFailed(err error) bool {
	var f *Failed
	return errors.As(err, &f)
}

// Registry holds the tools of one session, by name. It is safe for
// concurrent use: tools that come and go while co runs (an MCP server's,
// added when it connects, withdrawn when it exits or changes its list) are
// added and removed while turns read it.
type Registry struct {
	mu     sync.RWMutex
	byName map[string]Tool
	order  []string
}

// NewRegistry makes a registry of ts. Duplicate names are an error.
func NewRegistry(ts ...Tool) (*Registry, error) {
	r := &Registry{byName: map[string]Tool{}}
	for _, t := range ts {
		if err := r.Add(t); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// Add registers t.
func (r *Registry) Add(t Tool) error {
	n := t.Name()
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.byName[n]; dup {
		return fmt.Errorf("tool %q registered twice", n)
	}
	r.byName[n] = t
	r.order = append(r.order, n)
	return nil
}

// Remove withdraws the tools called names; names not registered are
// ignored.
func (r *Registry) Remove(names ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	drop := map[string]bool{}
	for _, n := range names {
		if _, ok := r.byName[n]; ok {
			drop[n] = true
			delete(r.byName, n)
		}
	}
	if len(drop) == 0 {
		return
	}
	kept := r.order[:0:0]
	for _, n := range r.order {
		if !drop[n] {
			kept = append(kept, n)
		}
	}
	r.order = kept
}

// Get returns the tool called name.
func (r *Registry) Get(name string) (Tool, bool) {
	if r == nil {
		return nil, false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.byName[name]
	return t, ok
}

// All returns the tools in registration order.
func (r *Registry) All() []Tool {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make([]Tool, 0, len(r.order))
	for _, n := range r.order {
		out = append(out, r.byName[n])
	}
	return out
}

// Names returns the sorted tool names.
func (r *Registry) Names() []string {
	if r == nil {
		return nil
	}
	r.mu.RLock()
	out := append([]string(nil), r.order...)
	r.mu.RUnlock()
	sort.Strings(out)
	return out
}

// Len is the number of tools.
func (r *Registry) Len() int {
	if r == nil {
		return 0
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.order)
}

// Unconfigured describes a tool family that is not offered to the model
// because its service is not set up, with the one line that says how.
type Unconfigured struct {
	Family string   // e.g. "Slack"
	Tools  []string // tool names it would add
	Hint   string   // e.g. "set SLACK_BOT_TOKEN"
}

// String renders u for /tools and co status.
func (u Unconfigured) String() string {
	return fmt.Sprintf("%s (%s): not configured — %s", u.Family, strings.Join(u.Tools, ", "), u.Hint)
}
