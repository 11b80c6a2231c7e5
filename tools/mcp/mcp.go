// Package mcp is co's client of MCP (Model Context Protocol) servers, built
// on the official Go SDK (github.com/modelcontextprotocol/go-sdk): the
// Manager turns the configured servers into sessions (a local server's
// process over stdio, a remote one over streamable HTTP), keeps each one's
// state (starting, connected, failed, awaiting consent), and offers their
// tools to the model through the session's tools.Registry as
// mcp__<server>__<tool>, each call going through co's one approval path.
//
// A project file's servers never start by themselves: the user consents to
// each exact definition, and the content of the project files its command
// and arguments name, once (Trust), recorded in the user's data directory
// keyed by the project's path and a hash of both.
//
// # Concurrency
//
// Servers start in the background (Start, after the front end's first
// frame), each in its own goroutine, and are watched while they run: a
// server that exits is marked failed and its tools withdrawn; a
// notifications/tools/list_changed refreshes its tools. Every method of
// Manager is safe to call from any goroutine; panics in its goroutines are
// recovered and reported as a failed server.
//
// The package imports no agent, front end or telemetry: what it has to tell
// the user comes back as plain strings (Wait) and Status values.
package mcp

import (
	"maps"
	"net/url"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// DefaultTimeout bounds a server's start and each of its calls when its
// settings give none.
const DefaultTimeout = 30 * time.Second

// ServerConfig is one configured server.
type ServerConfig struct {
	Name string
	// Command, Args, Env and Cwd describe a local server (stdio).
	Command string
	Args    []string
	Env     map[string]string
	Cwd     string
	// URL and Headers describe a remote server (streamable HTTP).
	URL     string
	Headers map[string]string
	// OAuth is how a remote server's login registers co (co mcp login).
	OAuth OAuthClient
	// Disabled servers are listed, never started.
	Disabled bool
	// Timeout bounds the start and each call; 0 means DefaultTimeout.
	Timeout time.Duration
	// AutoApprove is the user's explicit trust ("approve": "auto"): calls
	// run without asking. Never set for a project server.
	AutoApprove bool
	// TrustedContent is the user's word that the server's results hold
	// no one else's text ("trusted_content": true): they carry no
	// untrusted origin. Never set for a project server.
	TrustedContent bool
	// Project servers come from a repository's settings file: they start
	// only once the user has consented to Definition.
	Project bool
	// Definition is the server's settings in a stable form, the thing a
	// user consents to.
	Definition []byte
}

func (c ServerConfig) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// Remote reports whether the server is reached over HTTP.
func (c ServerConfig) Remote() bool { return c.URL != "" }

// envRef is a ${VAR} reference in a value.
var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// expand replaces ${VAR} references with the variables' values (empty when
// unset) and reports the variables that were not set.
func expand(s string, getenv func(string) (string, bool), missing map[string]bool) string {
	return envRef.ReplaceAllStringFunc(s, func(m string) string {
		name := m[2 : len(m)-1]
		v, ok := getenv(name)
		if !ok {
			missing[name] = true
		}
		return v
	})
}

func osGetenv(k string) (string, bool) { return os.LookupEnv(k) }

// plainVars are environment variables that name places and settings, not
// secrets: a ${HOME} in a server's cwd or args is not redacted from every
// span (every path under it would read [REDACTED]).
var plainVars = map[string]bool{"HOME": true, "USER": true, "LOGNAME": true, "PWD": true, "PATH": true,
	"SHELL": true, "TMPDIR": true, "LANG": true, "TERM": true}

// minLiteralSecret: a literal env or header value shorter than this ("1",
// "true", "debug") is taken for a setting, not a secret; redacting it by
// value would blank out ordinary words in every span.
const minLiteralSecret = 8

// Secrets are the values in the servers' settings that must never reach
// the span store: the value of every environment variable a server's
// settings reference as ${VAR} (a token in its URL, a header, an
// argument; the few variables in plainVars aside) and every literal env or
// header value of at least minLiteralSecret characters. The span store
// redacts them by value (telemetry.Options.Secrets).
func Secrets(servers []ServerConfig, getenv func(string) (string, bool)) []string {
	if getenv == nil {
		getenv = osGetenv
	}
	seen := map[string]bool{}
	var out []string
	add := func(v string) {
		if v != "" && !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	for _, c := range servers {
		for _, v := range c.values() {
			for _, m := range envRef.FindAllStringSubmatch(v, -1) {
				if val, ok := getenv(m[1]); ok && !plainVars[m[1]] {
					add(val)
				}
			}
		}
		if v := c.OAuth.ClientSecret; v != "" && !strings.Contains(v, "${") {
			add(v)
		}
		for _, m := range []map[string]string{c.Env, c.Headers} {
			for _, v := range m {
				if !strings.Contains(v, "${") && len(v) >= minLiteralSecret {
					add(v)
				}
			}
		}
	}
	return out
}

// values are every value of the settings that may reference ${VAR}.
func (c ServerConfig) values() []string {
	out := append([]string{c.Command, c.URL, c.Cwd, c.OAuth.ClientID, c.OAuth.ClientSecret, c.OAuth.ClientMetadataURL}, c.Args...)
	for _, k := range slices.Sorted(maps.Keys(c.Env)) {
		out = append(out, c.Env[k])
	}
	for _, k := range slices.Sorted(maps.Keys(c.Headers)) {
		out = append(out, c.Headers[k])
	}
	return out
}

// unexpander turns the values ${VAR} expanded to back into the settings as
// written, in text shown to the user and returned to the model: a transport
// error names the endpoint it posted to (`Post "https://host/s/<token>/mcp":
// ...`, net/http's url.Error), and the token must not go with it.
type unexpander struct{ pairs [][2]string } // expanded → as written, longest first

// newUnexpander records the expansions of c's values.
func newUnexpander(c ServerConfig, getenv func(string) (string, bool)) *unexpander {
	u := &unexpander{}
	seen := map[string]bool{}
	add := func(from, to string) {
		// Shorter values ("1", "on") would be replaced inside other words.
		if len(from) < 4 || from == to || seen[from] {
			return
		}
		seen[from] = true
		u.pairs = append(u.pairs, [2]string{from, to})
	}
	discard := map[string]bool{}
	var vars [][2]string
	for _, v := range c.values() {
		add(expand(v, getenv, discard), v) // a whole value first: the URL as written
		for _, m := range envRef.FindAllStringSubmatch(v, -1) {
			if val, ok := getenv(m[1]); ok {
				vars = append(vars, [2]string{val, m[0]})
			}
		}
	}
	for _, p := range vars {
		// As it may appear escaped in a URL, then as it is.
		add(url.PathEscape(p[0]), p[1])
		add(url.QueryEscape(p[0]), p[1])
		add(p[0], p[1])
	}
	sort.SliceStable(u.pairs, func(i, j int) bool { return len(u.pairs[i][0]) > len(u.pairs[j][0]) })
	return u
}

// text replaces every expansion in s with the value as written.
func (u *unexpander) text(s string) string {
	if u == nil {
		return s
	}
	for _, p := range u.pairs {
		s = strings.ReplaceAll(s, p[0], p[1])
	}
	return s
}
