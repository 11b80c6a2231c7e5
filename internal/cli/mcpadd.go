package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/co-cli/co/config"
	"github.com/co-cli/co/lib/safe"
)

// co mcp add and co mcp remove take the shape Claude Code and Gemini CLI
// share: `add [options] NAME COMMAND_OR_URL [ARGS...]`, a command's own
// arguments after `--`, -e/--env KEY=VALUE for a local server and
// -H/--header "Name: Value" for a remote one, and `remove NAME`
// (docs/SOURCES.md#mcp-servers-added-from-the-command-line). Neither needs
// --transport here: co speaks stdio to a command and streamable HTTP to a
// URL, and tells them apart by the URL's scheme. The server goes into the
// user's settings file through config.EditFile, as co config set and co
// schedule add write it.

// mcpNameOK reports whether name is one co mcp add accepts: what a tool
// name (mcp__NAME__TOOL, at most 64 characters of [A-Za-z0-9_-]) keeps
// whole — 1 to 40 of those characters, the first a letter or digit.
func mcpNameOK(name string) bool {
	if name == "" || len(name) > 40 || name[0] == '-' || name[0] == '_' {
		return false
	}
	for _, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

func newMCPAddCmd(s env) *cobra.Command {
	var envs, headers []string
	var force bool
	cmd := &cobra.Command{
		Use:   "add NAME URL | add NAME -- COMMAND [ARGS...]",
		Short: "Add an MCP server to your settings file (a URL, or a command to run)",
		Long: `co mcp add adds an MCP server to mcp_servers in your user settings file
(~/.config/co-cli/settings.json), keeping the rest of the file as it is:

  co mcp add docs https://example.com/mcp
  co mcp add docs https://example.com/mcp --header 'Authorization: Bearer ${DOCS_TOKEN}'
  co mcp add files -- npx -y @modelcontextprotocol/server-filesystem ~/notes
  co mcp add gh --env 'GITHUB_TOKEN=${GITHUB_TOKEN}' -- github-mcp-server stdio

A URL (http:// or https://) is a remote server, spoken to over streamable
HTTP; anything else is a command co runs and speaks to over stdio. Put the
command after --, so that its own options (-y) are not taken as co's.
Values may name environment variables as ${VAR}: they are kept so in the
file and read when the server starts, which keeps a token out of the file.
A name is letters, digits, - and _ (up to 40), starting with a letter or
digit; an existing name is refused unless --force replaces it.

co mcp list then starts it and shows its tools; a remote server that needs a
login says so (co mcp login NAME).`,
		Args: usageArgs(cobra.MinimumNArgs(2)),
		RunE: func(cmd *cobra.Command, args []string) error {
			srv, err := mcpAddServer(args, cmd.ArgsLenAtDash(), envs, headers)
			if err != nil {
				return err
			}
			return mcpAdd(s, srv, force)
		},
	}
	cmd.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		// Most often a command's own option (npx -y) typed without --.
		return usageError{fmt.Errorf("%w\n\nA command's own options go after --: co mcp add NAME -- COMMAND [ARGS...]", err), c.CommandPath()}
	})
	cmd.Flags().StringArrayVarP(&envs, "env", "e", nil, "an environment variable of a command's process, KEY=VALUE (repeat for more)")
	cmd.Flags().StringArrayVarP(&headers, "header", "H", nil, `an HTTP header sent to a URL's server, "Name: Value" (repeat for more)`)
	cmd.Flags().BoolVar(&force, "force", false, "replace a server of the same name")
	return cmd
}

// mcpAddServer makes the entry from co mcp add's arguments: NAME and a URL,
// or NAME and a command with its arguments (dash: where -- was, or -1).
func mcpAddServer(args []string, dash int, envs, headers []string) (config.MCPServer, error) {
	name := args[0]
	srv := config.MCPServer{Name: name}
	if !mcpNameOK(name) {
		return srv, fmt.Errorf("%q is not an MCP server name: use letters, digits, - and _ (up to 40), starting with a letter or digit (like docs or my-files)", safe.Text(name))
	}
	if dash == 0 {
		return srv, fmt.Errorf("the name comes before --: co mcp add %s -- COMMAND [ARGS...]", safe.Text(name))
	}
	rest := args[1:]
	lower := strings.ToLower(rest[0])
	isURL := dash < 0 && (strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://"))
	if dash < 0 && !isURL && strings.Contains(rest[0], "://") {
		return srv, fmt.Errorf("%s is not an http:// or https:// URL: co speaks to a remote MCP server over streamable HTTP (for a command whose name has ://, put it after --)", safe.Text(rest[0]))
	}
	if isURL {
		if len(rest) > 1 {
			return srv, fmt.Errorf("a URL takes no arguments after it (got %s): co mcp add %s URL, or a command after --", safe.Text(strings.Join(rest[1:], " ")), safe.Text(name))
		}
		if len(envs) > 0 {
			return srv, fmt.Errorf("--env is for a command's process; a URL's server gets headers: --header 'Name: Value'")
		}
		srv.URL = rest[0]
		for _, h := range headers {
			k, v, ok := strings.Cut(h, ":")
			k, v = strings.TrimSpace(k), strings.TrimSpace(v)
			if !ok || k == "" || v == "" || strings.ContainsAny(k, " \t") {
				return srv, fmt.Errorf(`--header %q is not "Name: Value" (like --header 'Authorization: Bearer ${TOKEN}')`, safe.Text(h))
			}
			if srv.Headers == nil {
				srv.Headers = map[string]string{}
			}
			srv.Headers[k] = v
		}
		return srv, nil
	}
	if len(headers) > 0 {
		return srv, fmt.Errorf("--header is for a URL's server; a command gets environment variables: --env KEY=VALUE")
	}
	srv.Command, srv.Args = rest[0], rest[1:]
	for _, e := range envs {
		k, v, ok := strings.Cut(e, "=")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return srv, fmt.Errorf("--env %q is not KEY=VALUE (like --env 'API_KEY=${MY_API_KEY}')", safe.Text(e))
		}
		if srv.Env == nil {
			srv.Env = map[string]string{}
		}
		srv.Env[k] = v
	}
	return srv, nil
}

