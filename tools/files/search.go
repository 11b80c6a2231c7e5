package files

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/files/gitignore"
)

// SearchFiles is search_files.
type SearchFiles struct{ w *Workspace }

func (t *SearchFiles) Name() string { return "search_files" }

func (t *SearchFiles) Description() string {
	return "Search the contents of the workspace's files with a regular expression (RE2 syntax, as in Go; use (?i) for case-insensitive). " +
		"Returns matching lines as path:line: text. Skips .git, whatever .gitignore ignores, binary files and files over 2 MB. " +
		"glob filters file names: without a slash it matches a name at any depth (*.go), with one the path from the workspace root (src/**/*.ts). " +
		"path limits the search to a directory. At most limit matches (default 50); has_more says when there are more: for them, call again with a larger limit (or a narrower path). Runs without asking."
}

func (t *SearchFiles) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"pattern":{"type":"string","description":"Regular expression (RE2) matched against each line."},` +
		`"glob":{"type":"string","description":"Only files whose name or path matches this glob, e.g. *.go or src/**/*.ts."},` +
		`"path":{"type":"string","description":"Directory to search, relative to the workspace root (default \".\")."},` +
		`"limit":{"type":"integer","minimum":1,"maximum":500,"description":"Most matches to return (default 50)."}` +
		`},"required":["pattern"],"additionalProperties":false}`)
}

func (t *SearchFiles) Class() tools.Class { return tools.ReadOnly }

type searchArgs struct {
	Pattern string `json:"pattern"`
	Glob    string `json:"glob"`
	Path    string `json:"path"`
	Limit   int    `json:"limit"`
}

const maxMatchChars = 300

func (t *SearchFiles) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a searchArgs
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	if a.Pattern == "" {
		return tools.Result{}, tools.Retryf("pattern is empty: give a regular expression to search for")
	}
	re, err := regexp.Compile(a.Pattern)
	if err != nil {
		return tools.Result{}, tools.Retryf("pattern is not a valid RE2 regular expression (%v); escape special characters such as ( [ . * with a backslash", err)
	}
	glob, err := gitignore.CompileGlob(a.Glob)
	if err != nil {
		return tools.Result{}, tools.Retryf("glob %q is not valid: %v", a.Glob, err)
	}
	rel, err := t.w.clean(a.Path)
	if err != nil {
		return tools.Result{}, err
	}
	start, fi, err := t.w.root.Resolve(rel)
	if err != nil {
		return tools.Result{}, retry(err)
	}
	if !fi.IsDir() {
		return tools.Result{}, tools.Retryf("path %q is a file; search_files takes a directory (use glob to pick files)", rel)
	}
	limit := tools.Clamp(a.Limit, DefaultSearchLimit, MaxSearchLimit)

	var lines []string
	hasMore, stoppedEarly := false, false
	files, matchedFiles := 0, 0
	var scanned int64
	err = t.w.walk(ctx, start, func(p string, d fs.DirEntry) error {
		if !d.Type().IsRegular() || !glob.Match(p) {
			return nil
		}
		if files >= MaxSearchFiles || scanned >= MaxSearchBytes {
			stoppedEarly = true
			return errStop
		}
		b, ok := t.readSearchable(p)
		if !ok {
			return nil
		}
		files++
		scanned += int64(len(b))
		found := false
		lineNo := 0
		for len(b) > 0 {
			lineNo++
			i := bytes.IndexByte(b, '\n')
			var line []byte
			if i < 0 {
				line, b = b, nil
			} else {
				line, b = b[:i], b[i+1:]
			}
			if !re.Match(line) {
				continue
			}
			if len(lines) == limit {
				hasMore = true
				return errStop
			}
			found = true
			lines = append(lines, fmt.Sprintf("%s:%d: %s", p, lineNo, matchText(line)))
		}
		if found {
			matchedFiles++
		}
		return nil
	})
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		return tools.Result{}, retry(err)
	}
	meta := map[string]any{"count": len(lines), "has_more": hasMore, "files_searched": files}
	if stoppedEarly {
		meta["stopped_early"] = true
	}
	if len(lines) == 0 {
		msg := fmt.Sprintf("No matches for %s in %s.", a.Pattern, plural(files, "file", "files"))
		if stoppedEarly {
			msg += " The search stopped early (the tree is very large): narrow it with path or glob."
		}
		return tools.Result{Display: msg, Meta: meta}, nil
	}
	display := strings.Join(lines, "\n")
	switch {
	case hasMore:
		display += fmt.Sprintf("\n[first %d matches shown; raise limit or narrow the search with path or glob]", limit)
	case stoppedEarly:
		display += "\n[the search stopped early (the tree is very large): narrow it with path or glob]"
	}
	return tools.Result{Display: display, Meta: meta}, nil
}

// readSearchable reads p if it is a text file small enough to search.
func (t *SearchFiles) readSearchable(p string) ([]byte, bool) {
	f, _, err := t.w.root.OpenFile(p, MaxSearchFileBytes)
	if err != nil {
		return nil, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, MaxSearchFileBytes))
	if err != nil || binary(b) {
		return nil, false
	}
	return b, true
}

// matchText is a matching line as shown: trimmed, valid UTF-8, cut.
func matchText(line []byte) string {
	s := strings.TrimSpace(strings.ToValidUTF8(string(bytes.TrimSuffix(line, []byte("\r"))), "\uFFFD"))
	if utf8.RuneCountInString(s) > maxMatchChars {
		s = tools.CutRunes(s, maxMatchChars) + " …"
	}
	return s
}
