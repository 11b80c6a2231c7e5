package todo

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/lib/count"
	"github.com/co-cli/co/tools"
)

// changed journals a change a tool made to the list, with the list before
// it (journal.TodosBefore), so undo can set it back. The change is done
// whatever the journal says: a failure to record is told to the user.
func changed(ctx context.Context, tool string, before []Item, what string) {
	if _, err := journal.RecordIn(ctx, journal.TodosBefore(0, tool, before, what)); err != nil {
		tools.Notify(ctx, "co could not record the todo change for undo: "+err.Error())
	}
}

// texts is items' texts, quoted and cut, for a journal line.
func texts(items []Item) string {
	var q []string
	for i, it := range items {
		if i == 3 {
			q = append(q, fmt.Sprintf("and %d more", len(items)-3))
			break
		}
		t := it.Text
		if r := []rune(t); len(r) > 40 {
			t = string(r[:39]) + "…"
		}
		q = append(q, fmt.Sprintf("%q", t))
	}
	return strings.Join(q, ", ")
}

// Tools are the four todo tools over l. They run without asking: the list
// lives in the session's memory only.
func (l *List) Tools() []tools.Tool {
	return []tools.Tool{&createTool{l}, &listTool{l}, &updateTool{l}, &clearTool{l}}
}

type createTool struct{ l *List }

// The tools that write the list change only co's own state: they run at
// once, as reading does (tools.OwnState).
const changes = "the run's todo list (shown beside the chat)"

func (*createTool) Changes() string { return changes }
func (*updateTool) Changes() string { return changes }
func (*clearTool) Changes() string  { return changes }

func (t *createTool) Name() string { return "todo_create" }

// List is the list the tool keeps (see Find).
func (t *createTool) List() *List        { return t.l }
func (t *createTool) Class() tools.Class { return tools.ReadOnly }
func (t *createTool) Description() string {
	return "Add items to the session's todo list (shown to the user beside the chat) to plan and track multi-step work. " +
		"Each item starts as pending and gets an id (1, 2, 3, ...; ids are never reused). " +
		"replace=true starts a new list instead of adding. Returns the whole list."
}
func (t *createTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"items":{"type":"array","items":{"type":"string"},"minItems":1,"maxItems":50,"description":"The texts of the new items, in order."},` +
		`"replace":{"type":"boolean","description":"Replace the current list instead of adding to it (default false)."}` +
		`},"required":["items"],"additionalProperties":false}`)
}

func (t *createTool) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Items   []string `json:"items"`
		Replace bool     `json:"replace"`
	}
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	t.l.edits.Lock()
	before := t.l.Snapshot()
	added, err := t.l.Create(a.Items, a.Replace)
	t.l.edits.Unlock()
	if err != nil {
		return tools.Result{}, err
	}
	what := "added to the todo list: " + texts(added)
	if a.Replace && len(before) > 0 {
		what = "started a new todo list: " + texts(added)
	}
	changed(ctx, t.Name(), before, what)
	items := t.l.Snapshot()
	meta := counts(items)
	meta["created"] = sortedIDsInOrder(added)
	head := fmt.Sprintf("Added %d.", len(added))
	if a.Replace {
		head = fmt.Sprintf("Started a new list of %d.", len(added))
	}
	return tools.Result{Display: head + "\n" + Render(items), Meta: meta}, nil
}

func sortedIDsInOrder(items []Item) []string {
	ids := make([]string, len(items))
	for i, it := range items {
		ids[i] = it.ID
	}
	return ids
}

type listTool struct{ l *List }

func (t *listTool) Name() string       { return "todo_list" }
func (t *listTool) List() *List        { return t.l }
func (t *listTool) Class() tools.Class { return tools.ReadOnly }
func (t *listTool) Description() string {
	return "Show the session's todo list, optionally only the items with one status (pending, in_progress, done, cancelled). " +
		"An empty list is a result with count 0."
}
func (t *listTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"status":{"type":"string","enum":["pending","in_progress","done","cancelled"],"description":"Only items with this status (default: all)."}` +
		`},"additionalProperties":false}`)
}

