package config

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"regexp"
	"slices"
	"strings"
)

// MCPServer is one entry of mcp_servers: a local server (Command) that co
// runs and speaks to over stdio, or a remote one (URL) over streamable HTTP.
// Values in Command, Args, Env, Cwd, URL and Headers may reference
// environment variables as ${VAR}; they are kept unexpanded here (co config
// shows them so) and expanded when the server starts.
type MCPServer struct {
	Name    string            `json:"-"`
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Disabled is "enabled": false.
	Disabled bool `json:"-"`
	// TimeoutSeconds bounds the start and each call; 0 means the default.
	TimeoutSeconds int `json:"timeout_seconds,omitempty"`
	// Approve is "ask" (the default) or "auto" (the user trusts every call
	// of this server; a project file cannot say so).
	Approve string `json:"approve,omitempty"`
	// TrustedContent is the user's word that the server's results hold no
	// one else's text (a server of their own over their own data): its
	// results are not untrusted content. Its calls still say what they send.
	// A project file cannot say so.
	TrustedContent bool `json:"trusted_content,omitempty"`
	// OAuth is how co registers with a remote server's authorization
	// server when it asks for a login (co mcp login); nil: dynamic client
	// registration.
	OAuth *MCPOAuth `json:"oauth,omitempty"`
	// Project is true for a server declared in the project file: it does
	// not start until the user consents to its exact definition.
	Project bool `json:"-"`
}

// MCPOAuth is a remote server's "oauth": a client the user registered with
// its authorization server beforehand (client_id, client_secret, which may
// reference ${VAR}), or the https URL of a client ID metadata document the
// user hosts (client_metadata_url), used where the server supports one.
type MCPOAuth struct {
	ClientID          string `json:"client_id,omitempty"`
	ClientSecret      string `json:"client_secret,omitempty"`
	ClientMetadataURL string `json:"client_metadata_url,omitempty"`
}

// mcpFields are the fields of one server entry, for messages.
var mcpFields = []string{"command", "args", "env", "cwd", "url", "headers", "enabled", "timeout_seconds", "approve", "trusted_content", "oauth"}

// mcpEnvRef matches a ${VAR} reference.
var mcpEnvRef = regexp.MustCompile(`^\$\{[A-Za-z_][A-Za-z0-9_]*\}$`)

// Definition is the server's definition as JSON, in a stable form: what the
// user consents to for a project server (a changed definition asks again).
func (s MCPServer) Definition() []byte {
	m := map[string]any{"name": s.Name}
	b, _ := json.Marshal(s)
	var fields map[string]any
	_ = json.Unmarshal(b, &fields)
	maps.Copy(m, fields)
	if s.Disabled {
		m["enabled"] = false
	}
	out, _ := json.Marshal(m) // map keys are sorted
	return out
}

// MarshalJSON writes the entry as a settings file holds it.
func (s MCPServer) MarshalJSON() ([]byte, error) {
	type plain MCPServer
	b, err := json.Marshal(plain(s))
	if err != nil || !s.Disabled {
		return b, err
	}
	return append(b[:len(b)-1], []byte(`,"enabled":false}`)...), nil
}

// mcpDisplay renders the servers for co config: values of env and headers
// are masked unless they only reference an environment variable.
func mcpDisplay(servers []MCPServer) string {
	out := map[string]MCPServer{}
	for _, s := range servers {
		s.Env, s.Headers = maskValues(s.Env), maskValues(s.Headers)
		if o := s.OAuth; o != nil && o.ClientSecret != "" && !mcpEnvRef.MatchString(o.ClientSecret) {
			c := *o
			c.ClientSecret = MaskSecret(c.ClientSecret)
			s.OAuth = &c
		}
		out[s.Name] = s
	}
	b, _ := json.Marshal(out)
	return string(b)
}

func maskValues(m map[string]string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		if mcpEnvRef.MatchString(v) {
			out[k] = v
		} else {
			out[k] = MaskSecret(v)
		}
	}
	return out
}

