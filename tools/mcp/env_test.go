package mcp_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/tools/mcp"
)

// A project's server gets co's environment without the variables whose
// names look secret (as the unsandboxed shell's commands do), plus the
// env its definition sets; a user's own server gets the whole of it.
func TestProjectServerEnvironment(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "sk-should-not-leak")
	t.Setenv("X_TOKEN", "token-should-not-leak")
	t.Setenv("CO_TEST_PLAIN", "plain-value")
	dir := t.TempDir()
	projFile, userFile := filepath.Join(dir, "project.env"), filepath.Join(dir, "user.env")

	proj := stdioServer(t, "repo", map[string]string{"CO_MCP_TEST_ENVFILE": projFile, "OWN_API_KEY": "its-own"})
	proj.Project, proj.Definition = true, []byte(`{"v":1}`)
	user := stdioServer(t, "mine", map[string]string{"CO_MCP_TEST_ENVFILE": userFile})
	f := newFixture(t, proj, user)
	if n := f.start(t); len(n) != 0 {
		t.Fatalf("notices: %v", n)
	}
	if err := f.m.Trust("repo"); err != nil {
		t.Fatal(err)
	}
	f.start(t)
	for _, st := range f.m.Statuses() {
		if st.State != mcp.Connected {
			t.Fatalf("status: %+v", st)
		}
	}
	read := func(p string) map[string]string {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		env := map[string]string{}
		for _, l := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(l, "="); ok {
				env[k] = v
			}
		}
		return env
	}
	pe, ue := read(projFile), read(userFile)
	for _, k := range []string{"OPENAI_API_KEY", "X_TOKEN"} {
		if v, ok := pe[k]; ok {
			t.Errorf("the project server sees %s=%s", k, v)
		}
		if _, ok := ue[k]; !ok {
			t.Errorf("the user's server does not see %s", k)
		}
	}
	if pe["PATH"] == "" || pe["CO_TEST_PLAIN"] != "plain-value" || pe["OWN_API_KEY"] != "its-own" {
		t.Errorf("the project server lacks PATH, CO_TEST_PLAIN or its own env: PATH=%q CO_TEST_PLAIN=%q OWN_API_KEY=%q",
			pe["PATH"], pe["CO_TEST_PLAIN"], pe["OWN_API_KEY"])
	}
	var shown bool
	for _, d := range f.m.Statuses()[0].Definition {
		shown = shown || strings.Contains(d, "without variables named like keys, tokens, secrets or passwords")
	}
	if !shown {
		t.Errorf("the consent does not say what environment it gets: %q", f.m.Statuses()[0].Definition)
	}
}
