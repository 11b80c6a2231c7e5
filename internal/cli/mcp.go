package cli

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/co-cli/co/config"
	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/mcp"
	"github.com/co-cli/co/ui/slash"
)

func newMCPCmd(s env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "Add, list and remove MCP servers; log in to one; consent to a project's",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "Start the configured MCP servers and show each one's state and tools",
		Long: `co mcp list starts every enabled MCP server in mcp_servers (waiting at most each
server's timeout_seconds), shows its state (connected with its tools, failed and
why, awaiting consent for a project's server, disabled), then stops them.

It exits 1 when no server connected and at least one failed (so a script
or a CI job notices), 0 otherwise.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(_ *cobra.Command, _ []string) error {
			m, err := mcpManager(s)
			if err != nil || m == nil {
				return err
			}
			defer m.Close()
			m.Start()
			mcpWait(s, m)
			fmt.Fprint(s.Out, mcpText(m, true))
			return allFailed(m.Statuses())
		},
	})
	var yes bool
	trust := &cobra.Command{
		Use:   "trust NAME",
		Short: "Consent to the project's MCP server NAME as it is defined now",
		Long: `A server in the project file (./.co-cli/settings.json) never starts by itself:
co mcp trust NAME shows its definition in full and the project files it names,
asks you (--yes: without asking), then records your consent to that exact
definition and those files' content (in co's data directory, keyed by the
project's path and a hash of both), starts it and shows its state. A changed
definition, or a changed file, needs consent again.`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(_ *cobra.Command, args []string) error {
			m, err := configuredMCP(s)
			if err != nil {
				return err
			}
			defer m.Close()
			if err := confirmTrust(s, m, args[0], yes); err != nil {
				return err
			}
			if err := m.Trust(args[0]); err != nil {
				return err
			}
			mcpWait(s, m)
			fmt.Fprintf(s.Out, "Trusted MCP server %s for this project.\n", safe.Text(args[0]))
			fmt.Fprint(s.Out, mcpText(m, false))
			return nil
		},
	}
	trust.Flags().BoolVarP(&yes, "yes", "y", false, "consent without asking (for scripts); the definition is still shown")
	cmd.AddCommand(trust, newMCPLoginCmd(s), newMCPLogoutCmd(s), newMCPAddCmd(s), newMCPRemoveCmd(s))
	return cmd
}

func newMCPLoginCmd(s env) *cobra.Command {
	return &cobra.Command{
		Use:   "login NAME",
		Short: "Log in to the remote MCP server NAME (OAuth, in your browser)",
		Long: `co mcp login NAME runs the MCP authorization flow with the remote server NAME:
it finds the server's authorization server, registers co with it (a client ID
metadata document or a pre-registered client from mcp_servers.NAME.oauth, else
dynamic registration), prints the authorization page and opens it in a browser
($BROWSER first, then the system's opener), and waits up to 5 minutes for the
browser to come back to a listener on 127.0.0.1. The token is kept in co's
data directory (mcp-auth/NAME.json, readable by you only), refreshed when it
expires, and sent only to that server's URL. Then the server starts and its
state is shown. On a machine without a browser, open the printed page
elsewhere: either the page can come back to 127.0.0.1 on this machine (an
SSH tunnel of that port, say), or paste here the address the browser ends on
(http://127.0.0.1:PORT/callback?code=…), which finishes the login.`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := configuredMCP(s)
			if err != nil {
				return err
			}
			defer m.Close()
			name := args[0]
			var pasted chan string
			if isTerminal(s.In) {
				// The address a browser on another machine ended on, typed
				// or pasted here; the reader is left blocked when the login
				// ends, and co exits soon after.
				pasted = make(chan string)
				go func() {
					sc := bufio.NewScanner(s.In)
					for sc.Scan() {
						pasted <- sc.Text()
					}
				}()
			}
			err = m.Login(cmd.Context(), name, mcp.LoginOptions{
				Open:   openBrowser,
				Say:    func(t string) { fmt.Fprintln(s.Err, safe.Text(t)) },
				Pasted: pasted,
			})
			if err != nil {
				return err
			}
			if err := m.Restart(name); err != nil { // that server only: the others stay off
				return err
			}
			mcpWait(s, m)
			if m.LoggedIn(name) { // else it asked for none, as said
				fmt.Fprintf(s.Out, "Logged in to MCP server %s.\n", safe.Text(name))
			}
			i := slices.IndexFunc(m.Statuses(), func(st mcp.Status) bool { return st.Name == name })
			fmt.Fprint(s.Out, mcpStatusText(m.Statuses()[i], true))
			return nil
		},
	}
}

