package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every command of the cobra tree is named in docs/ARCHITECTURE.md's line
// for internal/cli and has a `co NAME` in the README (co memory, co
// completion and co chat were missing from the former: issue 28); each of
// its subcommands has a `co NAME SUB` in the README.
func TestEveryCommandIsDocumented(t *testing.T) {
	read := func(p string) string {
		b, err := os.ReadFile(filepath.Join("..", "..", p))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	arch, readme := read("docs/ARCHITECTURE.md"), read("README.md")
	i := strings.Index(arch, "\ninternal/cli/ ")
	if i < 0 {
		t.Fatal("docs/ARCHITECTURE.md has no line for internal/cli/")
	}
	// The entry runs to the next line that starts a package's name.
	entry := arch[i+1:]
	if j := strings.Index(entry, "\ninternal/app/ "); j >= 0 {
		entry = entry[:j]
	}
	entry = strings.Join(strings.Fields(entry), " ")
	root := newRootCmd(env{})
	n := 0
	for _, c := range root.Commands() {
		if c.Hidden {
			continue
		}
		n++
		name := c.Name()
		if !strings.Contains(entry, " "+name+",") && !strings.Contains(entry, " "+name+" ") && !strings.Contains(entry, " "+name+")") {
			t.Errorf("docs/ARCHITECTURE.md's internal/cli line does not name the command %q", name)
		}
		if !strings.Contains(readme, "`co "+name) {
			t.Errorf("README.md has no `co %s", name)
		}
		for _, sub := range c.Commands() {
			if !sub.Hidden && !strings.Contains(readme, "co "+name+" "+sub.Name()) {
				t.Errorf("README.md has no co %s %s", name, sub.Name())
			}
		}
	}
	if n < 10 {
		t.Fatalf("only %d commands in the tree", n)
	}
}
