package files

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/co-cli/co/tools"
)

// EditFile is edit_file.
type EditFile struct{ w *Workspace }

func (t *EditFile) Name() string { return "edit_file" }

func (t *EditFile) Description() string {
	return "Replace exact text in a file of the workspace (path relative to the workspace root): old must appear in the file exactly, " +
		"including indentation and line breaks, and exactly once unless replace_all=true. " +
		"The user approves each edit after seeing a diff. When old is not found, or found several times, the error says where " +
		"(line numbers, near matches) so you can read the file again and fix the call. To create a file, use write_file."
}

func (t *EditFile) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"File path relative to the workspace root."},` +
		`"old":{"type":"string","description":"The exact text to replace."},` +
		`"new":{"type":"string","description":"The text to put in its place."},` +
		`"replace_all":{"type":"boolean","description":"Replace every occurrence of old (default false: old must be unique)."}` +
		`},"required":["path","old","new"],"additionalProperties":false}`)
}

func (t *EditFile) Class() tools.Class { return tools.SideEffect }

type editArgs struct {
	Path       string `json:"path"`
	Old        string `json:"old"`
	New        string `json:"new"`
	ReplaceAll bool   `json:"replace_all"`
}

// editPlan is an edit computed from the file as it is now.
type editPlan struct {
	rel    string
	before string
	after  string
	count  int
	lines  []int // line of each replacement (the first 20)
	crlf   bool  // old matched once its line breaks were made CRLF
}

// plan computes the edit from the file as it is now, writing nothing.
func (t *EditFile) plan(a editArgs) (editPlan, error) {
	var p editPlan
	rel, err := t.w.clean(a.Path)
	if err != nil {
		return p, err
	}
	p.rel = rel
	if a.Old == "" {
		return p, tools.Retryf("old is empty: give the exact text to replace (to create or overwrite a whole file, use write_file)")
	}
	if a.Old == a.New {
		return p, tools.Retryf("old and new are the same, so there is nothing to change")
	}
	b, exists, err := t.w.current(rel)
	if err != nil {
		return p, err
	}
	if !exists {
		return p, tools.Retryf("%q does not exist; use write_file to create it", rel)
	}
	if binary(b) {
		return p, tools.Retryf("%q looks like a binary file; edit_file edits text only", rel)
	}
	content := string(b)
	old, new := a.Old, a.New
	n := strings.Count(content, old)
	if n == 0 && strings.Contains(content, "\r\n") && strings.Contains(old, "\n") && !strings.Contains(old, "\r\n") {
		// The file has Windows line breaks and old was given with \n.
		crlf := strings.ReplaceAll(old, "\n", "\r\n")
		if m := strings.Count(content, crlf); m > 0 {
			old, n, p.crlf = crlf, m, true
			new = strings.ReplaceAll(strings.ReplaceAll(new, "\r\n", "\n"), "\n", "\r\n")
		}
	}
	if n == 0 {
		return p, &tools.Retry{Msg: explainMiss(rel, content, a.Old)}
	}
	p.lines = occurrenceLines(content, old, 20)
	if n > 1 && !a.ReplaceAll {
		return p, tools.Retryf("old appears %d times in %q (at lines %s): include more of the surrounding lines in old so it matches once, or pass replace_all=true to replace all %d",
			n, rel, joinInts(p.lines, n), n)
	}
	if !a.ReplaceAll {
		n = 1
	}
	p.before, p.after, p.count = content, strings.Replace(content, old, new, n), n
	if len(p.after) > MaxWriteBytes {
		return p, tools.Retryf("the edited file would be %s; the limit is %s", tools.Size(int64(len(p.after))), tools.Size(MaxWriteBytes))
	}
	return p, nil
}

// Check asks, with the diff of the edit applied to the file as it is now.
// It writes nothing.
func (t *EditFile) Check(_ context.Context, raw json.RawMessage) tools.Check {
	var a editArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return tools.Check{Decision: tools.Ask, Reason: "the arguments could not be read, so the call will fail"}
	}
	if rel, err := t.w.clean(a.Path); err == nil {
		if err := t.w.ownRefusal(rel); err != nil {
			return tools.Check{Decision: tools.Deny, Retry: err.Error(), Reason: err.Error()}
		}
	}
	p, err := t.plan(a)
	if err != nil {
		return t.w.willFail(p.rel, err)
	}
	c := tools.Check{Decision: tools.Ask, AlwaysAsk: t.w.alwaysAsk(p.rel) != ""}
	c.Scope, c.ScopeLabel = scope(t.Name(), p.rel)
	c.Reason = fmt.Sprintf("edits %s: %s", p.rel, plural(p.count, "replacement", "replacements"))
	if why := t.w.alwaysAsk(p.rel); why != "" {
		c.Reason += "; it always asks: " + why
		c.Outbound = &tools.Outbound{To: "the protected file " + p.rel, What: why}
	}
	c.Preview = diffPreview(p.rel, []byte(p.before), true, []byte(p.after))
	return c
}

// Run applies old→new to the file as it is now. If the file changed since
// the approval so that old no longer matches (or matches more often), the
// call fails with the same explanation a fresh call would get.
func (t *EditFile) Run(_ context.Context, raw json.RawMessage) (tools.Result, error) {
	var a editArgs
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	p, err := t.plan(a)
	if err != nil {
		return tools.Result{}, err
	}
	if _, err := t.w.root.WriteFile(p.rel, []byte(p.after), false); err != nil {
		return tools.Result{}, retry(err)
	}
	where := "line " + joinInts(p.lines, p.count)
	if len(p.lines) > 1 {
		where = "lines " + joinInts(p.lines, p.count)
	}
	display := fmt.Sprintf("Edited %s: %s at %s.", p.rel, plural(p.count, "replacement", "replacements"), where)
	if p.crlf {
		display += " (old matched with the file's CRLF line breaks.)"
	}
	return tools.Result{Display: display, Meta: map[string]any{
		"path": p.rel, "replacements": p.count, "lines": p.lines,
	}}, nil
}

// occurrenceLines is the line number of each non-overlapping occurrence of
// old in content, at most max of them.
func occurrenceLines(content, old string, max int) []int {
	var out []int
	line, from := 1, 0
	for len(out) < max {
		i := strings.Index(content[from:], old)
		if i < 0 {
			break
		}
		line += strings.Count(content[from:from+i], "\n")
		out = append(out, line)
		line += strings.Count(old, "\n")
		from += i + len(old)
	}
	return out
}

func joinInts(xs []int, total int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	out := strings.Join(s, ", ")
	if total > len(xs) {
		out += fmt.Sprintf(" and %d more", total-len(xs))
	}
	return out
}

// explainMiss says why old was not found and where it nearly is, so the
// model can recover: the same lines with other indentation or trailing
// spaces, or its first line alone.
func explainMiss(rel, content, old string) string {
	fileLines := strings.Split(content, "\n")
	oldLines := strings.Split(strings.Trim(old, "\n"), "\n")
	trim := func(s string) string { return strings.TrimSpace(strings.TrimSuffix(s, "\r")) }
	nonEmpty := false
	for i := range oldLines {
		oldLines[i] = trim(oldLines[i])
		nonEmpty = nonEmpty || oldLines[i] != ""
	}
	if nonEmpty {
		var at []int
		for i := 0; i+len(oldLines) <= len(fileLines) && len(at) < 5; i++ {
			ok := true
			for j, ol := range oldLines {
				if trim(fileLines[i+j]) != ol {
					ok = false
					break
				}
			}
			if ok {
				at = append(at, i+1)
			}
		}
		if len(at) > 0 {
			end := at[0] + len(oldLines) - 1
			return fmt.Sprintf("old is not in %q exactly, but it matches lines %d-%d when indentation and spaces at line ends are ignored: read those lines (read_file with start_line=%d, end_line=%d) and copy them exactly, tabs and spaces included",
				rel, at[0], end, at[0], end)
		}
		first := ""
		for _, l := range oldLines {
			if l != "" {
				first = l
				break
			}
		}
		var near []int
		for i, l := range fileLines {
			if strings.Contains(l, first) && len(near) < 10 {
				near = append(near, i+1)
			}
		}
		if len(near) > 0 {
			return fmt.Sprintf("old is not in %q; its first line (%q) is at line %s but the lines after it differ: read the file there again and copy the text exactly",
				rel, first, joinInts(near, len(near)))
		}
	}
	return fmt.Sprintf("old was not found in %q: read the file (read_file) and copy the text to replace exactly, including indentation and line breaks", rel)
}
