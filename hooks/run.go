package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Origin is where a hook was configured.
type Origin struct {
	File    string // the settings file
	Project bool   // the project's .co-cli/settings.json (runs only with consent)
}

// Options make a Set.
type Options struct {
	User        Config
	UserFile    string
	Project     Config // the project file's hooks; run only when ProjectTrusted
	ProjectFile string
	// ProjectTrusted is the user's consent to the project file's hooks as
	// they are now (Trust); without it they are listed, never run.
	ProjectTrusted bool
	// Dir is the workspace: the hooks' working folder, cwd and
	// CO_PROJECT_DIR.
	Dir string
	// Session is the session's id (CO_SESSION_ID, session_id), asked at
	// each run: a chat's session is saved after its first turn.
	Session func() string
	Tracer  trace.Tracer
	// Environ is the hooks' environment before co's variables (nil:
	// os.Environ()).
	Environ []string
}

// Set is the hooks in force for a run. Its methods are safe for
// concurrent use; a nil Set has no hooks.
type Set struct {
	opts    Options
	entries []entry // the user's, then the project's (run only once trusted)
	tracer  trace.Tracer
	shell   func() string
	// trusted is the user's consent to the project's hooks: from
	// Options.ProjectTrusted, or given during the run (TrustProject).
	trusted atomic.Bool
}

type entry struct {
	ev      Event
	matcher string
	match   func(string) bool
	hook    Hook
	origin  Origin
}

// NewSet returns the hooks of opts: the user's, then the project's (which
// run only when trusted), each event's in the order written.
func NewSet(opts Options) *Set {
	s := &Set{opts: opts, tracer: opts.Tracer, shell: sync.OnceValue(findShell)}
	if s.tracer == nil {
		s.tracer = noop.NewTracerProvider().Tracer("")
	}
	s.trusted.Store(opts.ProjectTrusted)
	s.add(opts.User, Origin{File: opts.UserFile})
	s.add(opts.Project, Origin{File: opts.ProjectFile, Project: true})
	return s
}

func (s *Set) add(c Config, o Origin) {
	for _, ev := range Events {
		for _, g := range c[ev] {
			m, err := matcherFunc(g.Matcher)
			if err != nil { // Decode checked it
				continue
			}
			for _, h := range g.Hooks {
				s.entries = append(s.entries, entry{ev: ev, matcher: g.Matcher, match: m, hook: h, origin: o})
			}
		}
	}
}

// Listed is one hook as /hooks and co config show it.
type Listed struct {
	Event   Event
	Matcher string
	Hook    Hook
	Origin  Origin
	Active  bool // false: a project hook waiting for consent
}

// List is every configured hook, those of an untrusted project included
// (not Active).
func (s *Set) List() []Listed {
	if s == nil {
		return nil
	}
	var out []Listed
	for _, e := range s.entries {
		out = append(out, Listed{Event: e.ev, Matcher: e.matcher, Hook: e.hook, Origin: e.origin, Active: s.runs(e)})
	}
	return out
}

// AwaitingConsent reports whether the project has hooks that do not run
// until the user consents to them.
func (s *Set) AwaitingConsent() bool {
	return s != nil && !s.trusted.Load() && !s.opts.Project.Empty()
}

// Has reports whether any hook runs at ev for subject (a tool's name,
// SessionStart's source…): callers skip building an Input when none does.
func (s *Set) Has(ev Event, subject string) bool {
	if s == nil {
		return false
	}
	for _, e := range s.entries {
		if e.ev == ev && s.runs(e) && (!matched(ev) || e.match(subject)) {
			return true
		}
	}
	return false
}

// Input is what a hook is told about the event, beyond the session and
// the folder.
type Input struct {
	ToolName     string          // PreToolUse, PostToolUse
	ToolInput    json.RawMessage // the call's arguments
	ToolUseID    string          // the call's id
	ToolResponse json.RawMessage // PostToolUse: the call's result
	// ChangedFiles are the workspace files the call changed (PostToolUse),
	// relative to the workspace, whichever tool changed them.
	ChangedFiles []string
	Prompt       string // UserPromptSubmit
	Message      string // Notification
	// Kind is Notification's type, SessionStart's source (startup,
	// resume) or PreCompact's trigger (manual, auto): what their matcher
	// is tested against.
	Kind string
	// StopActive is Stop's stop_hook_active: the reply goes on because a
	// Stop hook blocked the last one.
	StopActive bool
}

