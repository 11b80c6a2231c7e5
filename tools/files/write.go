package files

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/internal/pathsafe"
)

// WriteFile is write_file.
type WriteFile struct{ w *Workspace }

func (t *WriteFile) Name() string { return "write_file" }

func (t *WriteFile) Description() string {
	return "Create a file in the workspace or replace its whole content (path relative to the workspace root). " +
		"The user approves each write after seeing a diff. Missing parent directories are an error unless create_dirs=true. " +
		"Symlinks and files with several hard links are not written. To change part of a file, prefer edit_file."
}

func (t *WriteFile) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"File path relative to the workspace root."},` +
		`"content":{"type":"string","description":"The complete new content of the file."},` +
		`"create_dirs":{"type":"boolean","description":"Create missing parent directories (default false)."}` +
		`},"required":["path","content"],"additionalProperties":false}`)
}

func (t *WriteFile) Class() tools.Class { return tools.SideEffect }

type writeArgs struct {
	Path       string `json:"path"`
	Content    string `json:"content"`
	CreateDirs bool   `json:"create_dirs"`
}

// Check asks, with the diff from the file as it is now. It writes nothing.
func (t *WriteFile) Check(_ context.Context, raw json.RawMessage) tools.Check {
	var a writeArgs
	if err := json.Unmarshal(raw, &a); err != nil {
		return tools.Check{Decision: tools.Ask, Reason: "the arguments could not be read, so the call will fail"}
	}
	rel, err := t.w.clean(a.Path)
	if err != nil {
		return t.w.willFail("", err)
	}
	if err := t.w.ownRefusal(rel); err != nil {
		return tools.Check{Decision: tools.Deny, Retry: err.Error(), Reason: err.Error()}
	}
	c := tools.Check{Decision: tools.Ask}
	c.Scope, c.ScopeLabel = scope(t.Name(), rel)
	c.AlwaysAsk = t.w.alwaysAsk(rel) != ""
	old, exists, err := t.w.current(rel)
	if err != nil {
		return t.w.willFail(rel, err)
	}
	if len(a.Content) > MaxWriteBytes {
		return t.w.willFail(rel, tools.Retryf("content is %s; the limit is %s", tools.Size(int64(len(a.Content))), tools.Size(MaxWriteBytes)))
	}
	switch {
	case !exists:
		c.Reason = fmt.Sprintf("creates %s (%s)", rel, plural(lineCount(a.Content), "line", "lines"))
	default:
		c.Reason = fmt.Sprintf("replaces the content of %s (%s → %s)", rel, tools.Size(int64(len(old))), tools.Size(int64(len(a.Content))))
	}
	if why := t.w.alwaysAsk(rel); why != "" {
		c.Reason += "; it always asks: " + why
		c.Outbound = &tools.Outbound{To: "the protected file " + rel, What: why}
	}
	c.Preview = diffPreview(rel, old, exists, []byte(a.Content))
	return c
}

// Run writes the content to the file as it is now (re-read, re-checked).
func (t *WriteFile) Run(_ context.Context, raw json.RawMessage) (tools.Result, error) {
	var a writeArgs
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	rel, err := t.w.clean(a.Path)
	if err != nil {
		return tools.Result{}, err
	}
	if len(a.Content) > MaxWriteBytes {
		return tools.Result{}, tools.Retryf("content is %s; the limit is %s", tools.Size(int64(len(a.Content))), tools.Size(MaxWriteBytes))
	}
	old, exists, err := t.w.current(rel)
	if err != nil {
		return tools.Result{}, err
	}
	meta := map[string]any{"path": rel, "bytes": len(a.Content), "lines": lineCount(a.Content)}
	if exists && bytes.Equal(old, []byte(a.Content)) {
		meta["created"], meta["changed"] = false, false
		return tools.Result{Display: fmt.Sprintf("%s already has this content; nothing written.", rel), Meta: meta}, nil
	}
	created, err := t.w.root.WriteFile(rel, []byte(a.Content), a.CreateDirs)
	if err != nil {
		return tools.Result{}, retry(err)
	}
	meta["created"], meta["changed"] = created, true
	what := "Wrote"
	if created {
		what = "Created"
	}
	return tools.Result{Display: fmt.Sprintf("%s %s (%s, %s).", what, rel, plural(lineCount(a.Content), "line", "lines"), tools.Size(int64(len(a.Content)))), Meta: meta}, nil
}

// current reads what is at rel now for a write: its content and whether a
// file exists. Refused targets (symlinks, hard links, ...) are Retry errors.
func (w *Workspace) current(rel string) ([]byte, bool, error) {
	if err := w.ownRefusal(rel); err != nil {
		return nil, false, err
	}
	tg, err := w.root.CheckWrite(rel)
	if err != nil {
		return nil, false, retry(err)
	}
	if !tg.Exists {
		return nil, false, nil
	}
	b, _, err := w.root.ReadFile(rel, MaxWriteBytes)
	if err != nil {
		if pathsafe.IsKind(err, pathsafe.TooLarge) {
			return nil, false, tools.Retryf("%q is over %s; it is not rewritten by write_file or edit_file", rel, tools.Size(MaxWriteBytes))
		}
		return nil, false, retry(err)
	}
	return b, true, nil
}

// willFail is the Check of a call that looks like it will be refused: it
// still asks (nothing is written without approval; the file may change
// before Run) and says why it will fail. A path that always asks
// (alwaysAsk) keeps AlwaysAsk.
func (w *Workspace) willFail(rel string, err error) tools.Check {
	return tools.Check{
		Decision:  tools.Ask,
		Reason:    "this call will fail and change nothing: " + err.Error(),
		AlwaysAsk: rel != "" && w.alwaysAsk(rel) != "",
	}
}

func lineCount(s string) int {
	if s == "" {
		return 0
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			n++
		}
	}
	if s[len(s)-1] != '\n' {
		n++
	}
	return n
}
