package main

import (
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// maxCommentLines is the longest a comment block in the code may be
// (issue 28): what is longer is documentation, and goes to the package
// documentation, a README or docs/.
const maxCommentLines = 15

// datedNote is a research note's date ("read on 2026-11-24"): where
// something was read, and when, is kept in docs/SOURCES.md or
// docs/providers.md, not in the flow of the code. A report's own date
// in a citation ("ollama/ollama#5902 (2024-07-24)") is not one.
var datedNote = regexp.MustCompile(`(?i)\b(read|checked|seen|fetched|retrieved|looked up|visited)( on| in)? 20\d\d-\d\d-\d\d`)

// TestCommentsAreShortAndUndated fails on a comment block of more than
// maxCommentLines lines in a non-test Go file, other than a package's
// documentation (the comment above its package clause, the place for a
// package's tables and design), and on a dated research note in any
// comment.
func TestCommentsAreShortAndUndated(t *testing.T) {
	files := 0
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if name := d.Name(); path != "." && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments)
		if err != nil {
			return err
		}
		for _, cg := range f.Comments {
			lines := 0
			for _, c := range cg.List {
				lines += strings.Count(c.Text, "\n") + 1
				if m := datedNote.FindString(c.Text); m != "" {
					t.Errorf("%s: a dated research note (%q): move where it was read to docs/SOURCES.md or docs/providers.md and point there",
						fset.Position(c.Pos()), m)
				}
			}
			if lines > maxCommentLines && cg != f.Doc {
				t.Errorf("%s: a comment block of %d lines (at most %d): keep what a reader of the code needs, move the rest to the package documentation or docs/",
					fset.Position(cg.Pos()), lines, maxCommentLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Fatalf("only %d Go files found: is the test run from the repository root?", files)
	}
}