// mcpAdd saves srv in the user's settings file, refusing a name taken
// there or in the project file unless force.
func mcpAdd(s env, srv config.MCPServer, force bool) error {
	l, user, err := loadUserSettings()
	if err != nil {
		return err
	}
	name := safe.Text(srv.Name)
	_, had := findMCP(user.MCPServers, srv.Name)
	if had && !force {
		return fmt.Errorf("an MCP server named %s is in %s already: add --force to replace it, or pick another name (co mcp remove %s removes it)",
			name, safe.Text(l.Paths.UserFile), name)
	}
	if p, ok := findMCP(l.Settings.MCPServers, srv.Name); ok && p.Project && !force {
		return fmt.Errorf("the project file (%s) declares an MCP server named %s: yours would take its place (the project's is then ignored); pick another name, or add --force to add yours all the same",
			safe.Text(l.Paths.ProjectFile), name)
	}
	list := slices.DeleteFunc(slices.Clone(user.MCPServers), func(x config.MCPServer) bool { return x.Name == srv.Name })
	list = append(list, srv)
	if err := config.EditFile(l.Paths.UserFile, config.MCPServersChange(list)); err != nil {
		return err
	}
	verb := "Added"
	if had {
		verb = "Replaced"
	}
	what := "the command " + strings.Join(append([]string{srv.Command}, srv.Args...), " ")
	if srv.URL != "" {
		what = srv.URL
	}
	fmt.Fprintf(s.Out, "%s MCP server %s in %s: %s\n", verb, name, safe.Text(l.Paths.UserFile), safe.Text(what))
	fmt.Fprintf(s.Out, "co mcp list starts it and shows its tools; the next chat or run uses it.\n")
	if src := l.Sources["mcp_servers"]; src.Layer > config.LayerProject {
		fmt.Fprintf(s.Err, "Note: mcp_servers comes from %s, which wins over your user file: unset it to use this server.\n", src.String())
	}
	return nil
}

// loadUserSettings is the run's settings and the user file's own, which
// co mcp add and remove edit.
func loadUserSettings() (*config.Loaded, *config.Settings, error) {
	l, err := loadSettings()
	if err != nil {
		return nil, nil, err
	}
	user, _, err := config.LoadFile(l.Paths.UserFile)
	return l, user, err
}

func newMCPRemoveCmd(s env) *cobra.Command {
	return &cobra.Command{
		Use:     "remove NAME",
		Aliases: []string{"rm"},
		Short:   "Remove an MCP server from your settings file",
		Long: `co mcp remove NAME removes the MCP server NAME from mcp_servers in your user
settings file, keeping the rest of the file as it is. A server the project
file declares is that file's: edit it there. The tokens of a remote server's
login stay until co mcp logout NAME (run it first to delete them).`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(_ *cobra.Command, args []string) error {
			return mcpRemove(s, args[0])
		},
	}
}

func mcpRemove(s env, name string) error {
	l, user, err := loadUserSettings()
	if err != nil {
		return err
	}
	if _, ok := findMCP(user.MCPServers, name); !ok {
		if p, ok := findMCP(l.Settings.MCPServers, name); ok && p.Project {
			return fmt.Errorf("MCP server %s is declared by the project file %s, not your user file: remove it there", safe.Text(name), safe.Text(l.Paths.ProjectFile))
		}
		var names []string
		for _, x := range user.MCPServers {
			names = append(names, x.Name)
		}
		known := "there is none"
		if len(names) > 0 {
			known = "it has " + strings.Join(names, ", ")
		}
		return fmt.Errorf("no MCP server named %s in %s (%s)", safe.Text(name), safe.Text(l.Paths.UserFile), safe.Text(known))
	}
	list := slices.DeleteFunc(slices.Clone(user.MCPServers), func(x config.MCPServer) bool { return x.Name == name })
	if err := config.EditFile(l.Paths.UserFile, config.MCPServersChange(list)); err != nil {
		return err
	}
	fmt.Fprintf(s.Out, "Removed MCP server %s from %s.\n", safe.Text(name), safe.Text(l.Paths.UserFile))
	return nil
}

func findMCP(list []config.MCPServer, name string) (config.MCPServer, bool) {
	i := slices.IndexFunc(list, func(x config.MCPServer) bool { return x.Name == name })
	if i < 0 {
		return config.MCPServer{}, false
	}
	return list[i], true
}