func (t *listTool) Run(_ context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Status string `json:"status"`
	}
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	items := t.l.Snapshot()
	if a.Status != "" && a.Status != "all" {
		st, ok := validStatus(a.Status)
		if !ok {
			return tools.Result{}, tools.Retryf("status %q is not valid; use one of %s, or leave it out for all", a.Status, statusNames)
		}
		var keep []Item
		for _, it := range items {
			if it.Status == st {
				keep = append(keep, it)
			}
		}
		meta := counts(keep)
		if len(keep) == 0 {
			return tools.Result{Display: fmt.Sprintf("No %s todos.", strings.ReplaceAll(string(st), "_", " ")), Meta: meta}, nil
		}
		return tools.Result{Display: Render(keep), Meta: meta}, nil
	}
	return tools.Result{Display: Render(items), Meta: counts(items)}, nil
}

type updateTool struct{ l *List }

func (t *updateTool) Name() string       { return "todo_update" }
func (t *updateTool) List() *List        { return t.l }
func (t *updateTool) Class() tools.Class { return tools.ReadOnly }
func (t *updateTool) Description() string {
	return "Set the status of a todo by id: pending, in_progress, done or cancelled, with an optional note (replaces the old note). " +
		"done and cancelled are final. Giving the current status again just updates the note. Returns the whole list."
}
func (t *updateTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"id":{"type":"string","description":"The item's id, e.g. \"2\"."},` +
		`"status":{"type":"string","enum":["pending","in_progress","done","cancelled"],"description":"The new status."},` +
		`"note":{"type":"string","description":"A short note, e.g. what is left or why it was cancelled."}` +
		`},"required":["id","status"],"additionalProperties":false}`)
}

func (t *updateTool) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		ID     string `json:"id"`
		Status string `json:"status"`
		Note   string `json:"note"`
	}
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	t.l.edits.Lock()
	before := t.l.Snapshot()
	it, err := t.l.Update(a.ID, a.Status, a.Note)
	t.l.edits.Unlock()
	if err != nil {
		return tools.Result{}, err
	}
	changed(ctx, t.Name(), before, fmt.Sprintf("marked todo %s %s: %s", it.ID, strings.ReplaceAll(string(it.Status), "_", " "), texts([]Item{it})))
	items := t.l.Snapshot()
	meta := counts(items)
	meta["id"], meta["status"] = it.ID, string(it.Status)
	return tools.Result{Display: fmt.Sprintf("Todo %s is %s.\n%s", it.ID, strings.ReplaceAll(string(it.Status), "_", " "), Render(items)), Meta: meta}, nil
}

type clearTool struct{ l *List }

func (t *clearTool) Name() string       { return "todo_clear" }
func (t *clearTool) List() *List        { return t.l }
func (t *clearTool) Class() tools.Class { return tools.ReadOnly }
func (t *clearTool) Description() string {
	return "Remove every item from the session's todo list, or with completed_only=true only the done and cancelled ones."
}
func (t *clearTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"completed_only":{"type":"boolean","description":"Remove only done and cancelled items (default false: remove all)."}` +
		`},"additionalProperties":false}`)
}

func (t *clearTool) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		CompletedOnly bool `json:"completed_only"`
	}
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	t.l.edits.Lock()
	before := t.l.Snapshot()
	n := t.l.Clear(a.CompletedOnly)
	t.l.edits.Unlock()
	if n > 0 {
		changed(ctx, t.Name(), before, "removed "+count.Of(n, "item")+" from the todo list")
	}
	items := t.l.Snapshot()
	meta := counts(items)
	meta["removed"] = n
	display := fmt.Sprintf("Removed %d.", n)
	if len(items) > 0 {
		display += "\n" + Render(items)
	} else {
		display += " The list is empty."
	}
	return tools.Result{Display: display, Meta: meta}, nil
}
