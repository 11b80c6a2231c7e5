package main

import (
	"os/exec"
	"strings"
	"testing"
)

const mod = "github.com/co-cli/co"

// TestImportsPointDownward keeps ARCHITECTURE.md's import rules true.
func TestImportsPointDownward(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}:{{join .Imports \" \"}}", "./...").CombinedOutput()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, out)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(line, ":")
		imports[pkg] = strings.Fields(deps)
	}
	ours := func(p string) bool { return p == mod || strings.HasPrefix(p, mod+"/") }
	rel := func(p string) string { return strings.TrimPrefix(strings.TrimPrefix(p, mod), "/") }
	under := func(p, dir string) bool { r := rel(p); return r == dir || strings.HasPrefix(r, dir+"/") }

	for pkg, deps := range imports {
		r := rel(pkg)
		if strings.HasPrefix(r, "scripts/") || strings.HasPrefix(r, "e2e") {
			continue
		}
		for _, d := range deps {
			if !ours(d) {
				continue
			}
			dr := rel(d)
			switch {
			case under(pkg, "internal") && !under(d, "internal"):
				t.Errorf("%s imports %s: internal/ holds leaves that import nothing else of ours", r, dr)
			case under(d, "internal"):
				// Leaves (internal/jsonstr): any package may use them.
			case under(d, "tui") && !(pkg == mod || under(pkg, "tui")):
				t.Errorf("%s imports %s: nothing but main and tui itself imports tui", r, dr)
			case under(pkg, "config") && !under(d, "config"):
				t.Errorf("config imports %s: config imports no other package of ours", dr)
			case under(pkg, "sandbox") && !under(d, "sandbox"):
				t.Errorf("sandbox imports %s: sandbox imports no other package of ours", dr)
			case under(pkg, "telemetry") && !under(d, "telemetry") && !under(d, "config"):
				t.Errorf("telemetry imports %s: telemetry may read config types only", dr)
			case under(pkg, "tools") && (under(d, "agent") || under(d, "tui") || under(d, "telemetry")):
				t.Errorf("%s imports %s: tools never import agent, tui or telemetry", r, dr)
			case under(pkg, "agent") && (under(d, "tui") || under(d, "sandbox") || under(d, "telemetry")):
				t.Errorf("%s imports %s: the agent knows no front end, sandbox or exporter", r, dr)
			}
		}
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
