package testneeds

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// docs/development.md lists every variable that skips tests, with what it
// skips.
func TestREADMEListsEveryNeed(t *testing.T) {
	dir, _ := os.Getwd()
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			break
		}
		up := filepath.Dir(dir)
		if up == dir {
			t.Fatal("no go.mod above the test")
		}
		dir = up
	}
	b, err := os.ReadFile(filepath.Join(dir, "docs", "development.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range All {
		found := false
		for _, l := range strings.Split(string(b), "\n") {
			found = found || strings.HasPrefix(l, "| `"+n.Var+"=1`")
		}
		if !found {
			t.Errorf("docs/development.md has no table row starting | `%s=1`", n.Var)
		}
	}
}
