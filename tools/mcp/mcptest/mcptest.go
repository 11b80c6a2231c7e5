// Package mcptest helps tests run real MCP servers: it finds the reference
// server co's tests run against and watches the processes a server leaves.
// It is for tests, as net/http/httptest is.
package mcptest

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/co-cli/co/lib/testneeds"
)

// Everything returns the entry point of the reference server
// @modelcontextprotocol/server-everything, installed by scripts/test.sh
// (pinned, into ~/.cache/co-test/npm) and named by CO_TEST_MCP_EVERYTHING.
// Without it the test fails, as the Docker tests do, unless the person
// running the tests opted out with CO_TEST_NO_NPM=1.
func Everything(t testing.TB) string {
	t.Helper()
	p := os.Getenv("CO_TEST_MCP_EVERYTHING")
	if p == "" {
		home, _ := os.UserHomeDir()
		p = filepath.Join(home, ".cache", "co-test", "npm", "node_modules", "@modelcontextprotocol", "server-everything", "dist", "index.js")
	}
	_, err := os.Stat(p)
	_, nodeErr := exec.LookPath("node")
	if err == nil && nodeErr == nil {
		return p
	}
	if err == nil {
		err = nodeErr
	}
	testneeds.NPM.Missing(t, err)
	return ""
}

// GroupAlive reports whether a process of group pgid is alive (not a
// zombie), from /proc.
func GroupAlive(pgid int) bool {
	dirs, _ := os.ReadDir("/proc")
	for _, d := range dirs {
		if _, err := strconv.Atoi(d.Name()); err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", d.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...; comm may hold spaces.
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			return true
		}
	}
	return false
}
