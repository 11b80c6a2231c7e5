// Package mcp is co's client of MCP (Model Context Protocol) servers, built
// on the official Go SDK (github.com/modelcontextprotocol/go-sdk): the
// Manager turns the configured servers into sessions (a local server's
// process over stdio, a remote one over streamable HTTP), keeps each one's
// state (starting, connected, failed, awaiting consent), and offers their
// tools to the model through the session's tools.Registry as
// mcp__<server>__<tool>, each call going through co's one approval path.
//
// A project file's servers never start by themselves: the user consents to
// each exact definition once (Trust), recorded in the user's data directory
// keyed by the project's path and a hash of the definition.
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
	"os"
	"regexp"
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
	// Disabled servers are listed, never started.
	Disabled bool
	// Timeout bounds the start and each call; 0 means DefaultTimeout.
	Timeout time.Duration
	// AutoApprove is the user's explicit trust ("approve": "auto"): calls
	// run without asking. Never set for a project server.
	AutoApprove bool
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
