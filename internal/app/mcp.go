package app

import (
	"path/filepath"
	"time"

	"github.com/co-cli/co/config"
	"github.com/co-cli/co/lib/protect"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/mcp"
)

// NewMCP makes the manager of the MCP servers in the settings, their tools
// going into reg as they connect. Nothing starts here: the agent starts
// them after the front end's first frame (agent.Config.ToolsStart), or co
// mcp list does. Nil when no server is configured.
func NewMCP(l *config.Loaded, reg *tools.Registry, version string) *mcp.Manager {
	if len(l.Settings.MCPServers) == 0 {
		return nil
	}
	servers := mcpServers(l)
	project, _ := filepath.Abs(filepath.Dir(filepath.Dir(l.Paths.ProjectFile)))
	return mcp.New(mcp.Options{
		Servers:  servers,
		Registry: reg,
		LogDir:   filepath.Join(l.Paths.DataDir, "mcp"),
		Trust:    mcp.NewTrust(filepath.Join(l.Paths.DataDir, "mcp-trust.json")),
		Project:  project,
		Version:  version,
		Auth:     mcpAuth(l),
		// A call naming a protected path of the workspace always asks.
		Workspace: project,
		Protected: protect.New(l.Settings.ContextFiles).In(project, Places(l)),
	})
}

// mcpAuth is where the tokens of the MCP servers the user logged in to are
// kept: the data directory's mcp-auth, one file a server, 0600.
func mcpAuth(l *config.Loaded) *mcp.AuthStore {
	return mcp.NewAuthStore(filepath.Join(l.Paths.DataDir, "mcp-auth"))
}

// SpanSecrets are the values the span store redacts: the settings' secrets
// and the MCP servers' (their ${VAR} values and literal env and header
// values, mcp.Secrets).
func SpanSecrets(l *config.Loaded) []string {
	out := append(l.Settings.Secrets(), mcp.Secrets(mcpServers(l), nil)...)
	if len(l.Settings.MCPServers) > 0 {
		out = append(out, mcpAuth(l).Secrets()...) // the tokens of MCP logins
	}
	return out
}

// mcpServers are the configured MCP servers as the manager takes them.
func mcpServers(l *config.Loaded) []mcp.ServerConfig {
	servers := make([]mcp.ServerConfig, 0, len(l.Settings.MCPServers))
	for _, s := range l.Settings.MCPServers {
		servers = append(servers, mcp.ServerConfig{
			Name: s.Name, Command: s.Command, Args: s.Args, Env: s.Env, Cwd: s.Cwd,
			URL: s.URL, Headers: s.Headers, Disabled: s.Disabled, OAuth: oauthClient(s.OAuth),
			Timeout:     time.Duration(s.TimeoutSeconds) * time.Second,
			AutoApprove: s.Approve == "auto" && !s.Project,
			// Config drops it from a project file already; not trusting
			// a project server's content here too keeps that so.
			TrustedContent: s.TrustedContent && !s.Project,
			Project:        s.Project,
			Definition:     s.Definition(),
		})
	}
	return servers
}

func oauthClient(o *config.MCPOAuth) mcp.OAuthClient {
	if o == nil {
		return mcp.OAuthClient{}
	}
	return mcp.OAuthClient{ClientID: o.ClientID, ClientSecret: o.ClientSecret, ClientMetadataURL: o.ClientMetadataURL}
}

// startMCP makes the run's MCP manager (not in report-only runs) and hands
// the agent its start and wait.
func (a *App) startMCP() {
	if a.opts.ReportOnly {
		return
	}
	if a.MCP = NewMCP(a.Config, a.Tools, a.opts.Version); a.MCP != nil {
		if t := a.Telemetry.Tracing; t != nil {
			a.MCP.RedactWith(t.AddSecrets) // a token a login brings later
		}
		a.onClose(a.MCP.Close)
	}
}
