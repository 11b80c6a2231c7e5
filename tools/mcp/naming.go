package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// maxNameLen is the longest tool name offered: Gemini's function names are
// "a-z, A-Z, 0-9, or contain underscores, dots and dashes, with a maximum
// length of 64" (FunctionDeclaration.name in Google's API reference), and
// OpenAI's tools take the same ^[a-zA-Z0-9_-]{1,64}$.
const maxNameLen = 64

// sanitize replaces every character outside [A-Za-z0-9_-] with '_'.
func sanitize(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// ToolName is the name the model sees for tool of server:
// mcp__<server>__<tool>, sanitised, at most 64 characters (longer names
// are cut and end in a short hash of the full name), and not one taken
// reports as used (a collision gets the hash, then a number).
func ToolName(server, tool string, taken func(string) bool) string {
	full := "mcp__" + sanitize(server) + "__" + sanitize(tool)
	sum := sha256.Sum256([]byte(server + "\x00" + tool))
	hash := hex.EncodeToString(sum[:])[:8]
	withHash := func(base string) string {
		if len(base) > maxNameLen-9 {
			base = base[:maxNameLen-9]
		}
		return base + "_" + hash
	}
	name := full
	if len(name) > maxNameLen {
		name = withHash(full)
	}
	if taken == nil || !taken(name) {
		return name
	}
	if name == full {
		if name = withHash(full); !taken(name) {
			return name
		}
	}
	for i := 2; ; i++ {
		suffix := "_" + strconv.Itoa(i)
		n := name
		if len(n)+len(suffix) > maxNameLen {
			n = n[:maxNameLen-len(suffix)]
		}
		if n += suffix; !taken(n) {
			return n
		}
	}
}
