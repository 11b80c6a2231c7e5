package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

const mod = "github.com/co-cli/co"

// TestImportsPointDownward keeps docs/ARCHITECTURE.md's import rules true,
// for production files and test files alike. A package's own test files
// (package x) compile into it and follow its rules; external tests
// (package x_test) may in addition drive it with the agent (and its
// conversation model, message, and provider layer, agent/provider), the
// scripted
// LLM server (agent/llmtest) and the tools interface.
func TestImportsPointDownward(t *testing.T) {
	out, err := exec.Command("go", "list", "-f",
		`{{.ImportPath}}|{{join .Imports " "}}|{{join .TestImports " "}}|{{join .XTestImports " "}}`, "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	ours := func(p string) bool { return p == mod || strings.HasPrefix(p, mod+"/") }
	rel := func(p string) string { return strings.TrimPrefix(strings.TrimPrefix(p, mod), "/") }
	under := func(r, dir string) bool { return r == dir || strings.HasPrefix(r, dir+"/") }
	// leaf: the ground floor, lib/: any package may use them, they use
	// nothing of ours. internal/ is the roof only (the command line and
	// the container).
	leaf := func(r string) bool { return under(r, "lib") }
	drivers := map[string]bool{"agent": true, "agent/llmtest": true, "agent/provider": true, "message": true, "tools": true}

	// rule says why pkg may not import d, or "" when it may; test is true
	// for the imports of test files.
	rule := func(pkg, d string, test bool) string {
		switch {
		case pkg == d:
			return ""
		case leaf(d):
			return "" // leaves (lib/jsonstr, lib/retryafter, …): any package may use them
		case leaf(pkg):
			return "lib/ is the ground floor: its packages import nothing of ours"
		case under(pkg, "e2e") || under(pkg, "scripts"):
			if under(d, "internal") || under(d, "ui") {
				return "e2e tests and scripts drive the built binary, not the command line, the container or the front ends"
			}
			return ""
		case pkg == "":
			// The root's tests check the repository as a whole (the
			// README's settings, the linked binary, these rules).
			if d != "internal/cli" && !test {
				return "main only calls internal/cli"
			}
		case under(d, "internal/cli"):
			return "nothing but main imports internal/cli"
		case under(d, "internal/app") && !under(pkg, "internal/cli"):
			return "nothing but internal/cli imports internal/app, the container"
		case under(pkg, "internal/app") && under(d, "ui"):
			return "the container knows no front end: internal/cli hands the front ends what they need"
		case under(d, "ui") && !(under(pkg, "internal/cli") || under(pkg, "ui")):
			return "nothing but internal/cli and ui itself imports the front ends"
		case under(pkg, "config") && !under(d, "config") && d != "schedule" && d != "hooks":
			return "config imports no other package of ours but leaves, schedule and hooks (a schedule's SPEC and the hooks are checked at load)"
		case under(pkg, "schedule"):
			return "schedule imports nothing of ours but leaves"
		case under(pkg, "hooks"):
			return "hooks imports nothing of ours but leaves"
		case under(pkg, "extensions") && !under(d, "extensions"):
			return "extensions imports no other package of ours but leaves"
		case pkg == "message" && d != "tools":
			return "message is the conversation's plain data: it imports nothing of ours but tools' types and leaves"
		case under(pkg, "agent/provider") && !under(d, "agent/provider") && d != "message":
			return "the provider layer stands below the turn loop: it imports message and leaves, never agent"
		case under(pkg, "sessions") && under(d, "agent"):
			return "the session store stands on message, not on the turn loop"
		case pkg == "memory":
			return "memory imports nothing of ours but leaves"
		case under(pkg, "checkpoint") && !test:
			return "checkpoint imports nothing of ours but leaves (its tests may drive the sandbox)"
		case under(pkg, "sandbox") && !under(d, "sandbox"):
			return "sandbox imports no other package of ours but leaves (lib/protect, lib/redact)"
		case under(pkg, "telemetry") && !under(d, "telemetry") && !under(d, "config"):
			return "telemetry may read config types only"
		case under(pkg, "tools") && (under(d, "agent") || under(d, "ui") || under(d, "telemetry")):
			return "tools never import agent, ui or telemetry"
		case under(pkg, "agent") && (under(d, "ui") || under(d, "sandbox") || under(d, "telemetry")):
			return "the agent knows no front end, sandbox or exporter"
		}
		return ""
	}

	checked := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		if len(f) != 4 {
			t.Fatalf("go list line %q", line)
		}
		pkg := rel(f[0])
		if under(pkg, "internal") && !under(pkg, "internal/cli") && !under(pkg, "internal/app") {
			t.Errorf("%s is in internal/, which holds only the roof (internal/cli, internal/app): a package that imports nothing of ours goes in lib/", pkg)
		}
		for i, kind := range []string{"", " (in its test files)", " (in its external tests)"} {
			for _, d := range strings.Fields(f[1+i]) {
				if !ours(d) {
					continue
				}
				checked++
				dr := rel(d)
				if i == 2 && (drivers[dr] || dr == pkg) {
					continue
				}
				if leaf(pkg) && leaf(dr) && dr != pkg {
					t.Errorf("%s imports %s%s: lib/ packages import nothing of ours, not even each other", pkg, dr, kind)
					continue
				}
				if why := rule(pkg, dr, i > 0); why != "" {
					name := pkg
					if name == "" {
						name = "main"
					}
					t.Errorf("%s imports %s%s: %s", name, dr, kind, why)
				}
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d imports checked; go list's output changed?", checked)
	}
	// The agent never links a UI library: events carry plain data.
	deps, err := exec.Command("go", "list", "-deps", "./agent").CombinedOutput()
	if err != nil {
		t.Fatalf("go list -deps: %v\n%s", err, deps)
	}
	for _, d := range strings.Fields(string(deps)) {
		if strings.HasPrefix(d, "charm.land/") || strings.Contains(d, "lipgloss") || strings.Contains(d, "bubbletea") {
			t.Errorf("agent depends on %s", d)
		}
	}
}

// docs/ARCHITECTURE.md names every package, one line each on what it owns.
func TestArchitectureNamesEveryPackage(t *testing.T) {
	doc, err := os.ReadFile("docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("go", "list", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	for _, p := range strings.Fields(string(out)) {
		r := strings.TrimPrefix(strings.TrimPrefix(p, mod), "/")
		name := r + "/"
		if r == "" {
			name = "main.go"
		}
		if !strings.Contains(string(doc), "\n"+name+" ") && !strings.Contains(string(doc), "\n"+r+" ") {
			t.Errorf("docs/ARCHITECTURE.md does not list %s at the start of a line", name)
		}
	}
}

// The environment variables co reads (os.Getenv, os.LookupEnv with a
// literal or a constant name) are each read in one file, and the table in
// docs/ARCHITECTURE.md ("Where settings enter") names the variable with
// that file. NO_COLOR was read in three places (issue 28).
func TestEnvironmentIsReadInOnePlace(t *testing.T) {
	doc, err := os.ReadFile("docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	reads := map[string]map[string]bool{} // variable → files
	consts := map[string]string{}         // package dir + "." + name → value
	type call struct {
		dir, file string
		arg       ast.Expr
	}
	var calls []call
	fset := token.NewFileSet()
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// Tests, test drivers and benchmarks read the environment of a test run.
			if n := d.Name(); path != "." && (strings.HasPrefix(n, ".") || n == "e2e" || n == "scripts" || n == "testdata" ||
				strings.HasSuffix(n, "test") || strings.HasSuffix(n, "fake") || n == "sandbox-image") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		dir := filepath.Dir(path)
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.ValueSpec:
				for i, name := range n.Names {
					if i < len(n.Values) {
						if lit, ok := n.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							consts[dir+"."+name.Name], _ = strconv.Unquote(lit.Value)
						}
					}
				}
			case *ast.CallExpr:
				sel, ok := n.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				if x, isIdent := sel.X.(*ast.Ident); !isIdent || x.Name != "os" || (sel.Sel.Name != "Getenv" && sel.Sel.Name != "LookupEnv") || len(n.Args) != 1 {
					return true
				}
				calls = append(calls, call{dir, path, n.Args[0]})
			}
			return true
		})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		var name string
		switch a := c.arg.(type) {
		case *ast.BasicLit:
			name, _ = strconv.Unquote(a.Value)
		case *ast.Ident:
			name = consts[c.dir+"."+a.Name]
		case *ast.SelectorExpr: // pkg.Const: look the constant up by its name anywhere
			for k, v := range consts {
				if strings.HasSuffix(k, "."+a.Sel.Name) {
					name = v
				}
			}
		}
		if name == "" {
			continue // a variable given by the caller (getenv(k)): its readers are listed by their own calls
		}
		if reads[name] == nil {
			reads[name] = map[string]bool{}
		}
		reads[name][filepath.ToSlash(c.file)] = true
	}
	if len(reads) < 8 {
		t.Fatalf("found only %d environment variables read; the scan is broken: %v", len(reads), reads)
	}
	table := ""
	if i := strings.Index(string(doc), "## Where settings enter"); i >= 0 {
		table = string(doc)[i:]
		if j := strings.Index(table[1:], "\n## "); j >= 0 {
			table = table[:j+1]
		}
	}
	for name, files := range reads {
		if len(files) > 1 {
			t.Errorf("%s is read in %d files (%v): read it in one and hand the value on", name, len(files), files)
			continue
		}
		for f := range files {
			found := false
			for _, line := range strings.Split(table, "\n") {
				if strings.Contains(line, "`"+name+"`") && strings.Contains(line, "`"+f) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s is read in %s; docs/ARCHITECTURE.md's \"Where settings enter\" has no line naming both", name, f)
			}
		}
	}
}

