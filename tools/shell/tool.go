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
	network    bool     // the sandbox has a network (sandbox_network)
	hosts      []string // the workspace's path on the host, and its real path when a link leads to it
}

// NewTool makes the shell tool over sb with policy p. Requested timeouts are
// capped by maxTimeout (sandbox_max_timeout).
func NewTool(sb Sandbox, p *Policy, maxTimeout time.Duration) *Tool {
	if maxTimeout <= 0 {
		maxTimeout = 10 * time.Minute
	}
	return &Tool{sb: sb, policy: p, maxTimeout: maxTimeout}
}

// SetNetwork says the sandbox's commands can reach the network
// (sandbox_network "bridge"): a command the policy does not allow may then
// send data out, and what it prints may come from anywhere.
func (t *Tool) SetNetwork(on bool) { t.network = on }

// reaches says whether a command the policy decided v may reach the
// network: one the policy does not allow, with a network or no sandbox (the
// commands the policy allows read the workspace only).
func (t *Tool) reaches(v Verdict) bool {
	return v.Decision != tools.Allow && (t.network || t.sb.Isolation() != sandbox.Full)
}

func (t *Tool) Name() string { return Name }

func (t *Tool) Description() string {
	where := "in a Docker sandbox (no network by default); the working directory is mounted at /workspace"
	if len(t.hosts) > 0 {
		where = "in a Docker sandbox (no network by default); the workspace, " + t.hosts[0] + " on the user's machine, is mounted at /workspace, the working directory: name files by relative paths or under /workspace, since " + t.hosts[0] + " does not exist in the sandbox"
	}
	limits := " Commands cannot change protected files (AGENTS.md, CLAUDE.md and other instruction files, .envrc, .git/, .vscode/, .idea/, .github/workflows/, .co-cli/, .agents/, .mcp.json, other coding agents' settings in .claude/, .gemini/ and .cursor/, at any depth): co reverts such changes and says so; propose them with write_file or edit_file instead. Set-user-ID and set-group-ID bits cannot be set."
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
	c := tools.Check{Decision: v.Decision, Reason: v.Reason, Preview: a.Cmd, Where: t.whereLines(a.Cmd)}
	if v.Scope != "" {
		c.Scope, c.ScopeLabel = Name+":"+v.Scope, v.Scope
	} else {
		// A command that cannot be scoped to one program can only be granted
		// as exactly itself.
		c.Scope, c.ScopeLabel = Name+"=exact:"+a.Cmd, "exactly this command"
	}
	if c.Decision == tools.Allow && t.sb.Isolation() != sandbox.Full {
		c.Decision = tools.Ask
		c.Reason = v.Reason + ", but commands run without a sandbox, so every command asks"
		c.SandboxAllows = true
	}
	if t.reaches(v) {
		c.Outbound = &tools.Outbound{To: t.where(), What: a.Cmd}
	}
	return c
}

// where says where a command that reaches out runs, for the question.
func (t *Tool) where() string {
	if t.sb.Isolation() != sandbox.Full {
		return "your machine, unsandboxed, with its network"
	}
	return "the sandbox, with its network on (sandbox_network)"
}

// StartingNotice is what a command that has to wait for the sandbox's
// container says first (see sandbox.Starter).
const StartingNotice = "starting the sandbox… (its container is being created; the command runs once it is up)"

// pender is a sandbox that prepares itself in the background (sandbox.Starter).
type pender interface{ Pending() bool }

// Run runs the command. A non-zero exit returns the output with a Failed
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
	if p, ok := t.sb.(pender); ok && p.Pending() {
		// The first command waits for the container: say so rather than sit silent.
		tools.Notify(ctx, StartingNotice)
	}
	v := t.policy.Evaluate(a.Cmd)
	// A read-only git command runs without asking: no repository's
	// configuration may make it run a program (gitguard.go). The sandbox's
	// global configuration is in its HOME, /tmp, which commands write.
	run := t.policy.GitGuarded(a.Cmd, v, t.sb.Isolation() == sandbox.Full)
	out, err := t.sb.Run(ctx, run, sandbox.Options{Timeout: timeout})
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
	if t.reaches(v) && downloads(a.Cmd, v) {
		// What it printed may have come from the network.
		res.Origins = []tools.Origin{tools.UntrustedPrivate("shell", "shell with network: "+a.Cmd)}
	}
	if out.TimedOut || out.ExitCode != 0 {
		if note := t.hostPathNote(a.Cmd); note != "" {
			res.Display = strings.TrimRight(res.Display, "\n") + "\n" + note
		}
	}
	switch {
	case out.TimedOut:
		res.Meta["timed_out"] = true
		return res, tools.Failedf("the command timed out after %s and was killed", timeout)
	case out.ExitCode != 0:
		return res, tools.Failedf("the command exited with code %d", out.ExitCode)
	}
	return res, nil
}

// netPrograms are programs whose output is usually what they fetched.
var netPrograms = map[string]bool{
	"curl": true, "wget": true, "nc": true, "ncat": true, "netcat": true, "socat": true, "telnet": true,
	"ssh": true, "scp": true, "sftp": true, "rsync": true, "ftp": true, "lynx": true, "w3m": true,
	"http": true, "https": true, "xh": true, "aria2c": true, "gh": true, "dig": true, "nslookup": true,
	"git": true, "pip": true, "pip3": true, "npm": true, "npx": true, "yarn": true, "pnpm": true,
	"go": true, "cargo": true, "apt": true, "apt-get": true,
}

// downloads says whether cmd (read by the policy as v) looks like it prints
// content from the network: it runs a network client (curl, wget, ssh, git,
// a package manager, …; its name read as the shell reads it, so quoted or
// escaped spellings count) or a program whose name only the run decides
// ($c), or names a URL.
// A best effort: a script that fetches by itself (python fetch.py) is not
// seen, which docs/untrusted-content.md says.
func downloads(cmd string, v Verdict) bool {
	if strings.Contains(cmd, "://") || v.Unresolved {
		return true
	}
	for _, p := range v.Programs {
		name, _, _ := strings.Cut(p, " ")
		if netPrograms[name[strings.LastIndexByte(name, '/')+1:]] {
			return true
		}
	}
	for _, w := range strings.FieldsFunc(cmd, func(r rune) bool {
		return r == ' ' || r == '\t' || r == '\n' || r == '|' || r == ';' || r == '&' || r == '(' || r == ')' || r == '`' || r == '$' || r == '"' || r == '\''
	}) {
		if netPrograms[w[strings.LastIndexByte(w, '/')+1:]] {
			return true
		}
	}
	return false
}