// subject is what ev's matcher is tested against.
func (in Input) subject(ev Event) string {
	if ev == PreToolUse || ev == PostToolUse {
		return in.ToolName
	}
	return in.Kind
}

// Decision is a PreToolUse hook's permissionDecision.
type Decision string

// The decisions, strongest first: Deny beats Ask beats Allow.
const (
	Deny  Decision = "deny"
	Ask   Decision = "ask"
	Allow Decision = "allow"
)

// Outcome is what the hooks of one event said, together.
type Outcome struct {
	// Block: the action must not go on — PreToolUse's call, the
	// UserPromptSubmit's prompt; a Stop hook's block means the reply goes
	// on with Reason. Set by exit 2, a "deny" or "block" decision, or a
	// failure of a hook with on_failure "block".
	Block  bool
	Reason string
	// Blockers are the commands of the hooks that blocked, for the user
	// and the model to know which one did.
	Blockers []string
	// Decision is PreToolUse's strongest permissionDecision ("" none);
	// DecisionReason goes with it.
	Decision       Decision
	DecisionReason string
	// Context is text the hooks add for the model (additionalContext;
	// SessionStart's and UserPromptSubmit's plain standard output).
	Context []string
	// Messages are shown to the user (systemMessage).
	Messages []string
	// Failures are the hooks that failed without blocking.
	Failures []Failure
	// Ran is how many hooks ran.
	Ran int
}

// Failure is a hook that did not finish with 0 or 2.
type Failure struct {
	Event   Event
	Command string
	Origin  Origin
	Why     string // "exit 1", "timed out after 10s", "could not start: …"
	Stderr  string // its standard error, cut
}

func (f Failure) String() string {
	s := fmt.Sprintf("%s hook %q %s", f.Event, cut(f.Command, 80), f.Why)
	if f.Stderr != "" {
		s += ": " + cut(firstLines(f.Stderr, 3), 300)
	}
	return s
}

// outputCap bounds what co reads of a hook's standard output and error.
const outputCap = 64 << 10

// spanOutput bounds a hook's output kept on its span.
const spanOutput = 2000

// Run runs every hook of ev that matches in, all at once (as Claude Code
// does), waits for them and merges what they said. Each run is a span
// "execute_hook EVENT". ctx ending kills the hooks still running.
func (s *Set) Run(ctx context.Context, ev Event, in Input) Outcome {
	var out Outcome
	if s == nil {
		return out
	}
	var run []entry
	for _, e := range s.entries {
		if e.ev == ev && s.runs(e) && (!matched(ev) || e.match(in.subject(ev))) {
			run = append(run, e)
		}
	}
	if len(run) == 0 {
		return out
	}
	stdin, err := json.Marshal(s.payload(ev, in))
	if err != nil {
		out.Failures = append(out.Failures, Failure{Event: ev, Why: "could not encode the event: " + err.Error()})
		return out
	}
	results := make([]result, len(run))
	var wg sync.WaitGroup
	for i, e := range run {
		wg.Go(func() { results[i] = s.runOne(ctx, e, stdin) })
	}
	wg.Wait()
	out.Ran = len(run)
	for i, r := range results {
		merge(&out, ev, run[i], r)
	}
	return out
}

// payload is the event as a hook reads it on stdin, in Claude Code's
// field names (its hooks reference, "Hook input").
func (s *Set) payload(ev Event, in Input) map[string]any {
	p := map[string]any{
		"session_id":      s.session(),
		"cwd":             s.opts.Dir,
		"hook_event_name": string(ev),
	}
	switch ev {
	case PreToolUse, PostToolUse:
		p["tool_name"] = in.ToolName
		p["tool_input"] = rawOrEmpty(in.ToolInput)
		p["tool_use_id"] = in.ToolUseID
		if ev == PostToolUse {
			p["tool_response"] = rawOrEmpty(in.ToolResponse)
			files := in.ChangedFiles
			if files == nil {
				files = []string{}
			}
			p["changed_files"] = files
		}
	case UserPromptSubmit:
		p["prompt"] = in.Prompt
	case Notification:
		p["message"] = in.Message
		p["notification_type"] = in.Kind
	case SessionStart:
		p["source"] = in.Kind
	case PreCompact:
		p["trigger"] = in.Kind
		p["custom_instructions"] = ""
	case Stop:
		p["stop_hook_active"] = in.StopActive
	}
	return p
}

