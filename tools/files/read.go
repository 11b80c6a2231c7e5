package files

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/co-cli/co/tools"
)

// ReadFile is read_file.
type ReadFile struct{ w *Workspace }

func (t *ReadFile) Name() string { return "read_file" }

func (t *ReadFile) Description() string {
	return "Read a text file in the workspace (path relative to the workspace root). " +
		"Lines come numbered (number, tab, text). start_line and end_line (1-based, inclusive) pick a range; " +
		"at most max_chars characters are returned (default 20000) and a note at the end says where the text was cut " +
		"and which start_line continues it. Binary files and files over 8 MB are refused. Runs without asking."
}

func (t *ReadFile) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"File path relative to the workspace root."},` +
		`"start_line":{"type":"integer","minimum":1,"description":"First line to return, 1-based (default 1)."},` +
		`"end_line":{"type":"integer","minimum":1,"description":"Last line to return, inclusive (default: the end of the file)."},` +
		`"max_chars":{"type":"integer","minimum":1,"maximum":200000,"description":"Most characters of text to return (default 20000)."}` +
		`},"required":["path"],"additionalProperties":false}`)
}

func (t *ReadFile) Class() tools.Class { return tools.ReadOnly }

type readArgs struct {
	Path      string `json:"path"`
	StartLine int    `json:"start_line"`
	EndLine   int    `json:"end_line"`
	MaxChars  int    `json:"max_chars"`
}

func (t *ReadFile) Run(_ context.Context, raw json.RawMessage) (tools.Result, error) {
	var a readArgs
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	rel, err := t.w.clean(a.Path)
	if err != nil {
		return tools.Result{}, err
	}
	if rel == "." {
		return tools.Result{}, tools.Retryf("path is the workspace root, a directory: use list_directory, or give a file path")
	}
	if a.EndLine > 0 && a.StartLine > a.EndLine {
		return tools.Result{}, tools.Retryf("start_line %d is after end_line %d", a.StartLine, a.EndLine)
	}
	b, _, err := t.w.root.ReadFile(rel, MaxReadBytes)
	if err != nil {
		if _, fi, rerr := t.w.root.Resolve(rel); rerr == nil && fi.IsDir() {
			return tools.Result{}, tools.Retryf("%q is a directory: use list_directory to see what is in it", rel)
		}
		return tools.Result{}, retry(err)
	}
	if binary(b) {
		return tools.Result{}, tools.Retryf("%q looks like a binary file (%s, with NUL bytes); read_file shows text only", rel, tools.Size(int64(len(b))))
	}
	return renderLines(rel, b, a.StartLine, a.EndLine, tools.Clamp(a.MaxChars, DefaultMaxChars, MaxMaxChars))
}

// renderLines numbers the lines start..end of b, within maxChars.
func renderLines(rel string, b []byte, start, end, maxChars int) (tools.Result, error) {
	total := bytes.Count(b, []byte("\n"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		total++
	}
	meta := map[string]any{"path": rel, "total_lines": total, "truncated": false}
	if total == 0 {
		meta["start_line"], meta["end_line"] = 0, 0
		return tools.Result{Display: "(empty file)", Meta: meta}, nil
	}
	if start <= 0 {
		start = 1
	}
	if start > total {
		return tools.Result{}, tools.Retryf("start_line %d is past the end: %q has %s", start, rel, plural(total, "line", "lines"))
	}
	if end <= 0 || end > total {
		end = total
	}
	width := len(strconv.Itoa(end))
	var out strings.Builder
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64*1024), len(b)+1)
	n, last, chars := 0, 0, 0
	truncated := false
	for sc.Scan() {
		n++
		if n < start {
			continue
		}
		if n > end {
			break
		}
		line := strings.TrimSuffix(sc.Text(), "\r")
		line = strings.ToValidUTF8(line, "\uFFFD")
		if c := utf8.RuneCountInString(line); c > MaxLineChars {
			line = tools.CutRunes(line, MaxLineChars) + fmt.Sprintf(" … [line cut: %d characters]", c)
		}
		row := fmt.Sprintf("%*d\t%s\n", width, n, line)
		rc := utf8.RuneCountInString(row)
		if chars+rc > maxChars {
			if last == 0 { // the first line alone is over the budget: cut it
				out.WriteString(tools.CutRunes(row, maxChars) + "\n")
				last = n
			}
			truncated = true
			break
		}
		out.WriteString(row)
		chars += rc
		last = n
		if chars >= maxChars {
			truncated = n < end
			break
		}
	}
	meta["start_line"], meta["end_line"], meta["truncated"] = start, last, truncated
	display := strings.TrimSuffix(out.String(), "\n")
	switch {
	case truncated:
		display += fmt.Sprintf("\n[cut at max_chars=%d: showed lines %d-%d of %d; continue with start_line=%d]", maxChars, start, last, total, last+1)
	case start > 1 || last < total:
		display += fmt.Sprintf("\n[lines %d-%d of %d]", start, last, total)
	}
	return tools.Result{Display: display, Meta: meta}, nil
}