func newMCPLogoutCmd(s env) *cobra.Command {
	return &cobra.Command{
		Use:   "logout NAME",
		Short: "Forget the tokens of the remote MCP server NAME",
		Long: `co mcp logout NAME deletes the tokens co keeps for the remote server NAME (its
file in co's data directory); the next run reports the server as needing a
login. The authorization server is not told: revoke co's access there too if
you no longer trust this machine.`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(_ *cobra.Command, args []string) error {
			m, err := configuredMCP(s)
			if err != nil {
				return err
			}
			defer m.Close()
			msg, err := m.Logout(args[0])
			if err != nil {
				return err
			}
			fmt.Fprintln(s.Out, safe.Text(msg))
			return nil
		},
	}
}

// confirmTrust shows project server name's definition in full, as co mcp
// list does before consent, and asks the user (unless yes): on a terminal
// y/N, without one it refuses, naming --yes. A name that is not a
// project's server goes on to Trust, which says what is wrong.
func confirmTrust(s env, m *mcp.Manager, name string, yes bool) error {
	i := slices.IndexFunc(m.Statuses(), func(st mcp.Status) bool { return st.Name == name })
	if i < 0 || !m.Statuses()[i].Project {
		return nil
	}
	fmt.Fprint(s.Out, mcpStatusText(m.Statuses()[i], false))
	if yes {
		return nil
	}
	f, ok := s.In.(*os.File)
	if !ok || !term.IsTerminal(f.Fd()) {
		return fmt.Errorf("co mcp trust asks before recording consent, and standard input is not a terminal: read the definition above and run co mcp trust --yes %s to consent without asking", safe.Text(name))
	}
	fmt.Fprintf(s.Out, "Let co start MCP server %s as defined above, now and in later runs while it stays so? [y/N] ", safe.Text(name))
	line, _ := bufio.NewReader(f).ReadString('\n')
	if a := strings.ToLower(strings.TrimSpace(line)); a != "y" && a != "yes" {
		return fmt.Errorf("not trusted: MCP server %s stays off", safe.Text(name))
	}
	return nil
}

// allFailed is the error of co mcp list when no server connected and at
// least one failed: every server co tried is unusable.
func allFailed(sts []mcp.Status) error {
	var failed []string
	for _, st := range sts {
		switch st.State {
		case mcp.Connected, mcp.Starting:
			return nil
		case mcp.Failed:
			failed = append(failed, st.Name)
		}
	}
	if len(failed) == 0 {
		return nil
	}
	return fmt.Errorf("no MCP server connected: %d failed (%s); why is said above", len(failed), strings.Join(failed, ", "))
}

// mcpWait waits for the servers still starting, saying first on stderr
// which and for how long at most: a slow server otherwise leaves co mcp
// list silent for up to its timeout.
func mcpWait(s env, m *mcp.Manager) { mcpWaitCtx(context.Background(), s, m) }

// mcpWaitCtx is mcpWait until ctx ends.
func mcpWaitCtx(ctx context.Context, s env, m *mcp.Manager) {
	m.Ready(ctx, func(msg string) { fmt.Fprintln(s.Err, safe.Text(msg)) })
}

