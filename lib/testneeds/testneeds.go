// Package testneeds is how co's tests say what they need from the machine
// beyond Go: a Docker engine with the sandbox image, tmux, Chromium, the
// MCP reference server. A test that finds its need missing fails, saying
// how to install it and which variable skips it; with that variable set
// to 1 it is skipped, and the skip says the variable. So `go test ./...`
// on a laptop without them tells what to set, and nothing is skipped
// silently where the tools are expected (scripts/test.sh installs them
// all). docs/development.md's "Running the tests" lists the same (a test checks it).
package testneeds

import (
	"os"
	"testing"
)

// A Need is one thing some tests need.
type Need struct {
	Var     string // set to 1 to skip the tests that need it
	What    string // what is needed
	Install string // how to get it
}

var (
	Docker  = Need{"CO_TEST_NO_DOCKER", "a Docker engine and the sandbox image (co-cli-sandbox)", "run scripts/docker-up.sh (as root)"}
	Tmux    = Need{"CO_TEST_NO_TMUX", "tmux (the full-screen chat's tests drive it in a tmux pane)", "apt-get install tmux"}
	Browser = Need{"CO_TEST_NO_BROWSER", "Chromium (the span viewers' tests load their pages in it; web_fetch's PDF test prints a page with it)", "apt-get install -y chromium"}
	Cron    = Need{"CO_TEST_NO_CRON", "Debian's cron daemon and root (the scheduled-run test starts cron -f and adds, then removes, an entry in root's crontab)", "apt-get install cron (scripts/test.sh does) and run the tests as root"}
	DBus    = Need{"CO_TEST_NO_DBUS", "dbus-daemon (the desktop-notification tests start a session bus of their own)", "apt-get install dbus (scripts/test.sh does)"}
	NPM     = Need{"CO_TEST_NO_NPM", "Node.js and the MCP reference server @modelcontextprotocol/server-everything (found through CO_TEST_MCP_EVERYTHING)", "run scripts/test.sh, which installs it into ~/.cache/co-test/npm"}
)

// All are every Need, for docs/development.md's list.
var All = []Need{Docker, Tmux, Browser, NPM, Cron, DBus}

// Missing reports that n is missing (why says what was found instead):
// t is skipped when n.Var is 1, and fails otherwise. It does not return.
func (n Need) Missing(t testing.TB, why any) {
	t.Helper()
	if os.Getenv(n.Var) == "1" {
		t.Skipf("%s=1 skips this test: it needs %s (%v)", n.Var, n.What, why)
	}
	t.Fatalf("this test needs %s, which is missing: %v\nTo install it: %s. To skip the tests that need it, set %s=1.", n.What, why, n.Install, n.Var)
}
