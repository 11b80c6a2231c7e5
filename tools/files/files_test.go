package files

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/co-cli/co/tools"
)

// ws makes a workspace over a temp dir filled with files (path → content).
func ws(t *testing.T, files map[string]string) (*Workspace, string) {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	w, err := New(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return w, dir
}

func tool(t *testing.T, w *Workspace, name string) tools.Tool {
	t.Helper()
	for _, x := range w.Tools() {
		if x.Name() == name {
			return x
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

func js(t *testing.T, args map[string]any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// call validates args against the tool's schema, as the agent does, then
// runs the tool.
func call(t *testing.T, w *Workspace, name string, args map[string]any) (tools.Result, error) {
	t.Helper()
	x := tool(t, w, name)
	raw := js(t, args)
	if err := tools.NewValidator().Validate(x, raw); err != nil {
		return tools.Result{}, err
	}
	return x.Run(context.Background(), raw)
}

func mustRun(t *testing.T, w *Workspace, name string, args map[string]any) tools.Result {
	t.Helper()
	r, err := call(t, w, name, args)
	if err != nil {
		t.Fatalf("%s(%v): %v", name, args, err)
	}
	return r
}

// wantRetry checks err is a Retry whose message has every part of want.
func wantRetry(t *testing.T, err error, want ...string) {
	t.Helper()
	if !tools.IsRetry(err) {
		t.Fatalf("err = %v (%T), want a Retry", err, err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("retry message %q lacks %q", err.Error(), w)
		}
	}
}

func read(t *testing.T, dir, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestToolShapes(t *testing.T) {
	w, _ := ws(t, nil)
	v := tools.NewValidator()
	classes := map[string]tools.Class{
		"list_directory": tools.ReadOnly, "read_file": tools.ReadOnly, "search_files": tools.ReadOnly,
		"write_file": tools.SideEffect, "edit_file": tools.SideEffect,
	}
	for _, x := range w.Tools() {
		want, ok := classes[x.Name()]
		if !ok || x.Class() != want {
			t.Errorf("%s: class %v", x.Name(), x.Class())
		}
		if _, isChecker := x.(tools.Checker); isChecker != (want == tools.SideEffect) {
			t.Errorf("%s: only the writers have a Check", x.Name())
		}
		if err := v.Validate(x, json.RawMessage(`{"nope":1}`)); !tools.IsRetry(err) {
			t.Errorf("%s: unknown arguments must be refused by the schema: %v", x.Name(), err)
		}
		if x.Description() == "" {
			t.Errorf("%s: no description", x.Name())
		}
	}
}

func TestPathsAreRefusedWithAClearMessage(t *testing.T) {
	w, dir := ws(t, map[string]string{"a.txt": "a\n"})
	base := filepath.Dir(dir)
	if err := os.WriteFile(filepath.Join(base, "secret.txt"), []byte("SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../secret.txt", filepath.Join(dir, "out")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("out", filepath.Join(dir, "chain")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../gone.txt", filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name, path string
		want       string
	}{
		{"absolute", "/etc/passwd", "is absolute"},
		{"absolute inside", filepath.Join(dir, "a.txt"), `use "a.txt"`},
		{"dotdot", "../secret.txt", "leads outside the workspace"},
		{"symlink out", "out", "leads outside"},
		{"symlink chain out", "chain", "leads outside"},
		{"dangling out", "dangling", "leads outside"},
		{"NUL", "a.txt\x00", "NUL"},
		{"backslash", `..\secret.txt`, "backslash"},
		{"drive", "C:/secret.txt", "drive letter"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, tc := range []struct {
				tool string
				args map[string]any
			}{
				{"read_file", map[string]any{"path": c.path}},
				{"list_directory", map[string]any{"path": c.path}},
				{"search_files", map[string]any{"pattern": "S", "path": c.path}},
				{"write_file", map[string]any{"path": c.path, "content": "PWNED"}},
				{"edit_file", map[string]any{"path": c.path, "old": "SECRET", "new": "PWNED"}},
			} {
				r, err := call(t, w, tc.tool, tc.args)
				if !tools.IsRetry(err) || strings.Contains(r.Display, "SECRET") {
					t.Fatalf("%s(%q) = %q, %v; want a Retry", tc.tool, c.path, r.Display, err)
				}
				if tc.tool != "write_file" && tc.tool != "edit_file" && !strings.Contains(err.Error(), c.want) {
					t.Errorf("%s(%q): %q lacks %q", tc.tool, c.path, err, c.want)
				}
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(base, "secret.txt")); string(b) != "SECRET" {
		t.Fatal("the outside file changed")
	}
}

func TestListDirectory(t *testing.T) {
	w, dir := ws(t, map[string]string{
		"b.txt": "bb", "a.go": "package a\n", "src/x.go": "x", "src/deep/y.go": "y",
		".gitignore": "*.log\nbuild/\n", "app.log": "log", "build/out.bin": "bin",
		".git/HEAD": "ref", "src/.gitignore": "gen.go\n", "src/gen.go": "gen",
	})
	if err := os.Symlink("a.go", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}

	r := mustRun(t, w, "list_directory", map[string]any{})
	for _, want := range []string{".git/", "a.go  (10 B)", "app.log", "build/", "link -> a.go", "pipe  (a named pipe (FIFO))", "src/"} {
		if !strings.Contains(r.Display, want) {
			t.Errorf("listing lacks %q:\n%s", want, r.Display)
		}
	}
	if r.Meta["count"] != 9 || r.Meta["has_more"] != false {
		t.Errorf("meta = %v", r.Meta)
	}

	r = mustRun(t, w, "list_directory", map[string]any{"recursive": true})
	for _, want := range []string{"src/deep/y.go", "src/x.go", "src/deep/", ".gitignore"} {
		if !strings.Contains(r.Display, want) {
			t.Errorf("recursive listing lacks %q:\n%s", want, r.Display)
		}
	}
	for _, skipped := range []string{"HEAD", "app.log", "out.bin", "gen.go"} {
		if strings.Contains(r.Display, skipped) {
			t.Errorf("recursive listing shows %q, which .git or .gitignore hides:\n%s", skipped, r.Display)
		}
	}

	r = mustRun(t, w, "list_directory", map[string]any{"path": "src", "recursive": true, "limit": 2})
	if r.Meta["count"] != 2 || r.Meta["has_more"] != true || !strings.Contains(r.Display, "raise limit") {
		t.Errorf("limited: %v\n%s", r.Meta, r.Display)
	}
	if !strings.HasPrefix(r.Display, ".gitignore  (7 B)\ndeep/\n") {
		t.Errorf("entries are relative to the listed directory:\n%s", r.Display)
	}

	if err := os.Mkdir(filepath.Join(dir, "empty"), 0o755); err != nil {
		t.Fatal(err)
	}
	r = mustRun(t, w, "list_directory", map[string]any{"path": "empty"})
	if r.Meta["count"] != 0 || !strings.Contains(r.Display, "empty") {
		t.Errorf("empty dir: %v %q", r.Meta, r.Display)
	}
	_, err := call(t, w, "list_directory", map[string]any{"path": "a.go"})
	wantRetry(t, err, "is a file", "read_file")
	_, err = call(t, w, "list_directory", map[string]any{"path": "nope"})
	wantRetry(t, err, "does not exist")
}

func TestReadFile(t *testing.T) {
	var long strings.Builder
	for i := 1; i <= 100; i++ {
		long.WriteString(strings.Repeat("x", 50) + "\n")
	}
	w, dir := ws(t, map[string]string{
		"a.txt": "one\ntwo\r\nthree", "long.txt": long.String(), "empty.txt": "",
		"bin.dat": "PNG\x00\x01\x02", "wide.txt": strings.Repeat("é", 5000) + "\n",
	})
	r := mustRun(t, w, "read_file", map[string]any{"path": "a.txt"})
	if r.Display != "1\tone\n2\ttwo\n3\tthree" {
		t.Errorf("display = %q", r.Display)
	}
	if r.Meta["total_lines"] != 3 || r.Meta["truncated"] != false || r.Meta["end_line"] != 3 {
		t.Errorf("meta = %v", r.Meta)
	}

	r = mustRun(t, w, "read_file", map[string]any{"path": "long.txt", "start_line": 98})
	if !strings.HasPrefix(r.Display, " 98\t") || !strings.HasSuffix(r.Display, "[lines 98-100 of 100]") {
		t.Errorf("range display = %q", r.Display)
	}

	r = mustRun(t, w, "read_file", map[string]any{"path": "long.txt", "max_chars": 200})
	if r.Meta["truncated"] != true || r.Meta["end_line"] != 3 ||
		!strings.Contains(r.Display, "[cut at max_chars=200: showed lines 1-3 of 100; continue with start_line=4]") {
		t.Errorf("truncated: %v\n%s", r.Meta, r.Display)
	}

	r = mustRun(t, w, "read_file", map[string]any{"path": "wide.txt"})
	if !strings.Contains(r.Display, "[line cut: 5000 characters]") {
		t.Errorf("a long line must be cut: %.100q", r.Display)
	}
	r = mustRun(t, w, "read_file", map[string]any{"path": "empty.txt"})
	if r.Display != "(empty file)" || r.Meta["total_lines"] != 0 {
		t.Errorf("empty: %v %q", r.Meta, r.Display)
	}

	_, err := call(t, w, "read_file", map[string]any{"path": "bin.dat"})
	wantRetry(t, err, "binary")
	_, err = call(t, w, "read_file", map[string]any{"path": "long.txt", "start_line": 200})
	wantRetry(t, err, "past the end", "100 lines")
	_, err = call(t, w, "read_file", map[string]any{"path": "long.txt", "start_line": 5, "end_line": 2})
	wantRetry(t, err, "after end_line")
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err = call(t, w, "read_file", map[string]any{"path": "d"})
	wantRetry(t, err, "is a directory", "list_directory")
	_, err = call(t, w, "read_file", map[string]any{"path": "missing.txt"})
	wantRetry(t, err, "does not exist")
	_, err = call(t, w, "read_file", map[string]any{})
	wantRetry(t, err, "path")

	if err := os.WriteFile(filepath.Join(dir, "huge"), make([]byte, MaxReadBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = call(t, w, "read_file", map[string]any{"path": "huge"})
	wantRetry(t, err, "limit")

	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = call(t, w, "read_file", map[string]any{"path": "pipe"})
	wantRetry(t, err, "FIFO")
}

func TestSearchFiles(t *testing.T) {
	w, _ := ws(t, map[string]string{
		"main.go":        "package main\n\nfunc main() {\n\tTODO()\n}\n",
		"lib/util.go":    "package lib\n// TODO: tidy\n",
		"lib/notes.md":   "TODO in markdown\n",
		"vendor/dep.go":  "// TODO vendored\n",
		"ignored.log":    "TODO log\n",
		".gitignore":     "vendor/\n*.log\n",
		".git/config":    "TODO in git\n",
		"bin/tool":       "TODO\x00binary",
		"lib/.gitignore": "!keep.log\n",
		"lib/keep.log":   "TODO kept\n",
	})
	r := mustRun(t, w, "search_files", map[string]any{"pattern": "TODO"})
	for _, want := range []string{"main.go:4: TODO()", "lib/util.go:2: // TODO: tidy", "lib/notes.md:1: TODO in markdown", "lib/keep.log:1: TODO kept"} {
		if !strings.Contains(r.Display, want) {
			t.Errorf("lacks %q:\n%s", want, r.Display)
		}
	}
	for _, skipped := range []string{"vendored", "TODO log", "in git", "binary"} {
		if strings.Contains(r.Display, skipped) {
			t.Errorf("shows %q:\n%s", skipped, r.Display)
		}
	}
	if r.Meta["count"] != 4 || r.Meta["has_more"] != false {
		t.Errorf("meta = %v", r.Meta)
	}

	r = mustRun(t, w, "search_files", map[string]any{"pattern": "(?i)todo", "glob": "*.go"})
	if r.Meta["count"] != 2 || strings.Contains(r.Display, ".md") {
		t.Errorf("glob: %v\n%s", r.Meta, r.Display)
	}
	r = mustRun(t, w, "search_files", map[string]any{"pattern": "TODO", "path": "lib", "limit": 1})
	if r.Meta["count"] != 1 || r.Meta["has_more"] != true || !strings.HasPrefix(r.Display, "lib/") {
		t.Errorf("limit: %v\n%s", r.Meta, r.Display)
	}
	r = mustRun(t, w, "search_files", map[string]any{"pattern": "nothing matches this"})
	if r.Meta["count"] != 0 || !strings.HasPrefix(r.Display, "No matches") {
		t.Errorf("empty result must be a result, not an error: %v %q", r.Meta, r.Display)
	}
	_, err := call(t, w, "search_files", map[string]any{"pattern": "func("})
	wantRetry(t, err, "not a valid RE2", "backslash")
	_, err = call(t, w, "search_files", map[string]any{"pattern": "x", "path": "main.go"})
	wantRetry(t, err, "is a file")
}

func TestWriteFileAsksWithADiffAndWritesNothingUntilRun(t *testing.T) {
	w, dir := ws(t, map[string]string{"src/a.txt": "one\ntwo\n"})
	wt := tool(t, w, "write_file")

	c := tools.Decide(context.Background(), wt, js(t, map[string]any{"path": "src/new.txt", "content": "hello\nworld\n"}))
	if c.Decision != tools.Ask || c.AlwaysAsk || c.Scope != "write_file:src/" || c.ScopeLabel != "write_file under src/" {
		t.Errorf("check = %+v", c)
	}
	if !strings.Contains(c.Preview, "--- /dev/null\n+++ b/src/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n") {
		t.Errorf("new-file preview:\n%s", c.Preview)
	}
	if _, err := os.Stat(filepath.Join(dir, "src/new.txt")); err == nil {
		t.Fatal("Check wrote the file")
	}

	c = tools.Decide(context.Background(), wt, js(t, map[string]any{"path": "src/a.txt", "content": "one\n2\n"}))
	if !strings.Contains(c.Preview, "-two\n+2\n") || !strings.Contains(c.Reason, "replaces the content of src/a.txt") {
		t.Errorf("overwrite check: %+v", c)
	}
	if read(t, dir, "src/a.txt") != "one\ntwo\n" {
		t.Fatal("Check changed the file")
	}
	c = tools.Decide(context.Background(), wt, js(t, map[string]any{"path": "top.txt", "content": "x"}))
	if c.Scope != "write_file:./" {
		t.Errorf("top-level scope = %q", c.Scope)
	}

	r := mustRun(t, w, "write_file", map[string]any{"path": "src/new.txt", "content": "hello\nworld\n"})
	if r.Display != "Created src/new.txt (2 lines, 12 B)." || r.Meta["created"] != true || r.Meta["bytes"] != 12 {
		t.Errorf("result = %q %v", r.Display, r.Meta)
	}
	r = mustRun(t, w, "write_file", map[string]any{"path": "src/a.txt", "content": "one\n2\n"})
	if r.Meta["created"] != false || read(t, dir, "src/a.txt") != "one\n2\n" {
		t.Errorf("overwrite: %v", r.Meta)
	}
	r = mustRun(t, w, "write_file", map[string]any{"path": "src/a.txt", "content": "one\n2\n"})
	if r.Meta["changed"] != false || !strings.Contains(r.Display, "nothing written") {
		t.Errorf("same content: %q", r.Display)
	}

	_, err := call(t, w, "write_file", map[string]any{"path": "x/y/z.txt", "content": "z"})
	wantRetry(t, err, `"x" does not exist`, "create_dirs=true")
	mustRun(t, w, "write_file", map[string]any{"path": "x/y/z.txt", "content": "z", "create_dirs": true})
	if read(t, dir, "x/y/z.txt") != "z" {
		t.Error("create_dirs did not create")
	}
	_, err = call(t, w, "write_file", map[string]any{"path": "big", "content": strings.Repeat("x", MaxWriteBytes+1)})
	wantRetry(t, err, "limit")
}

func TestWritesToPlacesThatRunCodeAlwaysAsk(t *testing.T) {
	w, _ := ws(t, map[string]string{".git/config": "[core]\n", ".envrc": "x", "sub/.envrc": "y"})
	always := []string{
		".git/hooks/pre-commit", ".git/config", "sub/.git/hooks/post-checkout", ".GIT/config",
		".co-cli/settings.json", ".envrc", "sub/.envrc", ".vscode/tasks.json", ".github/workflows/ci.yml",
		".Github/Workflows/x.yml",
		// read into later sessions' prompts: instruction files and skills
		"AGENTS.md", "sub/dir/agents.md", ".agents/skills/x/SKILL.md", "sub/.Agents/skills/y/helper.sh",
		// the rest of the shared list (lib/protect): other agents' instructions, JetBrains
		// run configurations, MCP servers other agents start
		"CLAUDE.md", "sub/GEMINI.md", ".idea/workspace.xml", "sub/.idea/runConfigurations/x.xml", ".mcp.json",
		// a workspace holding the home folder: co's own settings (a schedule's approve list)
		// and systemd user timers
		".config/co-cli/settings.json", ".config/systemd/user/co-schedule-x.timer",
	}
	for _, p := range always {
		for _, name := range []string{"write_file", "edit_file"} {
			args := map[string]any{"path": p, "content": "x"}
			if name == "edit_file" {
				args = map[string]any{"path": p, "old": "x", "new": "y"}
			}
			c := tools.Decide(context.Background(), tool(t, w, name), js(t, args))
			if c.Decision != tools.Ask || !c.AlwaysAsk {
				t.Errorf("%s(%s): %+v, want Ask + AlwaysAsk", name, p, c)
			}
		}
	}
	for _, p := range []string{"src/git.go", ".gitignore", ".github/CODEOWNERS", "envrc", "docs/.vscodeish",
		"CLAUDE.md.bak", "AGENTS.md.bak", "docs/agents/x.md", ".agents", "AI.md", "mcp.json"} {
		c := tools.Decide(context.Background(), tool(t, w, "write_file"), js(t, map[string]any{"path": p, "content": "x"}))
		if c.AlwaysAsk {
			t.Errorf("%s must not always ask", p)
		}
	}
}

func TestWriteRefusesSymlinksHardLinksAndFIFOs(t *testing.T) {
	w, dir := ws(t, map[string]string{"real.txt": "r", "sub/x": "x"})
	outside := filepath.Join(filepath.Dir(dir), "victim.txt")
	if err := os.WriteFile(outside, []byte("VICTIM"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("real.txt", filepath.Join(dir, "link.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("sub", filepath.Join(dir, "dirlink")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../nowhere.txt", filepath.Join(dir, "dangling.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(outside, filepath.Join(dir, "hard.txt")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{
		"link.txt": "symlink", "dirlink/x": "symlink", "dangling.txt": "symlink",
		"hard.txt": "2 hard links", "pipe": "FIFO",
	} {
		_, err := call(t, w, "write_file", map[string]any{"path": p, "content": "PWNED"})
		wantRetry(t, err, want)
		c := tools.Decide(context.Background(), tool(t, w, "write_file"), js(t, map[string]any{"path": p, "content": "PWNED"}))
		if c.Decision != tools.Ask || !strings.Contains(c.Reason, "will fail") {
			t.Errorf("check for %s: %+v", p, c)
		}
	}
	if read(t, dir, "real.txt") != "r" {
		t.Error("wrote through a symlink")
	}
	if b, _ := os.ReadFile(outside); string(b) != "VICTIM" {
		t.Error("wrote through a hard link")
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(dir), "nowhere.txt")); err == nil {
		t.Error("wrote through a dangling symlink")
	}
}

func TestEditFile(t *testing.T) {
	src := "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 1\n}\n"
	w, dir := ws(t, map[string]string{"x.go": src, "crlf.txt": "one\r\ntwo\r\nthree\r\n"})
	et := tool(t, w, "edit_file")

	c := tools.Decide(context.Background(), et, js(t, map[string]any{"path": "x.go", "old": "func b() {\n\treturn 1", "new": "func b() {\n\treturn 2"}))
	if c.Decision != tools.Ask || c.Scope != "edit_file:./" || !strings.Contains(c.Preview, "-\treturn 1\n+\treturn 2\n") {
		t.Errorf("check = %+v", c)
	}
	if read(t, dir, "x.go") != src {
		t.Fatal("Check changed the file")
	}
	r := mustRun(t, w, "edit_file", map[string]any{"path": "x.go", "old": "func b() {\n\treturn 1", "new": "func b() {\n\treturn 2"})
	if r.Display != "Edited x.go: 1 replacement at line 5." || r.Meta["replacements"] != 1 {
		t.Errorf("result = %q %v", r.Display, r.Meta)
	}
	if !strings.Contains(read(t, dir, "x.go"), "func b() {\n\treturn 2") {
		t.Error("not edited")
	}

	// Found twice: the lines are given, and replace_all is offered.
	_, err := call(t, w, "edit_file", map[string]any{"path": "x.go", "old": "}\n", "new": "};\n"})
	wantRetry(t, err, "appears 2 times", "lines 3, 7", "replace_all=true")
	r = mustRun(t, w, "edit_file", map[string]any{"path": "x.go", "old": "}\n", "new": "};\n", "replace_all": true})
	if r.Meta["replacements"] != 2 {
		t.Errorf("replace_all: %v", r.Meta)
	}

	// Not found: indentation differs.
	_, err = call(t, w, "edit_file", map[string]any{"path": "x.go", "old": "func a() {\n    return 1\n", "new": "x"})
	wantRetry(t, err, "matches lines 1-2 when indentation", "start_line=1, end_line=2")
	// Not found: only the first line is there.
	_, err = call(t, w, "edit_file", map[string]any{"path": "x.go", "old": "func a() {\n\treturn 42\n", "new": "x"})
	wantRetry(t, err, `first line ("func a() {") is at line 1`)
	// Not found at all.
	_, err = call(t, w, "edit_file", map[string]any{"path": "x.go", "old": "no such text", "new": "x"})
	wantRetry(t, err, "was not found", "read_file")

	_, err = call(t, w, "edit_file", map[string]any{"path": "x.go", "old": "", "new": "x"})
	wantRetry(t, err, "old is empty")
	_, err = call(t, w, "edit_file", map[string]any{"path": "x.go", "old": "a", "new": "a"})
	wantRetry(t, err, "the same")
	_, err = call(t, w, "edit_file", map[string]any{"path": "new.go", "old": "a", "new": "b"})
	wantRetry(t, err, "does not exist", "write_file")

	// CRLF files: old given with \n still matches, and new keeps CRLF.
	r = mustRun(t, w, "edit_file", map[string]any{"path": "crlf.txt", "old": "one\ntwo", "new": "1\n2"})
	if read(t, dir, "crlf.txt") != "1\r\n2\r\nthree\r\n" || !strings.Contains(r.Display, "CRLF") {
		t.Errorf("crlf: %q %q", read(t, dir, "crlf.txt"), r.Display)
	}
}

func TestAnEditApprovedOnAFileThatChangedSinceFailsClearly(t *testing.T) {
	w, dir := ws(t, map[string]string{"a.txt": "alpha\nbeta\n"})
	et := tool(t, w, "edit_file")
	args := js(t, map[string]any{"path": "a.txt", "old": "beta", "new": "BETA"})
	c := tools.Decide(context.Background(), et, args)
	if !strings.Contains(c.Preview, "+BETA") {
		t.Fatalf("preview: %s", c.Preview)
	}
	// While the user looks at the diff, someone else rewrites the file.
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("alpha\ngamma\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := et.Run(context.Background(), args)
	wantRetry(t, err, "old was not found")
	if read(t, dir, "a.txt") != "alpha\ngamma\n" {
		t.Error("the edit landed on text the user did not see")
	}
}

func TestPreviewIsCut(t *testing.T) {
	w, _ := ws(t, nil)
	c := tools.Decide(context.Background(), tool(t, w, "write_file"), js(t, map[string]any{"path": "many.txt", "content": strings.Repeat("line\n", 5000)}))
	if !strings.Contains(c.Preview, "more lines of diff") || len(c.Preview) > maxPreviewChars+100 {
		t.Errorf("preview of %d bytes", len(c.Preview))
	}
}