func (s *Set) session() string {
	if s.opts.Session == nil {
		return ""
	}
	return s.opts.Session()
}

func rawOrEmpty(r json.RawMessage) json.RawMessage {
	if len(r) == 0 || !json.Valid(r) {
		return json.RawMessage(`{}`)
	}
	return r
}

// result is one hook's run.
type result struct {
	exit     int // -1: did not exit by itself (timeout, start failure)
	timedOut bool
	startErr error
	stdout   string
	stderr   string
}

func (s *Set) runOne(ctx context.Context, e entry, stdin []byte) (r result) {
	ctx, span := s.tracer.Start(ctx, "execute_hook "+string(e.ev), trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "execute_hook"),
		attribute.String("co.hook.event", string(e.ev)),
		attribute.String("co.hook.matcher", e.matcher),
		attribute.String("co.hook.command", cut(e.hook.Command, 500)),
		attribute.String("co.hook.source", e.origin.File),
		attribute.Bool("co.hook.project", e.origin.Project),
		attribute.String("co.hook.on_failure", onFailure(e.hook)),
	))
	defer func() {
		span.SetAttributes(
			attribute.Int("co.hook.exit_code", r.exit),
			attribute.Bool("co.hook.timed_out", r.timedOut),
			attribute.Bool("co.hook.blocked", r.blocks(e.hook)),
			attribute.String("co.hook.stdout", cut(r.stdout, spanOutput)),
			attribute.String("co.hook.stderr", cut(r.stderr, spanOutput)),
		)
		if r.exit != 0 && r.exit != 2 {
			span.SetStatus(codes.Error, r.why())
		}
		span.End()
	}()

	tctx, cancel := context.WithTimeout(ctx, e.hook.timeout())
	defer cancel()
	cmd := exec.Command(s.shell(), "-c", e.hook.Command)
	cmd.Dir = s.opts.Dir
	cmd.Env = append(s.environ(), "CO_PROJECT_DIR="+s.opts.Dir, "CLAUDE_PROJECT_DIR="+s.opts.Dir,
		"CO_SESSION_ID="+s.session(), "CO_HOOK_EVENT="+string(e.ev))
	cmd.Stdin = bytes.NewReader(stdin)
	var stdout, stderr capped
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// A grandchild that keeps the pipes open must not hold the turn once
	// the group is killed.
	cmd.WaitDelay = time.Second
	if err := cmd.Start(); err != nil {
		return result{exit: -1, startErr: err}
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
		// The hook exited; whatever it left in the background goes with
		// its group.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	case <-tctx.Done():
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-done
		r.timedOut = ctx.Err() == nil // the hook's own timeout, not the turn's end
		if !r.timedOut {
			r.startErr = context.Cause(ctx)
		}
	}
	r.stdout, r.stderr = stdout.String(), stderr.String()
	r.exit = exitStatus(cmd, err)
	if r.timedOut || r.startErr != nil {
		r.exit = -1
	}
	return r
}

// environ is the hooks' environment before co's own variables.
func (s *Set) environ() []string {
	if s.opts.Environ != nil {
		return s.opts.Environ
	}
	return os.Environ()
}

func exitStatus(cmd *exec.Cmd, err error) int {
	if cmd.ProcessState != nil {
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return cmd.ProcessState.ExitCode()
	}
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	return -1
}

func onFailure(h Hook) string {
	if h.OnFailure == FailBlock {
		return FailBlock
	}
	return FailOpen
}

// failed: the hook did not finish with 0 or 2.
func (r result) failed() bool { return r.exit != 0 && r.exit != 2 }

// blocks: exit 2, or a failure of a hook that fails closed. (A JSON
// decision to block is read in merge.)
func (r result) blocks(h Hook) bool {
	return r.exit == 2 || r.failed() && h.OnFailure == FailBlock
}

func (r result) why() string {
	switch {
	case r.timedOut:
		return "timed out"
	case r.startErr != nil:
		return "could not run: " + r.startErr.Error()
	default:
		return fmt.Sprintf("exited %d", r.exit)
	}
}

