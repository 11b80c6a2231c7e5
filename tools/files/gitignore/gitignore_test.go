package gitignore

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

func TestPatterns(t *testing.T) {
	cases := []struct {
		name    string
		ignore  string
		path    string
		dir     bool
		ignored bool
	}{
		{"name at any depth", "*.log", "a/b/x.log", false, true},
		{"name at root", "*.log", "x.log", false, true},
		{"no match", "*.log", "x.txt", false, false},
		{"anchored", "/build", "build", true, true},
		{"anchored not deeper", "/build", "src/build", true, false},
		{"middle slash anchors", "doc/*.txt", "doc/a.txt", false, true},
		{"middle slash anchors, not deeper", "doc/*.txt", "x/doc/a.txt", false, false},
		{"star does not cross /", "doc/*.txt", "doc/sub/a.txt", false, false},
		{"dir only matches dir", "tmp/", "tmp", true, true},
		{"dir only not file", "tmp/", "tmp", false, false},
		{"dir only at depth", "tmp/", "a/tmp", true, true},
		{"leading **", "**/foo", "a/b/foo", false, true},
		{"leading ** at root", "**/foo", "foo", false, true},
		{"trailing **", "abc/**", "abc/x/y", false, true},
		{"trailing ** not the dir", "abc/**", "abc", true, false},
		{"middle **", "a/**/b", "a/b", false, true},
		{"middle ** deep", "a/**/b", "a/x/y/b", false, true},
		{"negation", "*.log\n!keep.log", "keep.log", false, false},
		{"negation order", "!keep.log\n*.log", "keep.log", false, true},
		{"question mark", "?.c", "a.c", false, true},
		{"question mark one char", "?.c", "ab.c", false, false},
		{"class", "[ab].c", "b.c", false, true},
		{"negated class", "[!ab].c", "c.c", false, true},
		{"negated class miss", "[!ab].c", "a.c", false, false},
		{"range", "x[0-9]", "x5", false, true},
		{"comment", "#x", "#x", false, false},
		{"escaped hash", `\#x`, "#x", false, true},
		{"escaped bang", `\!x`, "!x", false, true},
		{"trailing spaces trimmed", "x.txt   ", "x.txt", false, true},
		{"escaped trailing space", `x\ `, "x ", false, true},
		{"CRLF", "x.txt\r\n", "x.txt", false, true},
		{"dots are literal", "a.b", "axb", false, false},
		{"regexp chars are literal", "a+(b)", "a+(b)", false, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m Matcher
			m.Add(Parse("", []byte(c.ignore))...)
			if got := m.Ignored(c.path, c.dir); got != c.ignored {
				t.Fatalf("%q vs %q (dir %v) = %v, want %v", c.ignore, c.path, c.dir, got, c.ignored)
			}
		})
	}
}

func TestNestedGitignoreAppliesBelowItsDirectory(t *testing.T) {
	var m Matcher
	m.Add(Parse("", []byte("*.tmp\n"))...)
	m.Add(Parse("sub", []byte("/local\n!keep.tmp\n"))...)
	for p, want := range map[string]bool{
		"x.tmp": true, "sub/x.tmp": true, "sub/keep.tmp": false, "keep.tmp": true,
		"sub/local": true, "local": false, "sub/deeper/local": false,
	} {
		if got := m.Ignored(p, false); got != want {
			t.Errorf("%s: %v, want %v", p, got, want)
		}
	}
	m.Add(Parse("", []byte("vendor/\n"))...)
	if !m.Excluded("vendor/a/b.go", false) || m.Ignored("vendor/a/b.go", false) {
		t.Error("Excluded must look at the parent directories")
	}
}

func TestGlob(t *testing.T) {
	for _, c := range []struct {
		glob, path string
		want       bool
	}{
		{"*.go", "a/b/c.go", true},
		{"*.go", "c.go", true},
		{"*.go", "c.gox", false},
		{"src/**/*.ts", "src/a/b/x.ts", true},
		{"src/**/*.ts", "src/x.ts", true},
		{"src/**/*.ts", "lib/src/x.ts", false},
		{"./cmd/*", "cmd/main.go", true},
		{"", "anything", true},
	} {
		g, err := CompileGlob(c.glob)
		if err != nil {
			t.Fatal(err)
		}
		if got := g.Match(c.path); got != c.want {
			t.Errorf("glob %q on %q = %v, want %v", c.glob, c.path, got, c.want)
		}
	}
}

// TestAgreesWithGit compares the matcher with git check-ignore on a tree
// with nested .gitignore files.
func TestAgreesWithGit(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	dir := t.TempDir()
	files := map[string]string{
		".gitignore":          "*.log\n!important.log\n/build/\ndocs/*.html\n**/cache\ntmp?\n[Dd]ist/\nsecret[0-9].txt\na/**/z\n",
		"sub/.gitignore":      "local.txt\n!*.log\n/only-here\n",
		"sub/deep/.gitignore": "*.txt\n!keep.txt\n",
	}
	paths := []string{
		"x.log", "important.log", "build/out.bin", "src/build/ok.go", "docs/a.html", "docs/sub/b.html",
		"x/cache/y", "cache", "tmp1", "tmp12", "Dist/x", "dist/y", "secret5.txt", "secretX.txt",
		"a/z", "a/b/c/z", "sub/local.txt", "sub/x.log", "sub/only-here", "sub/deep/only-here",
		"sub/deep/a.txt", "sub/deep/keep.txt", "sub/deep/x.log", "main.go", "sub/deep/more/f.txt",
	}
	for name, content := range files {
		writeFile(t, filepath.Join(dir, name), content)
	}
	for _, p := range paths {
		writeFile(t, filepath.Join(dir, p), "x")
	}
	git := func(args ...string) string {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null")
		out, _ := cmd.Output()
		return string(out)
	}
	git("init", "-q")
	gitSays := map[string]bool{}
	for _, line := range strings.Split(git(append([]string{"check-ignore", "--"}, paths...)...), "\n") {
		if line != "" {
			gitSays[line] = true
		}
	}

	var m Matcher
	for _, d := range []string{"", "sub", "sub/deep"} {
		b, _ := os.ReadFile(filepath.Join(dir, d, ".gitignore"))
		m.Add(Parse(d, b)...)
	}
	var diff []string
	for _, p := range paths {
		if got := m.Excluded(p, false); got != gitSays[p] {
			diff = append(diff, p)
		}
	}
	sort.Strings(diff)
	if len(diff) > 0 {
		t.Fatalf("differs from git check-ignore on %v (git ignores %v)", diff, gitSays)
	}
}

func writeFile(t *testing.T, p, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
