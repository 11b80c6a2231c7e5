package mcptest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/co-cli/co/lib/testneeds"
)

// Conformance finds the official MCP conformance suite's command-line
// entry (@modelcontextprotocol/conformance's dist/index.js): the file
// CO_TEST_MCP_CONFORMANCE names, else the one scripts/test.sh installs
// into ~/.cache/co-test/npm. A missing suite fails the test, or skips it
// with CO_TEST_NO_NPM=1.
func Conformance(t testing.TB) string {
	t.Helper()
	p := os.Getenv("CO_TEST_MCP_CONFORMANCE")
	if p == "" {
		home, _ := os.UserHomeDir()
		p = filepath.Join(home, ".cache", "co-test", "npm", "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js")
	}
	if _, err := os.Stat(p); err != nil {
		testneeds.NPM.Missing(t, err)
	}
	return p
}
