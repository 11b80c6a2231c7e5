package pathsafe

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// tree makes a root with an "outside" sibling holding a secret, and the
// symlinks of every shape the tests need.
func tree(t testing.TB) (root *Root, dir, outside string) {
	t.Helper()
	base := t.TempDir()
	dir = filepath.Join(base, "ws")
	outside = filepath.Join(base, "outside")
	for _, d := range []string{dir, outside, filepath.Join(dir, "sub", "deep")} {
		must(t, os.MkdirAll(d, 0o755))
	}
	write := func(p, s string) { must(t, os.WriteFile(p, []byte(s), 0o644)) }
	write(filepath.Join(outside, "secret.txt"), "SECRET")
	write(filepath.Join(dir, "a.txt"), "hello\n")
	write(filepath.Join(dir, "sub", "deep", "b.txt"), "bee\n")
	links := map[string]string{
		"in-link":        "a.txt",          // inside
		"sub/up-link":    "../a.txt",       // inside, through ..
		"chain1":         "chain2",         // chain inside
		"chain2":         "sub/deep/b.txt", //
		"out-abs":        filepath.Join(outside, "secret.txt"),
		"out-rel":        "../outside/secret.txt",
		"out-chain1":     "out-chain2",                  // chain that ends outside
		"out-chain2":     "sub/out-chain3",              //
		"sub/out-chain3": "../../outside/secret.txt",    //
		"out-dir":        "../outside",                  // a directory outside
		"dangling-in":    "nothing-here.txt",            // dangling, inside
		"dangling-out":   "../outside/nothing-here.txt", // dangling, outside
		"dangling-abs":   filepath.Join(outside, "new.txt"),
		"loop1":          "loop2",
		"loop2":          "loop1",
		"dir-link":       "sub/deep",
	}
	for name, target := range links {
		must(t, os.Symlink(target, filepath.Join(dir, name)))
	}
	r, err := Open(dir, "workspace")
	must(t, err)
	t.Cleanup(func() { r.Close() })
	return r, dir, outside
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestCleanRefusesPathsAsText(t *testing.T) {
	r, dir, _ := tree(t)
	cases := []struct {
		name, in, want string
	}{
		{"absolute", "/etc/passwd", "is absolute"},
		{"absolute inside the root", dir + "/a.txt", `use "a.txt"`},
		{"dotdot", "../x", "leads outside the workspace"},
		{"dotdot after a dir", "sub/../../x", "leads outside"},
		{"only dotdot", "..", "leads outside"},
		{"NUL", "a.txt\x00.png", "NUL byte"},
		{"backslash", `sub\deep\b.txt`, "backslash"},
		{"backslash escape", `..\..\x`, "backslash"},
		{"drive letter", "C:/Windows", "drive letter"},
		{"drive letter lower", "c:x", "drive letter"},
		{"tilde", "~/.ssh/id_rsa", "~"},
		{"control character", "a\nb", "control character"},
		{"too long", strings.Repeat("a/", 3000), "limit is 4096"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := r.Clean(c.in)
			if err == nil || !strings.Contains(err.Error(), c.want) || !IsKind(err, Invalid) {
				t.Fatalf("Clean(%q) = %v, want an Invalid error containing %q", c.in, err, c.want)
			}
		})
	}
	for in, want := range map[string]string{"": ".", ".": ".", "./a.txt": "a.txt", "sub/../a.txt": "a.txt", "sub/deep/": "sub/deep", "a..b": "a..b", "..a": "..a"} {
		if got, err := r.Clean(in); err != nil || got != want {
			t.Errorf("Clean(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

func TestReadFollowsOnlyLinksThatStayInside(t *testing.T) {
	r, _, _ := tree(t)
	cases := []struct {
		name, path string
		want       string // content, or the error's text
		kind       Kind
		ok         bool
	}{
		{"plain", "a.txt", "hello\n", 0, true},
		{"symlink inside", "in-link", "hello\n", 0, true},
		{"symlink through ..", "sub/up-link", "hello\n", 0, true},
		{"chain inside", "chain1", "bee\n", 0, true},
		{"through a dir link", "dir-link/b.txt", "bee\n", 0, true},
		{"absolute symlink out", "out-abs", "absolute path", Escapes, false},
		{"relative symlink out", "out-rel", "leads outside", Escapes, false},
		{"chain that ends outside", "out-chain1", "leads outside", Escapes, false},
		{"directory link out", "out-dir/secret.txt", "leads outside", Escapes, false},
		{"dangling inside", "dangling-in", "does not exist", NotFound, false},
		{"dangling outside", "dangling-out", "leads outside", Escapes, false},
		{"dangling absolute", "dangling-abs", "absolute path", Escapes, false},
		{"loop", "loop1", "more than 8 symlinks", Escapes, false},
		{"missing", "nope.txt", "does not exist", NotFound, false},
		{"directory", "sub", "a directory", NotRegular, false},
		{"file as a directory", "a.txt/x", "not a directory", NotRegular, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, _, err := r.ReadFile(c.path, 1<<20)
			if c.ok {
				if err != nil || string(b) != c.want {
					t.Fatalf("ReadFile(%q) = %q, %v; want %q", c.path, b, err, c.want)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), c.want) || !IsKind(err, c.kind) {
				t.Fatalf("ReadFile(%q) = %q, %v; want a kind-%d error containing %q", c.path, b, err, c.kind, c.want)
			}
		})
	}
}

func TestReadCapsTheSize(t *testing.T) {
	r, dir, _ := tree(t)
	must(t, os.WriteFile(filepath.Join(dir, "big"), make([]byte, 2000), 0o644))
	if _, _, err := r.ReadFile("big", 1000); !IsKind(err, TooLarge) {
		t.Fatalf("err = %v, want TooLarge", err)
	}
	if b, _, err := r.ReadFile("big", 2000); err != nil || len(b) != 2000 {
		t.Fatalf("at the cap: %d bytes, %v", len(b), err)
	}
}

func TestFIFOsAreNeitherReadNorWrittenAndNothingHangs(t *testing.T) {
	r, dir, _ := tree(t)
	must(t, syscall.Mkfifo(filepath.Join(dir, "pipe"), 0o644))
	done := make(chan struct{})
	go func() {
		defer close(done)
		if _, _, err := r.ReadFile("pipe", 0); !IsKind(err, NotRegular) || !strings.Contains(err.Error(), "FIFO") {
			t.Errorf("read: %v", err)
		}
		if _, err := r.WriteFile("pipe", []byte("x"), false); !IsKind(err, NotRegular) {
			t.Errorf("write: %v", err)
		}
	}()
	select {
	case <-done:
	case <-time.After(time.Minute): // a FIFO blocks forever: a hang detector
		t.Fatal("opening a FIFO hung")
	}
}

func TestAFIFOSwappedInAfterTheCheckIsRefusedWithoutHanging(t *testing.T) {
	r, dir, _ := tree(t)
	p := filepath.Join(dir, "swap.txt")
	must(t, os.WriteFile(p, []byte("x"), 0o644))
	r.beforeOpen = func(string) {
		must(t, os.Remove(p))
		must(t, syscall.Mkfifo(p, 0o644))
	}
	done := make(chan error, 1)
	go func() { _, _, err := r.ReadFile("swap.txt", 0); done <- err }()
	select {
	case err := <-done:
		if !IsKind(err, NotRegular) {
			t.Fatalf("err = %v, want NotRegular", err)
		}
	case <-time.After(time.Minute): // a FIFO blocks forever: a hang detector
		t.Fatal("hung on a FIFO")
	}
}

func TestADirectorySwappedForASymlinkCannotLeadOut(t *testing.T) {
	r, dir, outside := tree(t)
	// Between the check and the open, sub/deep becomes a symlink to the
	// outside directory. os.Root's fd-relative open must refuse it.
	swap := func(string) {
		deep := filepath.Join(dir, "sub", "deep")
		must(t, os.RemoveAll(deep))
		must(t, os.Symlink(outside, deep))
		must(t, os.WriteFile(filepath.Join(outside, "b.txt"), []byte("OUTSIDE"), 0o644))
	}
	r.beforeOpen = swap
	b, _, err := r.ReadFile("sub/deep/b.txt", 0)
	if err == nil || strings.Contains(string(b), "OUTSIDE") {
		t.Fatalf("read through a swapped dir: %q, %v", b, err)
	}

	r2, dir2, outside2 := tree(t)
	dir, outside = dir2, outside2
	r2.beforeOpen = func(string) {
		deep := filepath.Join(dir, "sub", "deep")
		must(t, os.RemoveAll(deep))
		must(t, os.Symlink(outside, deep))
	}
	if _, err := r2.WriteFile("sub/deep/new.txt", []byte("x"), false); err == nil {
		t.Fatal("write through a swapped dir succeeded")
	}
	if _, err := os.Lstat(filepath.Join(outside, "new.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("a file was written outside: %v", err)
	}
}

func TestWritesRefuseSymlinksHardLinksAndOddFiles(t *testing.T) {
	r, dir, outside := tree(t)
	must(t, os.Link(filepath.Join(outside, "secret.txt"), filepath.Join(dir, "hard.txt")))
	cases := []struct {
		name, path string
		kind       Kind
		want       string
	}{
		{"symlink inside", "in-link", Unsafe, "not written through symlinks"},
		{"symlink out", "out-rel", Unsafe, "symlink"},
		{"dangling inside", "dangling-in", Unsafe, "symlink"},
		{"dangling outside", "dangling-out", Unsafe, "symlink"},
		{"dangling absolute", "dangling-abs", Unsafe, "symlink"},
		{"through a dir link", "dir-link/new.txt", Unsafe, "symlink"},
		{"through a dir link out", "out-dir/new.txt", Unsafe, "symlink"},
		{"hard link", "hard.txt", Unsafe, "2 hard links"},
		{"directory", "sub", NotRegular, "a directory"},
		{"root", ".", NotRegular, "root itself"},
		{"under a file", "a.txt/x", NotRegular, "not a directory"},
		{"missing dir", "new/dir/f.txt", NotFound, "create_dirs=true"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := r.WriteFile(c.path, []byte("PWNED"), false)
			if !IsKind(err, c.kind) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("WriteFile(%q) = %v; want kind %d with %q", c.path, err, c.kind, c.want)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(b) != "SECRET" {
		t.Fatalf("the outside file changed: %q", b)
	}
	for _, n := range []string{"nothing-here.txt", "new.txt"} {
		if _, err := os.Lstat(filepath.Join(outside, n)); err == nil {
			t.Errorf("%s was created outside", n)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, "nothing-here.txt")); err == nil {
		t.Error("a write followed a dangling symlink")
	}
}

func TestWriteCreatesAndReplaces(t *testing.T) {
	r, dir, _ := tree(t)
	created, err := r.WriteFile("new/dir/f.txt", []byte("one"), true)
	if err != nil || !created {
		t.Fatalf("create: %v, %v", created, err)
	}
	must(t, os.Chmod(filepath.Join(dir, "a.txt"), 0o600))
	created, err = r.WriteFile("a.txt", []byte("two"), false)
	if err != nil || created {
		t.Fatalf("replace: %v, %v", created, err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "a.txt"))
	fi, _ := os.Stat(filepath.Join(dir, "a.txt"))
	if string(b) != "two" || fi.Mode().Perm() != 0o600 {
		t.Fatalf("a.txt = %q, mode %v (the mode must be kept)", b, fi.Mode())
	}
	b, _ = os.ReadFile(filepath.Join(dir, "new", "dir", "f.txt"))
	if string(b) != "one" {
		t.Fatalf("f.txt = %q", b)
	}
}

func TestAFileSwappedAfterTheCheckIsNotWritten(t *testing.T) {
	r, dir, outside := tree(t)
	p := filepath.Join(dir, "a.txt")
	r.beforeOpen = func(string) {
		// Replace a.txt with a hard link to the outside secret.
		must(t, os.Remove(p))
		must(t, os.Link(filepath.Join(outside, "secret.txt"), p))
	}
	if _, err := r.WriteFile("a.txt", []byte("PWNED"), false); err == nil {
		t.Fatal("wrote a file swapped for a hard link")
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(b) != "SECRET" {
		t.Fatalf("secret = %q", b)
	}
	r.beforeOpen = func(string) {
		must(t, os.Remove(p))
		must(t, os.Symlink("../outside/secret.txt", p))
	}
	if _, err := r.WriteFile("a.txt", []byte("PWNED"), false); err == nil {
		t.Fatal("wrote through a symlink swapped in")
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "secret.txt")); string(b) != "SECRET" {
		t.Fatalf("secret = %q", b)
	}
}
