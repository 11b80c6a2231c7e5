package main

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/co-cli/co/config"
)

// The configuration reference (docs/configuration.md) documents every
// setting, and the README the test command CI runs.
func TestREADMEListsEverySetting(t *testing.T) {
	b, err := os.ReadFile("docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	reference := string(b)
	for _, f := range config.Fields() {
		row := "| `" + f.Key + "` | `" + f.Env + "` |"
		if f.Env == "" { // read from the user file only (schedules)
			row = "| `" + f.Key + "` | — |"
		}
		if !strings.Contains(reference, row) {
			t.Errorf("docs/configuration.md's settings table lacks %s (%s)", f.Key, f.Env)
		}
	}
	b, err = os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ci), "exec scripts/test.sh") || !strings.Contains(readme, "\nscripts/test.sh ") {
		t.Error(".ci/run must run the README's test command, scripts/test.sh")
	}
}

// The configuration reference's two tables of what a project file may
// set, and what not, list exactly the settings config classifies so: a
// setting put on the allow list, or added as user-only, is documented with
// its reason.
func TestREADMEListsWhatAProjectFileMaySet(t *testing.T) {
	b, err := os.ReadFile("docs/configuration.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	var allowed, userOnly []string
	for _, f := range config.Fields() {
		if f.UserOnly {
			userOnly = append(userOnly, f.Key)
		} else {
			allowed = append(allowed, f.Key)
		}
	}
	for _, tc := range []struct {
		header string
		want   []string
	}{
		{"| a project file may set | why that is harmless |", allowed},
		{"| user-only | why a project file may not set it |", userOnly},
	} {
		got := readmeTableKeys(t, readme, tc.header)
		slices.Sort(got)
		want := slices.Sorted(slices.Values(tc.want))
		if !slices.Equal(got, want) {
			t.Errorf("docs/configuration.md's table %q lists\n%v\nwant\n%v", tc.header, got, want)
		}
	}
}

var backticked = regexp.MustCompile("`([a-z0-9_]+)`")

// readmeTableKeys returns the settings named in the first column of the
// table under header.
func readmeTableKeys(t *testing.T, readme, header string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(readme, "\n"+header+"\n")
	if !ok {
		t.Fatalf("docs/configuration.md has no table %q", header)
	}
	var keys []string
	for _, line := range strings.Split(rest, "\n")[1:] { // after |---|
		if !strings.HasPrefix(line, "|") {
			break
		}
		first := strings.SplitN(line, "|", 3)[1]
		for _, m := range backticked.FindAllStringSubmatch(first, -1) {
			keys = append(keys, m[1])
		}
	}
	return keys
}

// The README is a user's map, not the reference: at most 700 lines, and
// its first screen says how to build and start co and how to run the
// tests, and where the sandbox puts the workspace (issue 40: the first
// screen was the test suite, and /workspace came at line 1,260).
func TestREADMEIsAMap(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(b), "\n")
	if len(lines) > 701 { // a final newline leaves an empty last element
		t.Errorf("README.md has %d lines; at most 700: move the details to a page of docs/", len(lines)-1)
	}
	first := strings.Join(lines[:min(60, len(lines))], "\n")
	for _, want := range []string{"## Quick start", "\ngo build -o co .", "\n./co ", "\nscripts/test.sh ", "/workspace"} {
		if !strings.Contains(first, want) {
			t.Errorf("README.md's first 60 lines lack %q", want)
		}
	}
}
