package main

import (
	"os"
	"strings"
	"testing"

	"github.com/co-cli/co/config"
)

// The README documents every setting and the test command CI runs.
func TestREADMEListsEverySetting(t *testing.T) {
	b, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	for _, f := range config.Fields() {
		if !strings.Contains(readme, "| `"+f.Key+"` | `"+f.Env+"` |") {
			t.Errorf("README's settings table lacks %s (%s)", f.Key, f.Env)
		}
	}
	ci, err := os.ReadFile(".ci/run")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(ci), "exec scripts/test.sh") || !strings.Contains(readme, "\nscripts/test.sh ") {
		t.Error(".ci/run must run the README's test command, scripts/test.sh")
	}
}
