package main

import (
	"os"
	"os/exec"
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
	// leaf: internal/ packages other than the command line and the container.
	leaf := func(r string) bool {
		return under(r, "internal") && !under(r, "internal/cli") && !under(r, "internal/app")
	}
	drivers := map[string]bool{"agent": true, "agent/llmtest": true, "agent/provider": true, "message": true, "tools": true}

	// rule says why pkg may not import d, or "" when it may; test is true
	// for the imports of test files.
	rule := func(pkg, d string, test bool) string {
		switch {
		case pkg == d:
			return ""
		case leaf(d):
			return "" // leaves (internal/jsonstr, internal/retryafter): any package may use them
		case leaf(pkg):
			return "internal/ leaves import nothing else of ours"
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
		case under(pkg, "config") && !under(d, "config"):
			return "config imports no other package of ours"
		case under(pkg, "extensions") && !under(d, "extensions"):
			return "extensions imports no other package of ours"
		case pkg == "message" && d != "tools":
			return "message is the conversation's plain data: it imports nothing of ours but tools' types and leaves"
		case under(pkg, "agent/provider") && !under(d, "agent/provider") && d != "message":
			return "the provider layer stands below the turn loop: it imports message and leaves, never agent"
		case under(pkg, "sessions") && under(d, "agent"):
			return "the session store stands on message, not on the turn loop"
		case pkg == "memory":
			return "memory imports nothing of ours but leaves"
		case under(pkg, "sandbox") && !under(d, "sandbox"):
			return "sandbox imports no other package of ours"
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
