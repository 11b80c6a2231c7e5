// Package files holds the workspace file tools: list_directory, read_file
// and search_files, which run at once, and write_file and edit_file, which
// ask first and show a diff.
//
// Writes inside co's own config and data folders (wherever they sit in
// the workspace: it may be the home folder) are refused, asked or not.
//
// Every path is relative to the workspace root and goes through
// tools/internal/pathsafe: absolute paths, ".." escapes, symlinks that lead
// out, NUL bytes, backslashes and drive letters are refused with a message
// the model can act on; only regular files are read or written; sizes are
// capped. Writes never go through a symlink and never to a file with more
// than one hard link. Writes to the protected paths (lib/protect:
// places that run code later, such as .git/, .envrc, .vscode/, and files
// that steer later sessions, such as AGENTS.md) always ask, whatever grants
// or yolo say.
//
// Approval of writes: Check computes the preview (a unified diff) from the
// file as it is when the call is decided, and writes nothing. Run reads the
// file again: write_file writes the content it was given whatever is there
// now; edit_file applies old→new to the file as it is now and fails
// clearly if old no longer matches, so an approved edit never lands on text
// the user did not see changed.
//
// A Workspace is safe for concurrent use; it holds an os.Root open until
// Close.
package files

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/co-cli/co/lib/protect"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/internal/pathsafe"
)

// Limits.
const (
	// MaxReadBytes is the largest file read_file opens.
	MaxReadBytes = 8 << 20
	// DefaultMaxChars is how much text read_file returns by default.
	DefaultMaxChars = 20000
	// MaxMaxChars caps max_chars.
	MaxMaxChars = 200000
	// MaxLineChars cuts a single long line in read_file's output.
	MaxLineChars = 2000
	// MaxWriteBytes is the largest content write_file writes and the largest
	// file edit_file edits.
	MaxWriteBytes = 4 << 20
	// DefaultListLimit and MaxListLimit bound list_directory.
	DefaultListLimit = 200
	MaxListLimit     = 2000
	// DefaultSearchLimit and MaxSearchLimit bound search_files' matches.
	DefaultSearchLimit = 50
	MaxSearchLimit     = 500
	// MaxSearchFileBytes: larger files are skipped by search_files.
	MaxSearchFileBytes = 2 << 20
	// MaxSearchFiles and MaxSearchBytes stop a search of a huge tree.
	MaxSearchFiles = 50000
	MaxSearchBytes = 512 << 20
	// maxDiffBytes: larger files get a size summary instead of a diff.
	maxDiffBytes = 1 << 20
	// maxPreviewLines and maxPreviewChars cut the diff in the approval modal.
	maxPreviewLines = 300
	maxPreviewChars = 30000
)

// Workspace is the directory tree the file tools work in.
type Workspace struct {
	root *pathsafe.Root
	// protected are the paths writes to which always ask
	// (lib/protect), with the context_files names and the rules of the
	// places in the workspace (a home folder, co's own folders).
	protected   protect.Set
	instruction []string
	places      protect.Places
}

// New opens dir as the workspace.
func New(dir string) (*Workspace, error) {
	r, err := pathsafe.Open(dir, "workspace")
	if err != nil {
		return nil, fmt.Errorf("opening the workspace: %w", err)
	}
	return &Workspace{root: r}, nil
}

// SetInstructionFiles names the instruction files read beside AGENTS.md
// (the context_files setting): like AGENTS.md, a write to one always asks,
// whatever grant or yolo is on. Call it before the tools are used.
func (w *Workspace) SetInstructionFiles(names []string) {
	w.instruction = names
	w.protected = protect.New(names).In(w.Dir(), w.places)
}

// SetPlaces names the home folders and co's own folders: where they are
// inside the workspace, a home folder's start-up and credential files
// always ask, and co's own folders are never written (lib/protect). Call
// it before the tools are used.
func (w *Workspace) SetPlaces(p protect.Places) {
	w.places = p
	w.protected = protect.New(w.instruction).In(w.Dir(), p)
}

// ownRefusal refuses a write in one of co's own folders, naming it and
// why: co reads what is there as its own (settings, memories, consent),
// so no approval lets a tool write there.
func (w *Workspace) ownRefusal(rel string) error {
	o, ok := w.protected.OwnAt(rel)
	if !ok {
		return nil
	}
	where := o.Dir
	if o.Rel != "" {
		where = o.Rel + "/ (" + o.Dir + ")"
	}
	return tools.Retryf("%q is in %s, where the file tools never write: %s. Change co's settings with `co config set`, its memories with save_memory and forget_memory", rel, where, o.Reason)
}

// Close releases the workspace's descriptor.
func (w *Workspace) Close() error { return w.root.Close() }

// Dir is the workspace root.
func (w *Workspace) Dir() string { return w.root.Dir() }

// Tools are the five file tools over w.
func (w *Workspace) Tools() []tools.Tool {
	return []tools.Tool{&ListDirectory{w}, &ReadFile{w}, &SearchFiles{w}, &WriteFile{w}, &EditFile{w}}
}

// retry turns a refused path into a Retry for the model; other errors are
// infrastructure failures and pass through.
func retry(err error) error {
	var pe *pathsafe.Error
	if errors.As(err, &pe) {
		return &tools.Retry{Msg: pe.Msg}
	}
	return err
}

// clean checks a path argument.
func (w *Workspace) clean(p string) (string, error) {
	rel, err := w.root.Clean(p)
	return rel, retry(err)
}

// binary reports whether b looks like a binary file: a NUL byte in its
// first 8000 bytes, as git decides.
func binary(b []byte) bool {
	if len(b) > 8000 {
		b = b[:8000]
	}
	return bytes.IndexByte(b, 0) >= 0
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
