package cli

import (
	"context"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/mcp"
	"github.com/co-cli/co/ui/safe"
	"github.com/co-cli/co/ui/slash"
)

func newMCPCmd(s env) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "List the MCP servers and consent to a project's",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "list",
		Short: "Start the configured MCP servers and show each one's state and tools",
		Long: `co mcp list starts every enabled MCP server in mcp_servers (waiting at most each
server's timeout_seconds), shows its state (connected with its tools, failed and
why, awaiting consent for a project's server, disabled), then stops them.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(_ *cobra.Command, _ []string) error {
			m, err := mcpManager(s)
			if err != nil || m == nil {
				return err
			}
			defer m.Close()
			m.Start()
			m.Wait(context.Background())
			fmt.Fprint(s.Out, mcpText(m, true))
			return nil
		},
	})
	cmd.AddCommand(&cobra.Command{
		Use:   "trust NAME",
		Short: "Consent to the project's MCP server NAME as it is defined now",
		Long: `A server in the project file (./.co-cli/settings.json) never starts by itself:
co mcp trust NAME records your consent to its exact definition (in co's data
directory, keyed by the project's path and a hash of the definition), then
starts it and shows its state. A changed definition needs consent again.`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(_ *cobra.Command, args []string) error {
			m, err := mcpManager(s)
			if err != nil {
				return err
			}
			if m == nil {
				return fmt.Errorf("no MCP server is configured (mcp_servers in the settings)")
			}
			defer m.Close()
			if err := m.Trust(args[0]); err != nil {
				return err
			}
			m.Wait(context.Background())
			fmt.Fprintf(s.Out, "Trusted MCP server %s for this project.\n", safe.Text(args[0]))
			fmt.Fprint(s.Out, mcpText(m, false))
			return nil
		},
	})
	return cmd
}

// mcpManager builds the manager of the configured servers, or nil (having
// said so) when there is none.
func mcpManager(s env) (*mcp.Manager, error) {
	l, err := loadConfig(s)
	if err != nil {
		return nil, err
	}
	reg, _ := tools.NewRegistry()
	m := app.NewMCP(l, reg, s.version)
	if m == nil {
		fmt.Fprintln(s.Out, "No MCP servers are configured: add mcp_servers to "+safe.Text(l.Paths.UserFile)+" (see the README's MCP section).")
	}
	return m, nil
}

// mcpText lists the servers' states for co mcp list and /mcp.
func mcpText(m *mcp.Manager, withTools bool) string {
	var b strings.Builder
	for _, st := range m.Statuses() {
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
		fmt.Fprintf(&b, "%s (%s): %s\n", safe.Text(st.Name), where, mcpState(st))
		fmt.Fprintf(&b, "  %s\n", safe.Text(st.Target))
		for _, d := range st.Definition { // a project's server: all it says, as written
			fmt.Fprintf(&b, "  %s\n", safe.Text(d))
		}
		if withTools && len(st.Tools) > 0 {
			fmt.Fprintf(&b, "  tools: %s\n", safe.Text(strings.Join(st.Tools, ", ")))
		}
		if st.Log != "" && (st.State == mcp.Failed || withTools) {
			fmt.Fprintf(&b, "  log: %s\n", safe.Text(st.Log))
		}
	}
	return b.String()
}

func mcpState(st mcp.Status) string {
	switch st.State {
	case mcp.Connected:
		s := fmt.Sprintf("connected, %d tools", len(st.Tools))
		if len(st.Tools) == 1 {
			s = "connected, 1 tool"
		}
		if st.Protocol != "" {
			s += " (protocol " + safe.Text(st.Protocol) + ")"
		}
		return s
	case mcp.Failed:
		return "failed: " + safe.Text(st.Err)
	case mcp.AwaitingConsent:
		return "awaiting your consent, not started (co mcp trust " + safe.Text(st.Name) + ", or /mcp trust " + safe.Text(st.Name) + ")"
	}
	return st.State.String()
}

// mcpSlash is /mcp: the list, /mcp trust NAME, /mcp restart NAME.
func mcpSlash(a *app.App, arg string) slash.Result {
	m := a.MCP
	if m == nil {
		return slash.Result{Output: "No MCP servers are configured: add mcp_servers to " + safe.Text(a.Config.Paths.UserFile) + " (see the README's MCP section)."}
	}
	verb, name, _ := strings.Cut(arg, " ")
	name = strings.TrimSpace(name)
	switch verb {
	case "", "list":
		return slash.Result{Output: strings.TrimRight(mcpText(m, true), "\n")}
	case "trust", "restart":
		if name == "" {
			return slash.Result{Output: "usage: /mcp " + verb + " NAME", Err: true}
		}
		do := m.Restart
		done := "Restarting MCP server %s; /mcp shows when it is connected."
		if verb == "trust" {
			do, done = m.Trust, "Trusted MCP server %s for this project; starting it (/mcp shows its state)."
		}
		if err := do(name); err != nil {
			return slash.Result{Output: safe.Text(err.Error()), Err: true}
		}
		return slash.Result{Output: fmt.Sprintf(done, safe.Text(name))}
	}
	return slash.Result{Output: "usage: /mcp, /mcp trust NAME or /mcp restart NAME", Err: true}
}
