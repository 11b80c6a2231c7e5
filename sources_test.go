package main

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// Every pointer from the code to docs/SOURCES.md names one of its sections,
// so a renamed heading cannot leave a comment pointing nowhere.
func TestSourcesPointersResolve(t *testing.T) {
	b, err := os.ReadFile("docs/SOURCES.md")
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	for _, l := range strings.Split(string(b), "\n") {
		if h, ok := strings.CutPrefix(l, "## "); ok {
			anchors[githubAnchor(h)] = true
		}
	}
	out, err := exec.Command("git", "grep", "--untracked", "-n", "-o", "-E", `docs/SOURCES\.md#[a-z0-9-]+`, "--", "*.go", ":!sources_test.go").Output()
	if err != nil {
		t.Fatalf("git grep: %v", err)
	}
	seen := 0
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		_, ref, _ := strings.Cut(l, "docs/SOURCES.md#")
		seen++
		if !anchors[ref] {
			t.Errorf("%s: docs/SOURCES.md has no section #%s (sections: %v)", l, ref, anchors)
		}
	}
	if seen == 0 {
		t.Fatal("no pointer to docs/SOURCES.md found in the code")
	}
}

// githubAnchor is the id GitHub gives a heading: lower case, spaces to
// hyphens, punctuation other than hyphens and underscores dropped.
func githubAnchor(h string) string {
	h = strings.ReplaceAll(strings.ToLower(strings.TrimSpace(h)), " ", "-")
	return regexp.MustCompile(`[^a-z0-9_-]`).ReplaceAllString(h, "")
}
