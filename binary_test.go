package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// co builds its dependencies as their authors released them: a `replace`
// silently overrides every version bump, vulnerability scanners no longer
// describe the code that ships, and each upstream security fix would have
// to be ported by hand (issue #18). A start-up or memory cost of a library
// is won back in co's own code (lazy initialisation, work after the first
// frame), never by a copy of the library.
func TestDependenciesAreUpstream(t *testing.T) {
	root := moduleRoot(t)
	data, err := os.ReadFile(filepath.Join(root, "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(data), "\n") {
		// A directive is its first word; "replace (" opens a block.
		if f := strings.Fields(line); len(f) > 0 && (f[0] == "replace" || strings.HasPrefix(f[0], "replace(")) {
			t.Errorf("go.mod:%d: %s\nuse the released module, not a replacement", i+1, strings.TrimSpace(line))
		}
	}
	if _, err := os.Stat(filepath.Join(root, "third_party")); err == nil {
		t.Errorf("third_party/ exists; co links no copied modules")
	}
	// go.work could replace modules for a build all the same.
	if _, err := os.Stat(filepath.Join(root, "go.work")); err == nil {
		t.Errorf("go.work exists; co is built as one module")
	}
}

// moduleRoot is the directory of co's go.mod.
func moduleRoot(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		t.Fatal("not in a module")
	}
	return filepath.Dir(gomod)
}
