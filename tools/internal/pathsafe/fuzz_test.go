package pathsafe

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// FuzzNoEscape: whatever the path, a read never returns a byte from outside
// the root, a write never creates or changes a file outside it, and Resolve
// never returns a path that leaves it.
func FuzzNoEscape(f *testing.F) {
	for _, s := range []string{
		"a.txt", "../outside/secret.txt", "/etc/passwd", "out-abs", "out-rel", "out-chain1",
		"out-dir/secret.txt", "dangling-out", "dangling-abs", "sub/../../outside/secret.txt",
		"dir-link/../../outside/secret.txt", "sub/up-link", "loop1", "chain1", "in-link/..",
		"sub/deep/../../../outside/secret.txt", "out-dir/../ws/a.txt", "./././a.txt",
		"sub//deep///b.txt", "a.txt\x00", `..\outside\secret.txt`, "C:/x", "~/x", "out-dir",
		"out-dir/new.txt", "dangling-in", "x/../../outside/new.txt",
	} {
		f.Add(s)
	}
	r, dir, outside := tree(f)
	before := snapshot(f, outside)
	f.Fuzz(func(t *testing.T, p string) {
		rel, err := r.Clean(p)
		if err != nil {
			return
		}
		if real, _, err := r.Resolve(rel); err == nil && (real == ".." || strings.HasPrefix(real, "../") || strings.HasPrefix(real, "/")) {
			t.Fatalf("Resolve(%q) = %q", rel, real)
		}
		if b, _, err := r.ReadFile(rel, 1<<16); err == nil && strings.Contains(string(b), "SECRET") {
			t.Fatalf("ReadFile(%q) read the outside secret", p)
		}
		if f, _, err := r.OpenFile(rel, 1<<16); err == nil {
			if real, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd()))); err == nil && !strings.HasPrefix(real, dir+"/") {
				t.Errorf("OpenFile(%q) opened %s", p, real)
			}
			f.Close()
		}
		_, _ = r.WriteFile(rel, []byte("W"), true)
		if after := snapshot(t, outside); after != before {
			t.Fatalf("WriteFile(%q) changed the outside:\n%s\nwas\n%s", p, after, before)
		}
	})
}

func snapshot(t testing.TB, dir string) string {
	var b strings.Builder
	err := filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			// Part of the state compared: an entry that cannot be read
			// before or after an operation shows as a difference.
			b.WriteString(p + " unreadable: " + err.Error() + "\n")
			return nil
		}
		c := ""
		if fi.Mode().IsRegular() {
			x, _ := os.ReadFile(p)
			c = string(x)
		}
		b.WriteString(p + "=" + c + "\n")
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return b.String()
}
