package files

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/internal/pathsafe"
)

// ListDirectory is list_directory.
type ListDirectory struct{ w *Workspace }

func (t *ListDirectory) Name() string { return "list_directory" }

func (t *ListDirectory) Description() string {
	return "List the entries of a directory in the workspace (paths are relative to the workspace root). " +
		"Directories end with /, symlinks show their target, files their size. " +
		"With recursive=true, lists the whole tree below the directory, skipping .git and whatever .gitignore ignores. " +
		"At most limit entries (default 200); has_more says when there are more: for them, call again with a larger limit. Runs without asking."
}

func (t *ListDirectory) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"Directory relative to the workspace root (default \".\")."},` +
		`"recursive":{"type":"boolean","description":"List the whole tree below the directory (default false)."},` +
		`"limit":{"type":"integer","minimum":1,"maximum":2000,"description":"Most entries to return (default 200)."}` +
		`},"additionalProperties":false}`)
}

func (t *ListDirectory) Class() tools.Class { return tools.ReadOnly }

type listArgs struct {
	Path      string `json:"path"`
	Recursive bool   `json:"recursive"`
	Limit     int    `json:"limit"`
}

func (t *ListDirectory) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a listArgs
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	rel, err := t.w.clean(a.Path)
	if err != nil {
		return tools.Result{}, err
	}
	limit := tools.Clamp(a.Limit, DefaultListLimit, MaxListLimit)
	real, fi, err := t.w.root.Resolve(rel)
	if err != nil {
		return tools.Result{}, retry(err)
	}
	if !fi.IsDir() {
		return tools.Result{}, tools.Retryf("%q is a file, not a directory: use read_file to read it", rel)
	}
	var lines []string
	hasMore := false
	add := func(display string) error {
		if len(lines) == limit {
			hasMore = true
			return errStop
		}
		lines = append(lines, display)
		return nil
	}
	if a.Recursive {
		err = t.w.walk(ctx, real, func(p string, d fs.DirEntry) error {
			shown := strings.TrimPrefix(p, real+"/")
			if real == "." {
				shown = p
			}
			return add(t.entry(p, shown, d))
		})
	} else {
		var entries []fs.DirEntry
		entries, err = fs.ReadDir(t.w.root.FS(), real)
		sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
		for _, d := range entries {
			if add(t.entry(path.Join(real, d.Name()), d.Name(), d)) != nil {
				break
			}
		}
	}
	if err != nil {
		return tools.Result{}, retry(err)
	}
	meta := map[string]any{"path": rel, "count": len(lines), "has_more": hasMore}
	if len(lines) == 0 {
		return tools.Result{Display: fmt.Sprintf("%s is empty.", describeDir(rel)), Meta: meta}, nil
	}
	display := strings.Join(lines, "\n")
	if hasMore {
		display += fmt.Sprintf("\n[showing the first %d entries; raise limit or list a subdirectory to see more]", limit)
	}
	return tools.Result{Display: display, Meta: meta}, nil
}

// entry renders one directory entry.
func (t *ListDirectory) entry(p, shown string, d fs.DirEntry) string {
	switch {
	case d.IsDir():
		return shown + "/"
	case d.Type()&fs.ModeSymlink != 0:
		target, err := t.w.root.Readlink(p)
		if err != nil {
			return shown + " -> ?"
		}
		return shown + " -> " + target
	case d.Type().IsRegular():
		if info, err := d.Info(); err == nil {
			return fmt.Sprintf("%s  (%s)", shown, tools.Size(info.Size()))
		}
		return shown
	}
	return fmt.Sprintf("%s  (%s)", shown, pathsafe.Describe(d.Type()))
}

func describeDir(rel string) string {
	if rel == "." {
		return "The workspace root"
	}
	return fmt.Sprintf("%q", rel)
}
