package shell

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/co-cli/co/sandbox"
	"github.com/co-cli/co/tools"
)

// Sandbox is what the shell tool needs from a sandbox; sandbox.Sandbox
// satisfies it.
type Sandbox interface {
	Run(ctx context.Context, cmd string, opts sandbox.Options) (sandbox.Output, error)
	Isolation() sandbox.Isolation
}

// Name is the tool's name.
const Name = "run_shell_command"

// DefaultTimeout is the timeout when the model gives none.
const DefaultTimeout = 120 * time.Second

// Tool is run_shell_command: a shell command in the session's sandbox,
// decided by the command policy.
type Tool struct {
	sb         Sandbox
	policy     *Policy
	maxTimeout time.Duration
}

// NewTool makes the shell tool over sb with policy p. Requested timeouts are
// capped by maxTimeout (sandbox_max_timeout).
func NewTool(sb Sandbox, p *Policy, maxTimeout time.Duration) *Tool {
	if maxTimeout <= 0 {
		maxTimeout = 10 * time.Minute
	}
	return &Tool{sb: sb, policy: p, maxTimeout: maxTimeout}
}

func (t *Tool) Name() string { return Name }

func (t *Tool) Description() string {
	where := "in a Docker sandbox (no network by default); the working directory is mounted at /workspace"
	limits := " Commands cannot change protected files (AGENTS.md, CLAUDE.md and other instruction files, .envrc, .git/, .vscode/, .idea/, .github/workflows/, .co-cli/, .agents/, .mcp.json, at any depth): co reverts such changes and says so; propose them with write_file or edit_file instead. Set-user-ID and set-group-ID bits cannot be set."
	if t.sb.Isolation() != sandbox.Full {
		where = "directly on the user's machine, in the workspace directory (NO sandbox: every command asks the user)"
		limits = ""
	}
	return "Run a shell command " + where + ". Returns the combined output and the exit code; a non-zero exit comes back as an error with the output. Read-only commands such as ls, cat, grep and git status may run without asking; anything else asks the user." + limits
}

func (t *Tool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"cmd":{"type":"string","description":"The shell command (sh syntax)."},` +
		`"timeout":{"type":"integer","minimum":1,"description":"Seconds it may run (default 120; capped by the sandbox's maximum)."}` +
		`},"required":["cmd"],"additionalProperties":false}`)
}

func (t *Tool) Class() tools.Class { return tools.SideEffect }

type args struct {
	Cmd     string `json:"cmd"`
	Timeout int    `json:"timeout"`
}

// Check decides the call with the command policy. Without isolation nothing
// is allowed without asking; deny stays deny.
func (t *Tool) Check(_ context.Context, raw json.RawMessage) tools.Check {
	var a args
	if err := json.Unmarshal(raw, &a); err != nil {
		return tools.Check{Decision: tools.Ask, Reason: "the arguments could not be read"}
	}
	v := t.policy.Evaluate(a.Cmd)
	c := tools.Check{Decision: v.Decision, Reason: v.Reason, Preview: a.Cmd}
	if v.Scope != "" {
		c.Scope, c.ScopeLabel = Name+":"+v.Scope, v.Scope
	} else {
		// A command that cannot be scoped to one program can only be granted
		// as exactly itself.
		c.Scope, c.ScopeLabel = Name+"=exact:"+a.Cmd, "exactly this command"
	}
	if c.Decision == tools.Allow && t.sb.Isolation() != sandbox.Full {
		c.Decision = tools.Ask
		c.Reason = "commands run without a sandbox, so every command asks (" + v.Reason + ")"
	}
	return c
}

// Run runs the command. A non-zero exit returns the output with a Retry
// error carrying the exit code, so the model sees both.
func (t *Tool) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a args
	if err := tools.Decode(Name, raw, &a); err != nil {
		return tools.Result{}, err
	}
	if strings.TrimSpace(a.Cmd) == "" {
		return tools.Result{}, tools.Retryf("cmd is empty: give the shell command to run")
	}
	timeout := DefaultTimeout
	if a.Timeout > 0 {
		timeout = time.Duration(a.Timeout) * time.Second
	}
	if timeout > t.maxTimeout {
		timeout = t.maxTimeout
	}
	out, err := t.sb.Run(ctx, a.Cmd, sandbox.Options{Timeout: timeout})
	if err != nil {
		if len(out.Protected) > 0 { // undone all the same: say so
			return tools.Result{}, fmt.Errorf("the sandbox could not run the command: %w\n%s", err, sandbox.ProtectedNote(out.Protected))
		}
		return tools.Result{}, fmt.Errorf("the sandbox could not run the command: %w", err)
	}
	text := out.Text
	if strings.TrimSpace(text) == "" {
		text = "(no output)"
	}
	res := tools.Result{Display: text, Meta: map[string]any{
		"exit_code": out.ExitCode, "isolation": string(t.sb.Isolation()),
	}}
	if out.Truncated {
		res.Meta["truncated"] = true
	}
	// The note saying so ends out.Text, for the model and the user alike.
	var reverted, failed []string
	for _, p := range out.Protected {
		if p.Failed != "" {
			failed = append(failed, p.Path)
		} else {
			reverted = append(reverted, p.Path)
		}
	}
	if reverted != nil {
		res.Meta["protected_reverted"] = reverted
	}
	if failed != nil {
		res.Meta["protected_not_reverted"] = failed
	}
	switch {
	case out.TimedOut:
		res.Meta["timed_out"] = true
		return res, tools.Retryf("the command timed out after %s and was killed", timeout)
	case out.ExitCode != 0:
		return res, tools.Retryf("the command exited with code %d", out.ExitCode)
	}
	return res, nil
}