// decodeMCPServers decodes mcp_servers: an object from server name to entry.
// msg continues after the key: ` must be ...`, `.NAME.url must be ...`.
func decodeMCPServers(raw json.RawMessage) ([]MCPServer, string) {
	return decodeNamed(raw, ` must be an object from a server name to {"command": ..., "args": [...]} or {"url": "https://..."}, got `, decodeMCPServer)
}

// decodeNamed decodes an object from a name to an entry (mcp_servers,
// schedules) with decode, in the names' order. notObject is the message
// when raw is no object, before the value shown.
func decodeNamed[T any](raw json.RawMessage, notObject string, decode func(string, json.RawMessage) (T, string)) ([]T, string) {
	var obj map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		return nil, notObject + shownJSON(raw)
	}
	names := slices.Sorted(maps.Keys(obj))
	out := make([]T, 0, len(names))
	for _, name := range names {
		v, msg := decode(name, obj[name])
		if msg != "" {
			return nil, "." + name + msg
		}
		out = append(out, v)
	}
	return out, ""
}

func decodeMCPServer(name string, raw json.RawMessage) (MCPServer, string) {
	s := MCPServer{Name: name}
	if strings.TrimSpace(name) == "" {
		return s, ` is not a name: a server needs a non-empty name`
	}
	raw = bytes.TrimSpace(raw)
	var obj map[string]json.RawMessage
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &obj) != nil {
		return s, ` must be an object like {"command": "npx", "args": ["-y", "some-server"]} or {"url": "https://..."}, got ` + shownJSON(raw)
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		v := bytes.TrimSpace(obj[k])
		if string(v) == "null" {
			continue
		}
		var err error
		switch k {
		case "command":
			err = json.Unmarshal(v, &s.Command)
		case "cwd":
			err = json.Unmarshal(v, &s.Cwd)
		case "url":
			err = json.Unmarshal(v, &s.URL)
		case "approve":
			err = json.Unmarshal(v, &s.Approve)
		case "trusted_content":
			err = json.Unmarshal(v, &s.TrustedContent)
		case "oauth":
			if s.OAuth, err = decodeMCPOAuth(v); err != nil {
				return s, ".oauth" + err.Error()
			}
		case "args":
			err = json.Unmarshal(v, &s.Args)
		case "env":
			err = json.Unmarshal(v, &s.Env)
		case "headers":
			err = json.Unmarshal(v, &s.Headers)
		case "enabled":
			var on bool
			err = json.Unmarshal(v, &on)
			s.Disabled = !on
		case "timeout_seconds":
			n, ok := jsonInt(v)
			if !ok || n < 0 {
				return s, ".timeout_seconds must be an integer >= 0 (0: the default, 30), got " + shownJSON(v)
			}
			s.TimeoutSeconds = n
		default:
			return s, " has an unknown field " + quote(k) + " (a server has " + strings.Join(mcpFields, ", ") + ")"
		}
		if err != nil {
			return s, "." + k + " has the wrong type: " + shownJSON(v)
		}
	}
	return s, validateMCPServer(s)
}

// validateMCPServer returns what is wrong with s, or "".
func validateMCPServer(s MCPServer) string {
	switch {
	case s.Command == "" && s.URL == "":
		return ` needs "command" (a local server) or "url" (a remote one)`
	case s.Command != "" && s.URL != "":
		return ` has both "command" and "url": a server is local (command) or remote (url), not both`
	case s.URL == "" && len(s.Headers) > 0:
		return `.headers is for a remote server (url); pass a local server's settings in "env"`
	case s.Command == "" && (len(s.Args) > 0 || len(s.Env) > 0 || s.Cwd != ""):
		return ` is remote (url): "args", "env" and "cwd" are for a local server (command)`
	case s.URL == "" && s.OAuth != nil:
		return `.oauth is for a remote server (url): a local server (command) logs in its own way`
	case s.OAuth != nil && s.OAuth.ClientSecret != "" && s.OAuth.ClientID == "":
		return `.oauth.client_secret needs the client_id it belongs to (oauth.client_id)`
	case s.Approve != "" && s.Approve != "ask" && s.Approve != "auto":
		return `.approve must be "ask" or "auto", got ` + quote(s.Approve)
	}
	if s.URL != "" && !strings.Contains(s.URL, "${") {
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return ".url must be an http or https URL, got " + quote(s.URL)
		}
	}
	return ""
}