// reply is the JSON a hook may print on exit 0 (Claude Code's hooks
// reference, "Advanced: JSON output"). "decision": "approve" and "block"
// are its older PreToolUse spelling, still read.
type reply struct {
	Continue      *bool  `json:"continue"`
	StopReason    string `json:"stopReason"`
	SystemMessage string `json:"systemMessage"`
	Decision      string `json:"decision"`
	Reason        string `json:"reason"`
	HookSpecific  struct {
		PermissionDecision       string `json:"permissionDecision"`
		PermissionDecisionReason string `json:"permissionDecisionReason"`
		AdditionalContext        string `json:"additionalContext"`
	} `json:"hookSpecificOutput"`
}

// merge adds one hook's result to out.
func merge(out *Outcome, ev Event, e entry, r result) {
	block := func(reason string) {
		out.Block = true
		if c := cut(e.hook.Command, 80); !slices.Contains(out.Blockers, c) {
			out.Blockers = append(out.Blockers, c)
		}
		if reason = strings.TrimSpace(reason); reason != "" {
			if out.Reason != "" {
				out.Reason += "\n"
			}
			out.Reason += reason
		}
	}
	switch {
	case r.exit == 2:
		reason := r.stderr
		if strings.TrimSpace(reason) == "" {
			reason = fmt.Sprintf("the %s hook %q exited 2 (blocked) and gave no reason", ev, cut(e.hook.Command, 80))
		}
		block(reason)
		if ev == PreToolUse {
			strongest(out, Deny, strings.TrimSpace(reason))
		}
		return
	case r.failed():
		f := Failure{Event: ev, Command: e.hook.Command, Origin: e.origin, Why: r.why(), Stderr: strings.TrimSpace(r.stderr)}
		if r.timedOut {
			f.Why = "timed out after " + e.hook.timeout().String() + " (its process group was killed)"
		}
		if e.hook.OnFailure == FailBlock {
			block(fmt.Sprintf(`blocked because the %s hook %q %s and says "on_failure": "block"`, ev, cut(e.hook.Command, 80), f.Why))
			if ev == PreToolUse {
				strongest(out, Deny, out.Reason)
			}
			return
		}
		out.Failures = append(out.Failures, f)
		return
	}
	text := strings.TrimSpace(r.stdout)
	var rep reply
	if !strings.HasPrefix(text, "{") || json.Unmarshal([]byte(text), &rep) != nil {
		// Plain output: context for the two events whose output Claude
		// Code gives the model.
		if text != "" && (ev == SessionStart || ev == UserPromptSubmit) {
			out.Context = append(out.Context, text)
		}
		return
	}
	if rep.SystemMessage != "" {
		out.Messages = append(out.Messages, rep.SystemMessage)
	}
	if c := rep.HookSpecific.AdditionalContext; c != "" {
		out.Context = append(out.Context, c)
	}
	if rep.Continue != nil && !*rep.Continue {
		reason := rep.StopReason
		if reason == "" {
			reason = fmt.Sprintf("the %s hook %q said not to continue", ev, cut(e.hook.Command, 80))
		}
		block(reason)
		if ev == PreToolUse {
			strongest(out, Deny, reason)
		}
	}
	switch strings.ToLower(rep.Decision) {
	case "block":
		block(rep.Reason)
		if ev == PreToolUse {
			strongest(out, Deny, rep.Reason)
		}
	case "approve":
		if ev == PreToolUse {
			strongest(out, Allow, rep.Reason)
		}
	}
	if ev == PreToolUse {
		switch d := Decision(strings.ToLower(rep.HookSpecific.PermissionDecision)); d {
		case Deny:
			reason := rep.HookSpecific.PermissionDecisionReason
			if reason == "" {
				reason = fmt.Sprintf("the PreToolUse hook %q denied the call", cut(e.hook.Command, 80))
			}
			block(reason)
			strongest(out, Deny, reason)
		case Ask, Allow:
			strongest(out, d, rep.HookSpecific.PermissionDecisionReason)
		}
	}
}

// strongest keeps the strongest decision: deny, then ask, then allow.
func strongest(out *Outcome, d Decision, reason string) {
	rank := map[Decision]int{"": 0, Allow: 1, Ask: 2, Deny: 3}
	if rank[d] > rank[out.Decision] {
		out.Decision, out.DecisionReason = d, strings.TrimSpace(reason)
	}
}

// findShell is bash where there is one (the hooks people bring from
// Claude Code are bash), else sh.
func findShell() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
}

// capped keeps the first outputCap bytes written and drops the rest.
type capped struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (c *capped) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if room := outputCap - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capped) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, " / ")
}