// mcpStatusRows are co status's and /status's rows about the MCP servers:
// how many are connected, failed, …, then one row each with its state.
// None when no server is configured.
func mcpStatusRows(m *mcp.Manager) []string {
	if m == nil {
		return nil
	}
	sts := m.Statuses()
	count := map[mcp.State]int{}
	for _, st := range sts {
		count[st.State]++
	}
	var parts []string
	for _, k := range []mcp.State{mcp.Connected, mcp.Failed, mcp.NeedsLogin, mcp.Starting, mcp.NotStarted, mcp.AwaitingConsent, mcp.Disabled} {
		if count[k] > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", count[k], k))
		}
	}
	rows := []string{"mcp\t" + strings.Join(parts, ", ") + " (/mcp or co mcp list for more)"}
	for _, st := range sts {
		rows = append(rows, "\t"+safe.Text(st.Name)+": "+mcpState(st))
	}
	return rows
}

// configuredMCP is mcpManager for a command about a named server: no
// server configured is an error (said once, by it).
func configuredMCP(s env) (*mcp.Manager, error) {
	m, _, err := newMCP(s)
	if err == nil && m == nil {
		err = fmt.Errorf("no MCP server is configured: add one with co mcp add NAME URL, or co mcp add NAME -- COMMAND [ARGS...]")
	}
	return m, err
}

// mcpManager builds the manager of the configured servers, or nil (having
// said so) when there is none.
func mcpManager(s env) (*mcp.Manager, error) {
	m, l, err := newMCP(s)
	if err == nil && m == nil {
		fmt.Fprintln(s.Out, "No MCP servers are configured: add one with co mcp add NAME URL, or co mcp add NAME -- COMMAND [ARGS...] (it goes into "+safe.Text(l.Paths.UserFile)+"; see the README's MCP section).")
	}
	return m, err
}

// newMCP builds the manager of the configured servers, or nil when there
// is none.
func newMCP(s env) (*mcp.Manager, *config.Loaded, error) {
	l, err := loadConfig(s)
	if err != nil {
		return nil, nil, err
	}
	reg, _ := tools.NewRegistry()
	return app.NewMCP(l, reg, s.version), l, nil
}

// mcpText lists the servers' states for co mcp list and /mcp.
func mcpText(m *mcp.Manager, withTools bool) string {
	var b strings.Builder
	for _, st := range m.Statuses() {
		b.WriteString(mcpStatusText(st, withTools))
	}
	return b.String()
}

// mcpStatusText is one server's lines of mcpText.
func mcpStatusText(st mcp.Status, withTools bool) string {
	var b strings.Builder
	where := "local"
	if st.Remote {
		where = "remote"
	}
	if st.Project {
		where += ", project"
	}
	if st.Auto {
		where += ", approve auto"
	}
	if st.TrustedContent {
		where += ", trusted content"
	}
	fmt.Fprintf(&b, "%s (%s): %s\n", safe.Text(st.Name), where, mcpState(st))
	fmt.Fprintf(&b, "  %s\n", safe.Text(st.Target))
	for _, d := range st.Definition { // a project's server: all it says, as written
		fmt.Fprintf(&b, "  %s\n", safe.Text(d))
	}
	if len(st.Files) > 0 { // and the project files it names: consent covers their content
		fmt.Fprintf(&b, "  files whose content the consent covers: %s\n", safe.Text(strings.Join(st.Files, ", ")))
	}
	if withTools && len(st.Tools) > 0 {
		fmt.Fprintf(&b, "  tools: %s\n", safe.Text(strings.Join(st.Tools, ", ")))
	}
	if st.State == mcp.Failed && st.Detail != "" {
		fmt.Fprintf(&b, "  error: %s\n", safe.Text(st.Detail))
	}
	if st.Log != "" && (st.State == mcp.Failed || withTools) {
		fmt.Fprintf(&b, "  log: %s\n", safe.Text(st.Log))
	}
	return b.String()
}

