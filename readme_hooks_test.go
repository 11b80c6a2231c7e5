package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/co-cli/co/hooks"
)

// readmeHooks are the README's Hooks section's examples, in order, each
// decoded as co decodes the "hooks" setting (no warning allowed).
func readmeHooks(t *testing.T) []hooks.Config {
	t.Helper()
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(b), "\n## Hooks\n")
	if !ok {
		t.Fatal("README.md has no Hooks section")
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var out []hooks.Config
	for _, block := range strings.Split(sec, "```json\n")[1:] {
		body, _, _ := strings.Cut(block, "```")
		var file struct {
			Hooks json.RawMessage `json:"hooks"`
		}
		if err := json.Unmarshal([]byte(body), &file); err != nil {
			t.Fatalf("a README example is not JSON: %v\n%s", err, body)
		}
		c, warnings, err := hooks.Decode(file.Hooks)
		if err != nil || len(warnings) > 0 {
			t.Fatalf("a README example does not decode: %v %v\n%s", err, warnings, body)
		}
		out = append(out, c)
	}
	return out
}

func needTools(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if _, err := exec.LookPath(n); err != nil {
			t.Fatalf("the README's hook examples need %s, which is not on PATH: apt-get install %s", n, n)
		}
	}
}

// The README's three hook examples decode; the guard and the formatter
// work, run for real through hooks.Set: the guard refuses a force-push
// with its reason and lets a push through, and blocks when it cannot run;
// the formatter gofmts the Go files a call changed and leaves the others.
func TestREADMEHookExamplesWork(t *testing.T) {
	needTools(t, "jq", "gofmt")
	ex := readmeHooks(t)
	if len(ex) != 3 || len(ex[0][hooks.PostToolUse]) != 1 || len(ex[1][hooks.PreToolUse]) != 1 || len(ex[2][hooks.Notification]) != 1 {
		t.Fatalf("want the formatter, the guard and the notification, got %v", ex)
	}
	formatter, guard := ex[0], ex[1]
	ctx := context.Background()

	dir := t.TempDir()
	g := hooks.NewSet(hooks.Options{User: guard, UserFile: "README.md", Dir: dir})
	shell := func(cmd string) hooks.Input {
		return hooks.Input{ToolName: "run_shell_command", ToolInput: json.RawMessage(`{"cmd":` + strconv.Quote(cmd) + `}`)}
	}
	for cmd, block := range map[string]bool{
		"git push --force origin main": true,
		"git push -f":                  true,
		"git push origin main":         false,
		"git status":                   false,
	} {
		out := g.Run(ctx, hooks.PreToolUse, shell(cmd))
		if out.Ran != 1 || out.Block != block || block && (out.Decision != hooks.Deny || !strings.Contains(out.Reason, "force-push refused")) {
			t.Errorf("the guard on %q: %+v", cmd, out)
		}
	}
	// No jq on PATH: the guard cannot read the call, and on_failure block
	// refuses it rather than letting it through.
	noJQ := hooks.NewSet(hooks.Options{User: guard, Dir: dir, Environ: []string{"PATH=" + t.TempDir()}})
	if out := noJQ.Run(ctx, hooks.PreToolUse, shell("git push --force")); !out.Block || out.Decision != hooks.Deny {
		t.Errorf("a guard that cannot run did not block: %+v", out)
	}

	ugly := "package x\nfunc  F( ) int {return 1}\n"
	for _, f := range []string{"a.go", "notes.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(ugly), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fm := hooks.NewSet(hooks.Options{User: formatter, Dir: dir})
	if fm.Has(hooks.PostToolUse, "run_shell_command") || !fm.Has(hooks.PostToolUse, "edit_file") {
		t.Error("the formatter's matcher is not write_file|edit_file")
	}
	out := fm.Run(ctx, hooks.PostToolUse, hooks.Input{ToolName: "write_file", ToolInput: json.RawMessage(`{"path":"a.go"}`),
		ChangedFiles: []string{"a.go", "notes.txt"}})
	if out.Ran != 1 || out.Block || len(out.Failures) > 0 {
		t.Fatalf("the formatter: %+v", out)
	}
	got, _ := os.ReadFile(filepath.Join(dir, "a.go"))
	if want := "package x\n\nfunc F() int { return 1 }\n"; string(got) != want {
		t.Errorf("a.go after the formatter:\n%s\nwant\n%s", got, want)
	}
	if txt, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(txt) != ugly {
		t.Errorf("the formatter touched a file that is not Go: %q", txt)
	}
}
