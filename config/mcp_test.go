package config

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestMCPServersUserAndProject(t *testing.T) {
	f := newFixture(t)
	writeFile(t, f.userFile(), `{"mcp_servers": {
		"files": {"command": "npx", "args": ["-y", "srv"], "env": {"TOKEN": "${GH_TOKEN}", "PLAIN": "a-literal-secret-value"}, "approve": "auto"},
		"remote": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${API_TOKEN}"}, "timeout_seconds": 5, "enabled": false}
	}}`)
	writeFile(t, f.projectFile(), `{"mcp_servers": {
		"files": {"command": "evil"},
		"repo": {"command": "./tool", "approve": "auto"}
	}}`)
	l := f.load(t)
	got := l.Settings.MCPServers
	if len(got) != 3 {
		t.Fatalf("servers: %+v", got)
	}
	files, remote, repo := got[0], got[1], got[2]
	if files.Name != "files" || files.Command != "npx" || files.Approve != "auto" || files.Project || files.Env["TOKEN"] != "${GH_TOKEN}" {
		t.Errorf("files: %+v", files)
	}
	if remote.URL == "" || !remote.Disabled || remote.TimeoutSeconds != 5 {
		t.Errorf("remote: %+v", remote)
	}
	if repo.Name != "repo" || !repo.Project || repo.Approve != "ask" {
		t.Errorf("a project server is marked and cannot approve itself: %+v", repo)
	}
	var warned []string
	for _, w := range l.Warnings {
		warned = append(warned, w.Msg)
	}
	all := strings.Join(warned, "\n")
	if !strings.Contains(all, `"approve": "auto" for the MCP server "repo"`) || !strings.Contains(all, `ignored the MCP server "files"`) {
		t.Errorf("warnings: %s", all)
	}
	var shown string
	for _, e := range l.Entries() {
		if e.Key == "mcp_servers" {
			shown = e.Value
		}
	}
	if strings.Contains(shown, "a-literal-secret-value") || !strings.Contains(shown, "${GH_TOKEN}") {
		t.Errorf("co config must mask literal values and may show ${VAR} references: %s", shown)
	}
	if strings.Contains(shown, "Bearer ${API_TOKEN}") {
		t.Errorf("a header mixing text and a reference is masked: %s", shown)
	}
}

func TestMCPServersErrors(t *testing.T) {
	for _, tc := range []struct{ name, body, want string }{
		{"neither", `{"a": {"args": []}}`, `"mcp_servers".a needs "command"`},
		{"both", `{"a": {"command": "x", "url": "https://h"}}`, `has both "command" and "url"`},
		{"unknown", `{"a": {"command": "x", "cmd": "y"}}`, `unknown field "cmd"`},
		{"approve", `{"a": {"command": "x", "approve": "yes"}}`, `.approve must be "ask" or "auto"`},
		{"url", `{"a": {"url": "ftp://h"}}`, `.url must be an http or https URL`},
		{"timeout", `{"a": {"command": "x", "timeout_seconds": -1}}`, `.timeout_seconds must be an integer >= 0`},
		{"type", `{"a": {"command": "x", "args": "y"}}`, `.args has the wrong type`},
		{"array", `[]`, `"mcp_servers" must be an object`},
		{"oauth local", `{"a": {"command": "x", "oauth": {"client_id": "c"}}}`, `.oauth is for a remote server (url)`},
		{"oauth field", `{"a": {"url": "https://h", "oauth": {"clientid": "c"}}}`, `.oauth has an unknown field "clientid" (oauth has client_id, client_secret, client_metadata_url)`},
		{"oauth type", `{"a": {"url": "https://h", "oauth": "c"}}`, `.oauth must be an object like {"client_id"`},
		{"oauth secret", `{"a": {"url": "https://h", "oauth": {"client_secret": "s"}}}`, `.oauth.client_secret needs the client_id it belongs to`},
		{"oauth cimd", `{"a": {"url": "https://h", "oauth": {"client_metadata_url": "http://me/c.json"}}}`, `.client_metadata_url must be an https URL with a path`},
		{"oauth value", `{"a": {"url": "https://h", "oauth": {"client_id": 7}}}`, `.oauth.client_id must be a string`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			writeFile(t, f.userFile(), `{"mcp_servers": `+tc.body+`}`)
			_, err := Load(f.opts())
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v, want %q", err, tc.want)
			}
		})
	}
}

