package files

import (
	"context"
	"errors"
	"io/fs"
)

// The @path mentions of the chat (ui/mention) list and read workspace
// files here, so they see exactly what the file tools see: the same
// walker (.git and .gitignore'd paths left out), the same path checks
// (tools/internal/pathsafe), the same size cap and binary test as
// read_file.

// MaxMentionFiles caps how many files Files lists for @ completion.
const MaxMentionFiles = 20000

// Files lists the regular files of the workspace, in the walker's order
// (depth-first, lexical), at most limit of them (MaxMentionFiles when
// limit <= 0); more is true when the walk stopped at the limit. Symlinks
// are not listed (an @path through one is still read when it stays
// inside the workspace).
func (w *Workspace) Files(ctx context.Context, limit int) (files []string, more bool, err error) {
	if limit <= 0 {
		limit = MaxMentionFiles
	}
	err = w.walk(ctx, ".", func(p string, d fs.DirEntry) error {
		if !d.Type().IsRegular() {
			return nil
		}
		if len(files) == limit {
			more = true
			return errStop
		}
		files = append(files, p)
		return nil
	})
	return files, more, err
}

// Attachment is a file read for an @path mention.
type Attachment struct {
	Path      string // cleaned, relative to the workspace root
	Text      string // numbered lines, as read_file returns them (with its note when cut)
	Lines     int    // lines in the file
	Shown     int    // lines in Text (the last one perhaps cut)
	Truncated bool   // Text stops before the end of the file
}

// Attach reads the file p (relative to the workspace root) for an @path
// mention, as read_file does with no line range: at most maxChars
// characters of numbered lines (DefaultMaxChars when maxChars <= 0). A
// path that is refused, missing, a directory, over MaxReadBytes or binary
// gives an error whose message says so.
func (w *Workspace) Attach(p string, maxChars int) (Attachment, error) {
	if maxChars <= 0 {
		maxChars = DefaultMaxChars
	}
	rel, err := w.clean(p)
	if err != nil {
		return Attachment{}, err
	}
	if rel == "." {
		return Attachment{}, errors.New("the workspace root is a directory, not a file")
	}
	b, _, err := w.root.ReadFile(rel, MaxReadBytes)
	if err != nil {
		if _, fi, rerr := w.root.Resolve(rel); rerr == nil && fi.IsDir() {
			return Attachment{}, errors.New("it is a directory, not a file")
		}
		return Attachment{}, retry(err)
	}
	if binary(b) {
		return Attachment{}, errors.New("it looks like a binary file (it has NUL bytes); only text is attached")
	}
	r, err := renderLines(rel, b, 0, 0, maxChars)
	if err != nil {
		return Attachment{}, err
	}
	a := Attachment{Path: rel, Text: r.Display}
	if n, ok := r.Meta["total_lines"].(int); ok {
		a.Lines = n
	}
	if n, ok := r.Meta["end_line"].(int); ok {
		a.Shown = n
	}
	if tr, ok := r.Meta["truncated"].(bool); ok {
		a.Truncated = tr
	}
	return a, nil
}