func mcpState(st mcp.Status) string {
	switch st.State {
	case mcp.Connected:
		s := "connected, " + plural(len(st.Tools), "tool")
		if len(st.Tools) == 1 {
			s = "connected, 1 tool"
		}
		if st.Protocol != "" {
			s += " (protocol " + safe.Text(st.Protocol) + ")"
		}
		return s
	case mcp.Failed:
		return "failed: " + safe.Text(st.Err)
	case mcp.NeedsLogin:
		why := ""
		if st.Detail != "" { // why the stored login is not used
			why = safe.Text(st.Detail) + " — "
		}
		return "needs login — " + why + "run co mcp login " + safe.Text(st.Name) + " or /mcp login " + safe.Text(st.Name)
	case mcp.AwaitingConsent:
		return "awaiting your consent, not started (co mcp trust " + safe.Text(st.Name) + ", or /mcp trust " + safe.Text(st.Name) + ")"
	}
	return st.State.String()
}

// mcpSlash is /mcp: the list, /mcp trust NAME, /mcp restart NAME.
func mcpSlash(a *app.App, arg string) slash.Result {
	m := a.MCP
	if m == nil {
		return slash.Result{Output: "No MCP servers are configured: add one with co mcp add NAME URL, or co mcp add NAME -- COMMAND [ARGS...] (it goes into " + safe.Text(a.Config.Paths.UserFile) + "; see the README's MCP section)."}
	}
	verb, name, _ := strings.Cut(arg, " ")
	name = strings.TrimSpace(name)
	switch verb {
	case "", "list":
		return slash.Result{Output: strings.TrimRight(mcpText(m, true), "\n")}
	case "login", "logout":
		if name == "" {
			return slash.Result{Output: "usage: /mcp " + verb + " NAME", Err: true}
		}
		if verb == "logout" {
			msg, err := m.Logout(name)
			if err != nil {
				return slash.Result{Output: safe.Text(err.Error()), Err: true}
			}
			return slash.Result{Output: safe.Text(msg)}
		}
		return mcpLoginSlash(m, name)
	case "trust", "restart":
		if name == "" {
			return slash.Result{Output: "usage: /mcp " + verb + " NAME", Err: true}
		}
		do := m.Restart
		done := "Restarting MCP server %s; /mcp shows when it is connected."
		if verb == "trust" {
			do, done = m.Trust, "Trusted MCP server %s for this project; starting it (/mcp shows its state)."
		}
		run := func() slash.Result {
			if err := do(name); err != nil {
				return slash.Result{Output: safe.Text(err.Error()), Err: true}
			}
			return slash.Result{Output: fmt.Sprintf(done, safe.Text(name))}
		}
		if verb == "trust" {
			// As co mcp trust: the definition in full first, then a question.
			i := slices.IndexFunc(m.Statuses(), func(st mcp.Status) bool { return st.Name == name })
			if i >= 0 && m.Statuses()[i].Project {
				return slash.Result{
					Output:    strings.TrimRight(mcpStatusText(m.Statuses()[i], false), "\n"),
					Confirm:   fmt.Sprintf("Let co start MCP server %s as defined above, now and in later runs while it stays so?", safe.Text(name)),
					OnConfirm: run,
				}
			}
		}
		return run()
	}
	return slash.Result{Output: "usage: /mcp, /mcp trust NAME, /mcp restart NAME, /mcp login NAME or /mcp logout NAME", Err: true}
}

// mcpLoginSlash is /mcp login NAME: the login runs in the background, its
// page and its end told as the manager's notices (the chat shows them as
// they happen), the browser opened as co mcp login opens it.
func mcpLoginSlash(m *mcp.Manager, name string) slash.Result {
	if err := m.CanLogin(name); err != nil {
		return slash.Result{Output: safe.Text(err.Error()), Err: true}
	}
	go func() {
		err := m.Login(context.Background(), name, mcp.LoginOptions{Open: openBrowser})
		m.LoginEnded(name, err)
	}()
	return slash.Result{Output: fmt.Sprintf("Logging in to MCP server %s: the page to visit follows; /mcp shows its state.", safe.Text(name))}
}
