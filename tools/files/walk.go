package files

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"strings"

	"github.com/co-cli/co/tools/files/gitignore"
)

// errStop ends a walk early without an error.
var errStop = errors.New("stop")

// walk visits the tree under start (a cleaned directory path) depth-first
// in lexical order, skipping .git directories and what .gitignore files
// (and .git/info/exclude) ignore. Symlinks are reported, never followed.
// fn returns errStop to end the walk or fs.SkipDir to skip a directory.
func (w *Workspace) walk(ctx context.Context, start string, fn func(rel string, d fs.DirEntry) error) error {
	var m gitignore.Matcher
	fsys := w.root.FS()
	load := func(dir string) {
		name := path.Join(dir, ".gitignore")
		if b, _, err := w.root.ReadFile(name, 1<<20); err == nil {
			m.Add(gitignore.Parse(dir, b)...)
		}
	}
	if b, _, err := w.root.ReadFile(".git/info/exclude", 1<<20); err == nil {
		m.Add(gitignore.Parse("", b)...)
	}
	// The .gitignore files above start apply inside it too.
	if start != "." {
		parts := strings.Split(start, "/")
		load(".")
		for i := 1; i < len(parts); i++ {
			load(path.Join(parts[:i]...))
		}
	}
	n := 0
	err := fs.WalkDir(fsys, start, func(p string, d fs.DirEntry, err error) error {
		if n++; n%256 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			// Unreadable directory: skip it, keep walking.
			if d != nil && d.IsDir() && p != start {
				return fs.SkipDir
			}
			if p == start {
				return err
			}
			return nil
		}
		if p == start {
			load(p)
			return nil
		}
		if d.IsDir() && d.Name() == ".git" {
			return fs.SkipDir
		}
		if m.Ignored(p, d.IsDir()) {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			load(p)
		}
		return fn(p, d)
	})
	if errors.Is(err, errStop) {
		return nil
	}
	return err
}