// decodeMCPOAuth decodes "oauth", naming an unknown field or a metadata
// URL that is not https with a path (what the MCP specification requires of
// a client ID metadata document's URL).
func decodeMCPOAuth(v json.RawMessage) (*MCPOAuth, error) {
	var obj map[string]json.RawMessage
	if len(v) == 0 || v[0] != '{' || json.Unmarshal(v, &obj) != nil {
		return nil, fmt.Errorf(` must be an object like {"client_id": "...", "client_secret": "${SECRET}"}, got %s`, shownJSON(v))
	}
	o := &MCPOAuth{}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		var dst *string
		switch k {
		case "client_id":
			dst = &o.ClientID
		case "client_secret":
			dst = &o.ClientSecret
		case "client_metadata_url":
			dst = &o.ClientMetadataURL
		default:
			return nil, fmt.Errorf(" has an unknown field %s (oauth has client_id, client_secret, client_metadata_url)", quote(k))
		}
		if json.Unmarshal(obj[k], dst) != nil {
			return nil, fmt.Errorf(".%s must be a string, got %s", k, shownJSON(obj[k]))
		}
	}
	if u := o.ClientMetadataURL; u != "" && !strings.Contains(u, "${") {
		p, err := url.Parse(u)
		if err != nil || p.Scheme != "https" || p.Host == "" || strings.Trim(p.Path, "/") == "" {
			return nil, fmt.Errorf(".client_metadata_url must be an https URL with a path (where your client ID metadata document is served), got %s", quote(u))
		}
	}
	return o, nil
}

// projectMCPServers merges the project file's servers into the user's: they
// are marked Project (no start without consent), a name the user already
// uses keeps the user's definition, and "approve": "auto" and
// "trusted_content": true are dropped, each with a warning.
func (l *Loaded) projectMCPServers(path string, servers []MCPServer) []MCPServer {
	out := slices.Clone(l.Settings.MCPServers)
	for _, s := range servers {
		if slices.ContainsFunc(out, func(u MCPServer) bool { return u.Name == s.Name }) {
			l.Warnings = append(l.Warnings, Warning{Source: path, Key: "mcp_servers",
				Msg: fmt.Sprintf("ignored the MCP server %q in %s: your settings define a server of that name", s.Name, path)})
			continue
		}
		if s.Approve == "auto" {
			l.Warnings = append(l.Warnings, Warning{Source: path, Key: "mcp_servers",
				Msg: fmt.Sprintf(`ignored "approve": "auto" for the MCP server %q in %s: a project file cannot approve calls for you; its calls ask (set it in %s to trust the server)`, s.Name, path, l.Paths.UserFile)})
			s.Approve = "ask"
		}
		if s.TrustedContent {
			l.Warnings = append(l.Warnings, Warning{Source: path, Key: "mcp_servers",
				Msg: fmt.Sprintf(`ignored "trusted_content": true for the MCP server %q in %s: a project file cannot vouch for what a server returns; its results count as untrusted content (set it in %s to trust the server's content)`, s.Name, path, l.Paths.UserFile)})
			s.TrustedContent = false
		}
		s.Project = true
		out = append(out, s)
	}
	return out
}

func cloneMCP(v []MCPServer) []MCPServer {
	out := slices.Clone(v)
	for i := range out {
		out[i].Args = slices.Clone(out[i].Args)
		out[i].Env = maps.Clone(out[i].Env)
		out[i].Headers = maps.Clone(out[i].Headers)
		if o := out[i].OAuth; o != nil {
			c := *o
			out[i].OAuth = &c
		}
	}
	return out
}

func equalMCP(a, b []MCPServer) bool {
	return slices.EqualFunc(a, b, func(x, y MCPServer) bool { return bytes.Equal(x.Definition(), y.Definition()) })
}

// mcpObject is the servers as a settings file holds them.
func mcpObject(v []MCPServer) map[string]MCPServer {
	out := make(map[string]MCPServer, len(v))
	for _, s := range v {
		out[s.Name] = s
	}
	return out
}
