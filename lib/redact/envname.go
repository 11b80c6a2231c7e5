package redact

import "strings"

// secretWords in an environment variable's name mark it as holding a secret.
var secretWords = []string{"KEY", "SECRET", "TOKEN", "PASSWORD"}

// SecretName reports whether an environment variable's name looks like it
// holds a secret (it contains KEY, SECRET, TOKEN or PASSWORD, in any case):
// such variables are kept out of the unsandboxed shell's commands and out
// of a project's MCP servers.
func SecretName(name string) bool {
	upper := strings.ToUpper(name)
	for _, w := range secretWords {
		if strings.Contains(upper, w) {
			return true
		}
	}
	return false
}

// WithoutSecretNames returns environ ("NAME=value" entries) without the
// entries whose names look secret ([SecretName]) and without malformed ones.
func WithoutSecretNames(environ []string) []string {
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		if name, _, ok := strings.Cut(kv, "="); ok && !SecretName(name) {
			out = append(out, kv)
		}
	}
	return out
}