// The import diagram in docs/ARCHITECTURE.md ("Imports point downward")
// is checked against go list: every arrow is an import, and the packages
// after the last arrow of a line are every package of ours that side
// imports (leaves aside). It said internal/app imports neither extensions
// nor memory, which it did (issue 28).
func TestImportDiagramIsTrue(t *testing.T) {
	doc, err := os.ReadFile("docs/ARCHITECTURE.md")
	if err != nil {
		t.Fatal(err)
	}
	s := string(doc)
	i := strings.Index(s, "## Imports point downward")
	if i < 0 {
		t.Fatal("docs/ARCHITECTURE.md has no section \"Imports point downward\"")
	}
	s = s[i:]
	start := strings.Index(s, "```\n")
	end := strings.Index(s[start+4:], "```")
	if start < 0 || end < 0 {
		t.Fatal("no diagram in \"Imports point downward\"")
	}
	lines := strings.Split(strings.TrimRight(s[start+4:start+4+end], "\n"), "\n")

	out, err := exec.Command("go", "list", "-f", `{{.ImportPath}} {{join .Imports " "}}`, "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	imports := map[string][]string{} // package (relative; "main" for the root) → its imports of ours
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Fields(l)
		p := strings.TrimPrefix(strings.TrimPrefix(f[0], mod), "/")
		if p == "" {
			p = "main"
		}
		imports[p] = nil
		for _, d := range f[1:] {
			if d == mod || strings.HasPrefix(d, mod+"/") {
				imports[p] = append(imports[p], strings.TrimPrefix(d, mod+"/"))
			}
		}
	}
	// match: a diagram name (internal/app, ui/*, tools/*) covers these packages.
	match := func(name, p string) bool {
		if base, ok := strings.CutSuffix(name, "/*"); ok {
			return p == base || strings.HasPrefix(p, base+"/")
		}
		return p == name
	}
	importsOf := func(name string) map[string]bool {
		got := map[string]bool{}
		for p, ds := range imports {
			if match(name, p) {
				for _, d := range ds {
					if !match(name, d) && !strings.HasPrefix(d, "lib/") {
						got[d] = true
					}
				}
			}
		}
		return got
	}
	names := func(seg string) []string {
		var out []string
		for _, n := range strings.Split(seg, ",") {
			if f := strings.Fields(n); len(f) > 0 { // "telemetry (reader side: …)" → telemetry
				out = append(out, f[0])
			}
		}
		return out
	}
	edges := 0
	for li, line := range lines {
		segs := strings.Split(line, "─▶")
		if len(segs) < 2 {
			continue
		}
		var from string
		if f := strings.Fields(segs[0]); len(f) > 0 && !strings.ContainsAny(f[0], "└│─") {
			from = f[0]
		} else {
			// └───▶ starts under a name of the first line: that is the importer.
			col := len([]rune(line[:strings.IndexAny(line, "└")]))
			first := []rune(lines[0])
			for j := col; j >= 0 && j < len(first); j-- {
				if first[j] == ' ' {
					from = strings.Fields(string(first[j+1:]))[0]
					break
				}
			}
		}
		for k, seg := range segs[1:] {
			to := names(seg)
			got := importsOf(from)
			for _, n := range to {
				ok := false
				for d := range got {
					if match(n, d) {
						ok = true
					}
				}
				if !ok {
					t.Errorf("diagram line %d: %s ─▶ %s, but %s imports no %s", li+1, from, n, from, n)
				}
				edges++
			}
			if k == len(segs)-2 { // the last list: all that side imports
				for d := range got {
					named := false
					for _, n := range to {
						named = named || match(n, d)
					}
					if !named {
						t.Errorf("diagram line %d: %s imports %s, which the diagram does not name after %s ─▶", li+1, from, d, from)
					}
				}
			}
			from = to[0]
		}
	}
	if edges < 10 {
		t.Fatalf("only %d arrows read from the diagram; its shape changed?", edges)
	}
}
