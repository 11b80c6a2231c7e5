package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/config"
	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/ui/present"
	"github.com/co-cli/co/ui/tui"
)

func newStatusCmd(s env) *cobra.Command {
	return &cobra.Command{
		Use:   "status",
		Short: "Show provider, model, reachability, config files, sandbox and telemetry",
		Long: `co status reports the provider and model (and whether the provider answers:
it asks for the model list), the config files and their warnings (settings a
project file may not set, unknown keys), data dir, sandbox, tools (how
many, and which when co sends the model fewer: a small context window,
llm_tool_groups) and telemetry. It reports even when the chat would refuse to start (no usable
sandbox with sandbox_fallback=error): the sandbox line says what is wrong.

A malformed settings file, or a wrong value in one or in the environment,
does not stop it: the config files line says what is wrong (file, line and
column), the rest is reported without it, and co status exits 1.

Exit codes:
  0  ready: the provider answers (its model list) and the settings load
  1  a settings file is malformed or holds a wrong value (see above)
  2  bad flags or arguments
  3  the provider cannot answer: none is configured or usable, or it does
     not answer (connection refused, no such host, an HTTP error such as
     401 or 404, no answer within 3 s); the reachable or provider line
     says why, and so does stderr
  4  the sandbox the settings ask for is not usable (Docker not running or
     the sandbox image missing, with sandbox_backend=docker or
     sandbox_fallback=error): the sandbox line and stderr say why and how
     to fix it

A malformed settings file comes first: exit 1 even when the provider does
not answer either; then 3, then 4.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			// The settings' warnings and problems are part of the report
			// (config files).
			l, settingsErr := loadReport()
			if l == nil {
				return settingsErr
			}
			ctx := context.Background()
			a, sandboxErr, err := reportApp(ctx, l, s.version)
			if err != nil {
				printConfigWarnings(s, l) // no report to show them in
				return errors.Join(settingsErr, err)
			}
			defer a.Close()
			// The MCP servers: started as co mcp list does, waited for
			// (each at most its timeout, all at most statusMCPWait), so the
			// report says which connect and which fail, and counts their
			// tools.
			if a.MCP = app.NewMCP(l, a.Tools, s.version); a.MCP != nil {
				defer a.MCP.Close()
				a.MCP.Start()
				wctx, cancel := context.WithTimeout(ctx, statusMCPWait)
				mcpWaitCtx(wctx, s, a.MCP)
				cancel()
			}
			text, notReady := statusTextWith(ctx, a, s.version, true, sandboxErr)
			fmt.Fprint(s.Out, text)
			if settingsErr != nil {
				return settingsErr // exit 1, and said again on stderr
			}
			if sandboxErr != nil {
				fmt.Fprintf(s.Err, "co: not ready: %s\n", sandboxNotUsable(sandboxErr))
			}
			if notReady != "" {
				fmt.Fprintf(s.Err, "co: not ready: %s\n", safe.Text(notReady))
				return exitCode(exitNotReady)
			}
			if sandboxErr != nil {
				return exitCode(exitNoSandbox)
			}
			return nil
		},
	}
}

// exitNotReady is co status's exit code when the provider cannot answer.
const exitNotReady = 3

// exitNoSandbox is co status's exit code when the sandbox the settings
// ask for is not usable: co and co run would refuse to start.
const exitNoSandbox = 4

// sandboxNotUsable says, on one line for stderr, why the sandbox is not
// usable and how to fix it (the error's later lines).
func sandboxNotUsable(err error) string {
	why, fix, _ := strings.Cut(safe.Text(err.Error()), "\n")
	s := "the sandbox is not usable, so co and co run refuse to start: " + strings.TrimPrefix(why, "sandbox: ")
	if fix = strings.Join(strings.Fields(fix), " "); fix != "" {
		s += ". " + fix
	}
	return s
}

// statusMCPWait bounds how long co status waits for MCP servers still
// starting: a server still starting then is reported so.
const statusMCPWait = 10 * time.Second

// reportApp builds the report-only app of co status. When no sandbox is
// usable (Docker missing with sandbox_fallback=error, or backend docker)
// app.New fails, yet that is when status is needed most: the app is then
// built with the subprocess backend, and sandboxErr says why the
// configured sandbox is not usable, for the sandbox line.
func reportApp(ctx context.Context, l *config.Loaded, version string) (a *app.App, sandboxErr, err error) {
	a, err = app.New(ctx, l, app.Options{Version: version, ReportOnly: true})
	if err == nil {
		return a, nil, nil
	}
	alt := *l
	alt.Settings.SandboxBackend = "subprocess"
	a, err2 := app.New(ctx, &alt, app.Options{Version: version, ReportOnly: true})
	if err2 != nil {
		return nil, nil, err // the failure was not the sandbox's
	}
	return a, err, nil
}

// statusText is the report of `co status` and /status. With probe, it
// checks that the provider answers (a short network call).
func statusText(ctx context.Context, a *app.App, version string, probe bool) string {
	text, _ := statusTextWith(ctx, a, version, probe, nil)
	return text
}

// statusTextWith is statusText; a non-nil sandboxErr is why the configured
// sandbox is not usable (a stands in with the subprocess backend). With
// probe, notReady says why the provider cannot answer ("" when it does).
func statusTextWith(ctx context.Context, a *app.App, version string, probe bool, sandboxErr error) (text, notReady string) {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintf(w, "version\t%s\n", version)
	if probe {
		pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		_, _, _ = a.Agent.WaitProvider(pctx)
		cancel()
	}
	p, done, perr := a.Agent.Provider()
	noTools := "" // the model takes no tools: why
	switch {
	case !done:
		fmt.Fprintf(w, "provider\tchecking for Ollama…\n")
		notReady = "no provider yet: still checking for Ollama"
	case perr != nil:
		fmt.Fprintf(w, "provider\tnone usable: %s\n", perr)
		notReady = "no provider usable: " + present.FirstLine(perr.Error())
	default:
		fmt.Fprintf(w, "provider\t%s\n", providerName(ctx, a.Agent, p, probe))
		model := p.Model
		if r := a.Agent.ReportedModel(); r != "" && r != p.Model {
			model += " (the server answers as " + r + ")"
		} else if probe {
			model += lastAnswered(ctx, a.Config.Paths.DataDir, p)
		}
		fmt.Fprintf(w, "model\t%s\n", safe.Text(model))
		if p.Name == "ollama" {
			// co chats through the native API, not the /v1 it keeps for
			// nothing but listing.
			fmt.Fprintf(w, "endpoint\t%s (Ollama's native API, /api/chat)\n", provider.Endpoint(p))
		} else {
			fmt.Fprintf(w, "endpoint\t%s\n", p.BaseURL)
		}
		switch {
		case probe && p.Name == "ollama":
			// Native API: the version, and the context window co asks
			// for, the model's maximum and what is loaded (≤ 1 s), on
			// one line.
			info, err := a.OllamaStatus(ctx, p)
			if err != nil {
				fmt.Fprintf(w, "context window\t%s\n", contextWindowLine(ctx, a))
				fmt.Fprintf(w, "reachable\tNO — Ollama does not answer at %s (%v)\n", provider.Endpoint(p), err)
				notReady = fmt.Sprintf("Ollama does not answer at %s (%v)", provider.Endpoint(p), err)
			} else {
				// The window co asks (num_ctx), for the tools line.
				lctx, cancel := context.WithTimeout(ctx, 2*time.Second)
				a.Agent.LearnWindow(lctx)
				cancel()
				fmt.Fprintf(w, "context window\t%s\n", info.ContextLine())
				fmt.Fprintf(w, "reachable\tyes (Ollama %s)\n", info.Version)
				if info.NoTools() {
					noTools = agent.NoToolsLine(p.Model)
				}
			}
		case probe:
			// llama.cpp's /props, /v1/models (≤ 2 s; agent/budget.go).
			lctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			a.Agent.LearnWindow(lctx)
			cancel()
			fmt.Fprintf(w, "context window\t%s\n", contextWindowLine(ctx, a))
			// The model list, with the key: any HTTP answer is not enough
			// (a wrong base URL answers 404).
			pctx, cancel := context.WithTimeout(ctx, 3*time.Second)
			ok, msg, warning := a.Reachable(pctx, p)
			cancel()
			if ok {
				fmt.Fprintf(w, "reachable\t%s\n", msg)
			} else {
				fmt.Fprintf(w, "reachable\tNO — %s\n", safe.Text(msg))
				notReady = "the provider does not answer — " + msg
			}
			if warning != "" {
				fmt.Fprintf(w, "\tWARNING: %s\n", safe.Text(warning))
			}
		case p.Name == "ollama":
			// /status: no network; what the last request set.
			if n := a.Agent.ContextInForce(); n > 0 {
				fmt.Fprintf(w, "context window\t%d tokens in force (num_ctx)\n", n)
			} else {
				fmt.Fprintf(w, "context window\t%d tokens asked at most; known after the first reply\n", provider.OllamaNumCtx(a.Config.Settings.OllamaNumCtx, 0))
			}
		default:
			fmt.Fprintf(w, "context window\t%s\n", contextWindowLine(ctx, a))
		}
	}
	files := "none (defaults and environment only)"
	if len(a.Config.Files) > 0 {
		files = strings.Join(a.Config.Files, ", ")
	}
	fmt.Fprintf(w, "config files\t%s\n", files)
	for _, n := range settingsProblems(a.Config) {
		fmt.Fprintf(w, "\t%s\n", n)
	}
	for _, n := range startupWarnings(a) {
		fmt.Fprintf(w, "\t%s\n", n)
	}
	fmt.Fprintf(w, "data dir\t%s\n", a.Config.Paths.DataDir)
	fmt.Fprintf(w, "workspace\t%s\n", a.Workspace)
	zone, _ := schedulerZone()
	fmt.Fprintf(w, "schedules\t%s\n", scheduleStatus(ctx, a.Config, time.Now().In(zone), probe))
	if d := deliveryStatus(a.Config, os.Getenv); d != "" {
		fmt.Fprintf(w, "deliveries\t%s\n", d)
	}
	if noTools == "" {
		noTools = a.Agent.NoTools()
	}
	if noTools != "" {
		// The model takes none: co sends them no tools (agent/toolless.go).
		fmt.Fprintf(w, "tools\t%s (%d available, not sent)\n", noTools, a.Tools.Len())
	} else {
		fmt.Fprintf(w, "tools\t%s\n", toolsRow(ctx, a))
	}
	for _, u := range a.Unconfigured {
		fmt.Fprintf(w, "\t%s\n", u)
	}
	for _, line := range mcpStatusRows(a.MCP) {
		fmt.Fprintln(w, line)
	}
	for _, line := range extensionStatus(a.Extensions.Get()) {
		fmt.Fprintln(w, line)
	}
	for _, line := range extraStatus(a, sandboxErr) {
		fmt.Fprintln(w, line)
	}
	for _, line := range riskStatus(a.Agent.Risk()) {
		fmt.Fprintln(w, line)
	}
	w.Flush()
	// Errors, versions and model names come from servers and files: the
	// whole report goes through the sanitiser.
	return safe.Text(b.String()), notReady
}

// toolsRow is the tools line: how many, with what the MCP servers add,
// and, when the next request carries fewer (llm_tool_groups, or co's
// choice for a small context window: agent.Agent.Sending), how many and
// which.
func toolsRow(ctx context.Context, a *app.App) string {
	all := toolsCount(a.Tools, a.MCP, false)
	sent, less := a.Agent.Sending(ctx)
	if len(sent) == a.Tools.Len() {
		return all
	}
	why := "llm_tool_groups"
	if less != "" {
		why = "the context window is small: co sends " + less
	}
	names := strings.Join(sent, ", ")
	if len(sent) == 0 {
		names = "none"
	}
	return fmt.Sprintf("%d of %s sent — %s (%s)", len(sent), all, names, why)
}

// contextWindowLine is the context window co counts with, or "unknown".
func contextWindowLine(ctx context.Context, a *app.App) string {
	cw := a.Agent.ContextWindow()
	if cw <= 0 {
		return "unknown"
	}
	line := fmt.Sprintf("%d tokens", cw)
	if src := a.Agent.ContextWindowSource(); src != "" {
		line += " (from " + src + ")"
	}
	if _, less := a.Agent.Sending(ctx); less != "" {
		line += "; small: co sends " + less
	}
	return line
}

// lastAnswered is " (last answered as MODEL, 2h ago)" when the span
// store's most recent chat with p for p.Model says another model answered
// (an alias such as gemini-flash-latest names the model behind it), else
// "". It reads one row and gives up after a quarter of a second, so
// status stays fast.
func lastAnswered(ctx context.Context, dataDir string, p provider.Provider) string {
	st := app.OpenSpans(dataDir)
	defer st.Close()
	ctx, cancel := context.WithTimeout(ctx, 250*time.Millisecond)
	defer cancel()
	a, ok, err := st.LastAnswered(ctx, p.Name, p.Model)
	if err != nil || !ok || strings.TrimPrefix(a.Model, "models/") == strings.TrimPrefix(p.Model, "models/") {
		return ""
	}
	return fmt.Sprintf(" (last answered as %s, %s)", strings.TrimPrefix(a.Model, "models/"), ago(time.Since(a.At)))
}

// providerName is the provider line's text: what the server said it is
// (llama.cpp, with its build) or the provider's kind. With probe, an
// OpenAI-compatible server is asked first (llama.cpp's /props, with the
// window: ≤ 2 s, agent/budget.go).
func providerName(ctx context.Context, ag *agent.Agent, p provider.Provider, probe bool) string {
	if probe && p.Name == "openai" {
		lctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		ag.LearnWindow(lctx)
		cancel()
	}
	name := ag.ProviderName()
	if b := ag.ServerBuild(); b != "" {
		name += " (build " + safe.Text(b) + ")"
	}
	return name
}

// ago renders how long ago something was: "just now", "5m ago", "2h ago",
// "3d ago".
func ago(d time.Duration) string {
	switch {
	case d < time.Minute:
		return "just now"
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	default:
		return fmt.Sprintf("%dd ago", int(d.Hours()/24))
	}
}

// extraStatus are status rows of the sandbox and later subsystems.
// sandboxErr, when set, is why no sandbox is usable.
func extraStatus(a *app.App, sandboxErr error) []string {
	var rows []string
	if sandboxErr != nil {
		lines := strings.Split(sandboxErr.Error(), "\n")
		rows = append(rows, "sandbox\tNOT USABLE — "+lines[0]+"; co and co run refuse to start")
		for _, l := range lines[1:] {
			rows = append(rows, "\t"+l)
		}
	} else {
		level, _ := a.Isolation()
		rows = append(rows, fmt.Sprintf("sandbox\t%s (isolation: %s)", a.Selection.Backend, level))
		if w := sandboxWarning(a, false); w != "" {
			rows = append(rows, "\tWARNING: "+w)
		}
	}
	rows = append(rows, "telemetry\t"+app.SpansPath(a.Config.Paths.DataDir))
	if t := a.Telemetry.Tracing; t != nil {
		if t.OTLP() {
			rows = append(rows, "\talso exported over OTLP ($OTEL_EXPORTER_OTLP_ENDPOINT)")
		}
		if n, err := t.Errs(); err != nil {
			rows = append(rows, fmt.Sprintf("\texport errors: %d, last: %v", n, err))
		}
		if d := t.Dropped(); d > 0 {
			rows = append(rows, "\t"+plural(int(d), "span")+" dropped (the store could not keep up)")
		}
	}
	if a.Sessions != nil {
		rows = append(rows, "sessions\t"+a.Sessions.Path())
	}
	if r := inboxRow(a); r != "" {
		rows = append(rows, "inbox\t"+r)
	}
	return append(rows, notifyStatus(a.Config.Settings.Notify, os.Getenv)...)
}

// notifyStatus are the status rows of the notify setting: how the
// full-screen chat notifies in this terminal (the environment through
// getenv; the chat may also learn the terminal's name from its answer to
// XTVERSION, which co status does not ask).
func notifyStatus(setting string, getenv func(string) string) []string {
	c := tui.ChooseNotify(setting, getenv, "")
	if c.Method == tui.NotifyOff {
		return []string{"notifications\toff (notify=off)"}
	}
	how := map[string]string{
		tui.NotifyBell:   "the bell",
		tui.NotifyOSC9:   "OSC 9",
		tui.NotifyOSC777: "OSC 777",
	}[c.Method]
	from := "auto: " + c.Why
	if setting != tui.NotifyAuto && setting != "" {
		from = "notify=" + setting
	}
	rows := []string{fmt.Sprintf("notifications\t%s when a turn ends or an approval waits and the chat's terminal is not focused (%s)", how, from)}
	if c.Tmux {
		if c.Method == tui.NotifyBell {
			rows = append(rows, "\tinside tmux: needs `set -g focus-events on`")
		} else {
			rows = append(rows, "\tinside tmux: sent through its passthrough; needs `set -g focus-events on` and `set -g allow-passthrough on`")
		}
	}
	return rows
}

// inboxRow says what scheduled runs left (issue 29): the calls waiting for
// approval and the runs since the user last looked; "" when there is no
// store yet (co status never creates one).
func inboxRow(a *app.App) string {
	st := a.Sessions
	if st == nil {
		if _, err := os.Stat(app.SessionsPath(a.Config)); err != nil {
			return ""
		}
		var err error
		if st, err = app.OpenSessions(a.Config); err != nil {
			return "cannot be read: " + err.Error()
		}
		defer st.Close()
	}
	waiting, err := st.PendingCalls(sessions.Waiting)
	if err != nil {
		return "cannot be read: " + err.Error()
	}
	since, err := st.LastLooked()
	if err != nil {
		return "cannot be read: " + err.Error()
	}
	runs, err := st.ScheduledSince(since, 0)
	if err != nil {
		return "cannot be read: " + err.Error()
	}
	w := "no call waiting for approval"
	switch len(waiting) {
	case 0:
	case 1:
		w = "1 call waiting for your approval"
	default:
		w = fmt.Sprintf("%d calls waiting for your approval", len(waiting))
	}
	return fmt.Sprintf("%s, %s since you last looked (co inbox)", w, plural(len(runs), "scheduled run"))
}

// sandboxWarning is set when shell commands run without isolation: it is
// shown persistently (banner, status bar badge, co status). It says what
// asks: every command, unless yolo_unsandboxed is set and yes (co run
// --yes) or auto_confirm is on, when none does.
func sandboxWarning(a *app.App, yes bool) string {
	if _, unsandboxed := a.Isolation(); !unsandboxed {
		return ""
	}
	if a.Selection.Warning != "" {
		return a.Selection.Warning
	}
	const w = "UNSANDBOXED: shell commands run directly on this machine (sandbox_backend=subprocess); "
	st := a.Config.Settings
	switch {
	case st.YoloUnsandboxed && (yes || st.AutoConfirm):
		return w + "yolo_unsandboxed is set and approvals are on automatic, so commands run without asking (deny rules still apply)"
	case st.YoloUnsandboxed:
		return w + "every command asks until --yes or /yolo (yolo_unsandboxed is set)"
	}
	return w + "every command asks"
}

// riskStatus are the rows that say what untrusted content the conversation
// holds: while it holds any, every outbound call asks.
func riskStatus(r agent.Risk) []string {
	if len(r.Untrusted) == 0 {
		return []string{"untrusted\tnone in this conversation"}
	}
	n := fmt.Sprintf("%d sources", len(r.Untrusted))
	if len(r.Untrusted) == 1 {
		n = "1 source"
	}
	rows := []string{"untrusted\t" + n + ": calls that send data out, post or change what runs later ask, and only you can answer (until /clear)"}
	for _, o := range r.Untrusted {
		rows = append(rows, "\t"+o.Label)
	}
	return rows
}
