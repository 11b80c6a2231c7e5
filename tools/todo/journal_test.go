package todo_test

import (
	"context"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/tools/todo"
)

// Each change the todo tools make is journalled with the list before it,
// and undoing the entries newest first gives back each earlier list.
func TestTodoChangesAreJournalledAndUndone(t *testing.T) {
	j, err := journal.Open(t.TempDir(), "s-1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	ctx := journal.WithTurn(context.Background(), j, 7, time.Now())
	l := todo.NewList()
	run := func(name, args string) {
		t.Helper()
		for _, x := range l.Tools() {
			if x.Name() == name {
				if _, err := x.Run(ctx, json.RawMessage(args)); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				return
			}
		}
		t.Fatalf("no tool %s", name)
	}
	var lists [][]todo.Item // the list before each change
	steps := []struct{ tool, args, what string }{
		{"todo_create", `{"items":["Read the code","Write the test"]}`, `added to the todo list: "Read the code", "Write the test"`},
		{"todo_update", `{"id":"1","status":"done","note":"read"}`, `marked todo 1 done: "Read the code"`},
		{"todo_clear", `{"completed_only":true}`, "removed 1 item from the todo list"},
		{"todo_create", `{"items":["Ship"],"replace":true}`, `started a new todo list: "Ship"`},
	}
	for _, s := range steps {
		lists = append(lists, l.Snapshot())
		run(s.tool, s.args)
	}
	run("todo_list", `{}`)                       // reading changes nothing
	run("todo_clear", `{"completed_only":true}`) // nothing to remove: nothing recorded

	es, err := j.List(7)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != len(steps) {
		t.Fatalf("%d entries, want %d: %+v", len(es), len(steps), es)
	}
	for i, e := range es {
		if e.Kind != journal.Todos || !e.Undoable || e.Tool != steps[i].tool || e.What != steps[i].what || e.Turn != 7 {
			t.Errorf("entry %d: %+v, want %s %q", i, e, steps[i].tool, steps[i].what)
		}
	}

	r := journal.NewRegistry()
	r.TodoList(l)
	for i := len(es) - 1; i >= 0; i-- {
		res, err := r.Undo(ctx, j, es[i].Seq)
		if err != nil || res.Outcome != journal.Undone {
			t.Fatalf("undo %d: %+v %v", i, res, err)
		}
		if got := l.Snapshot(); !same(got, lists[i]) {
			t.Fatalf("after undoing %q the list is %+v, want %+v", es[i].What, got, lists[i])
		}
	}
	if len(l.Snapshot()) != 0 {
		t.Fatal("undoing every change did not give back the empty list")
	}
}

// same compares items, times by the instant (JSON keeps no monotonic
// reading or location).
func same(a, b []todo.Item) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if !x.CreatedAt.Equal(y.CreatedAt) || !x.UpdatedAt.Equal(y.UpdatedAt) {
			return false
		}
		x.CreatedAt, x.UpdatedAt, y.CreatedAt, y.UpdatedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if !reflect.DeepEqual(x, y) {
			return false
		}
	}
	return true
}