func TestMCPServersEnvAndSave(t *testing.T) {
	f := newFixture(t)
	f.env["CO_CLI_MCP_SERVERS"] = `{"e": {"url": "http://127.0.0.1:3001/mcp", "enabled": false}}`
	l := f.load(t)
	if len(l.Settings.MCPServers) != 1 || l.Settings.MCPServers[0].URL != "http://127.0.0.1:3001/mcp" || !l.Settings.MCPServers[0].Disabled {
		t.Fatalf("env: %+v", l.Settings.MCPServers)
	}
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := Save(path, &l.Settings); err != nil {
		t.Fatal(err)
	}
	s, _, err := LoadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !equalMCP(s.MCPServers, l.Settings.MCPServers) {
		t.Errorf("round trip: %+v", s.MCPServers)
	}
	a, b := l.Settings.MCPServers[0], l.Settings.MCPServers[0]
	b.Args = []string{"x"}
	if string(a.Definition()) == string(b.Definition()) {
		t.Error("a changed definition must hash differently")
	}
}

// A remote server's "oauth" is loaded as written (${VAR} kept), and co
// config masks a literal client secret as it masks header values.
func TestMCPOAuthSettings(t *testing.T) {
	f := newFixture(t)
	writeFile(t, f.userFile(), `{"mcp_servers": {"t": {"url": "https://h/mcp", "oauth": {"client_id": "co-client", "client_secret": "literal-secret-value", "client_metadata_url": "https://me.example/co.json"}},
		"u": {"url": "https://h/mcp", "oauth": {"client_id": "x", "client_secret": "${SECRET}"}}}}`)
	l := f.load(t)
	o := l.Settings.MCPServers[0].OAuth
	if o == nil || o.ClientID != "co-client" || o.ClientSecret != "literal-secret-value" || o.ClientMetadataURL != "https://me.example/co.json" {
		t.Fatalf("oauth: %+v", o)
	}
	shown := mcpDisplay(l.Settings.MCPServers)
	if strings.Contains(shown, "literal-secret-value") || !strings.Contains(shown, `"client_secret":"${SECRET}"`) {
		t.Errorf("co config shows %s", shown)
	}
}

// "trusted_content" is the user's to say: kept from their own file, dropped
// with a warning from a project's, as "approve": "auto" is.
func TestMCPTrustedContentOnlyFromTheUser(t *testing.T) {
	f := newFixture(t)
	writeFile(t, f.userFile(), `{"mcp_servers": {"mine": {"command": "my-server", "trusted_content": true}}}`)
	writeFile(t, f.projectFile(), `{"mcp_servers": {"repo": {"command": "./tool", "trusted_content": true}}}`)
	l := f.load(t)
	got := l.Settings.MCPServers
	if len(got) != 2 || got[0].Name != "mine" || !got[0].TrustedContent || got[1].Name != "repo" || got[1].TrustedContent || !got[1].Project {
		t.Fatalf("servers: %+v", got)
	}
	var warned []string
	for _, w := range l.Warnings {
		warned = append(warned, w.Msg)
	}
	if all := strings.Join(warned, "\n"); !strings.Contains(all, `ignored "trusted_content": true for the MCP server "repo" in `+f.projectFile()) ||
		!strings.Contains(all, "set it in "+f.userFile()) || strings.Contains(all, `"mine"`) {
		t.Errorf("warnings: %s", all)
	}
	// It is part of the definition (a project server's consent covers
	// what it says), and it survives a save.
	plain := got[0]
	plain.TrustedContent = false
	if string(plain.Definition()) == string(got[0].Definition()) || !strings.Contains(string(got[0].Definition()), `"trusted_content":true`) {
		t.Errorf("definition: %s", got[0].Definition())
	}
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := Save(path, &l.Settings); err != nil {
		t.Fatal(err)
	}
	s, _, err := LoadFile(path)
	if err != nil || len(s.MCPServers) == 0 || !s.MCPServers[0].TrustedContent {
		t.Errorf("round trip: %+v %v", s, err)
	}

	f = newFixture(t)
	writeFile(t, f.userFile(), `{"mcp_servers": {"a": {"command": "x", "trusted_content": "yes"}}}`)
	if _, err := Load(f.opts()); err == nil || !strings.Contains(err.Error(), `.trusted_content has the wrong type`) {
		t.Errorf("wrong type: %v", err)
	}
	f = newFixture(t)
	writeFile(t, f.userFile(), `{"mcp_servers": {"a": {"command": "x", "trusted": true}}}`)
	if _, err := Load(f.opts()); err == nil || !strings.Contains(err.Error(), "trusted_content") {
		t.Errorf("an unknown field lists trusted_content: %v", err)
	}
}
