package todo

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/co-cli/co/tools"
)

func run(t *testing.T, l *List, name string, args map[string]any) (tools.Result, error) {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	raw, _ := json.Marshal(args)
	for _, x := range l.Tools() {
		if x.Name() == name {
			if err := tools.NewValidator().Validate(x, raw); err != nil {
				return tools.Result{}, err
			}
			return x.Run(context.Background(), raw)
		}
	}
	t.Fatalf("no tool %s", name)
	return tools.Result{}, nil
}

func ok(t *testing.T, l *List, name string, args map[string]any) tools.Result {
	t.Helper()
	r, err := run(t, l, name, args)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return r
}

func retry(t *testing.T, err error, want string) {
	t.Helper()
	if !tools.IsRetry(err) || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want a Retry with %q", err, want)
	}
}

func TestCreateListUpdateClear(t *testing.T) {
	l := NewList()
	clock := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	l.now = func() time.Time { return clock }

	r := ok(t, l, "todo_list", nil)
	if r.Display != "No todos." || r.Meta["count"] != 0 {
		t.Fatalf("empty list: %q %v", r.Display, r.Meta)
	}
	r = ok(t, l, "todo_create", map[string]any{"items": []string{"Read the code", "  Write the test  ", "Ship"}})
	want := "Added 3.\nTodos: 0 of 3 done\n[ ] 1. Read the code\n[ ] 2. Write the test\n[ ] 3. Ship"
	if r.Display != want {
		t.Fatalf("display:\n%s\nwant:\n%s", r.Display, want)
	}
	if r.Meta["count"] != 3 || r.Meta["pending"] != 3 || strings.Join(r.Meta["created"].([]string), ",") != "1,2,3" {
		t.Errorf("meta = %v", r.Meta)
	}

	clock = clock.Add(time.Minute)
	r = ok(t, l, "todo_update", map[string]any{"id": "1", "status": "in_progress"})
	if !strings.HasPrefix(r.Display, "Todo 1 is in progress.\n") || !strings.Contains(r.Display, "[>] 1. Read the code") {
		t.Errorf("update display:\n%s", r.Display)
	}
	ok(t, l, "todo_update", map[string]any{"id": "#1", "status": "done", "note": "read it all"})
	ok(t, l, "todo_update", map[string]any{"id": "3", "status": "cancelled", "note": "not this week"})
	items := l.Snapshot()
	if items[0].Status != Done || items[0].Note != "read it all" || !items[0].UpdatedAt.Equal(clock) || items[0].CreatedAt.Equal(clock) {
		t.Errorf("item 1 = %+v", items[0])
	}
	r = ok(t, l, "todo_list", nil)
	want = "Todos: 1 of 3 done\n[x] 1. Read the code — read it all\n[ ] 2. Write the test\n[-] 3. Ship (cancelled) — not this week"
	if r.Display != want {
		t.Errorf("list:\n%s\nwant:\n%s", r.Display, want)
	}
	r = ok(t, l, "todo_list", map[string]any{"status": "pending"})
	if r.Meta["count"] != 1 || !strings.Contains(r.Display, "2. Write the test") || strings.Contains(r.Display, "Ship") {
		t.Errorf("filtered: %v\n%s", r.Meta, r.Display)
	}
	r = ok(t, l, "todo_list", map[string]any{"status": "in_progress"})
	if r.Meta["count"] != 0 || r.Display != "No in progress todos." {
		t.Errorf("empty filter: %v %q", r.Meta, r.Display)
	}

	// Note-only update keeps the status, even when final.
	ok(t, l, "todo_update", map[string]any{"id": "1", "status": "done", "note": "really"})
	r = ok(t, l, "todo_clear", map[string]any{"completed_only": true})
	if r.Meta["removed"] != 2 || r.Meta["count"] != 1 || !strings.Contains(r.Display, "Removed 2.") {
		t.Errorf("clear completed: %v\n%s", r.Meta, r.Display)
	}
	// Ids are never reused, also after replace.
	r = ok(t, l, "todo_create", map[string]any{"items": []string{"New plan"}, "replace": true})
	if !strings.Contains(r.Display, "Started a new list of 1.") || !strings.Contains(r.Display, "[ ] 4. New plan") || r.Meta["count"] != 1 {
		t.Errorf("replace:\n%s", r.Display)
	}
	r = ok(t, l, "todo_clear", nil)
	if r.Meta["removed"] != 1 || r.Display != "Removed 1. The list is empty." {
		t.Errorf("clear all: %q", r.Display)
	}
}

func TestMistakesAreRetryableAndSayWhatToDo(t *testing.T) {
	l := NewList()
	_, err := run(t, l, "todo_update", map[string]any{"id": "1", "status": "done"})
	retry(t, err, "the list is empty")
	ok(t, l, "todo_create", map[string]any{"items": []string{"a", "b"}})
	_, err = run(t, l, "todo_update", map[string]any{"id": "9", "status": "done"})
	retry(t, err, "the ids are 1, 2")
	_, err = run(t, l, "todo_update", map[string]any{"id": "1", "status": "finished"})
	retry(t, err, "status") // the schema's enum says which
	if _, err := l.Update("1", "finished", ""); err == nil || !strings.Contains(err.Error(), "pending, in_progress, done, cancelled") {
		t.Errorf("Update with a bad status: %v", err)
	}
	ok(t, l, "todo_update", map[string]any{"id": "1", "status": "done"})
	_, err = run(t, l, "todo_update", map[string]any{"id": "1", "status": "in_progress"})
	retry(t, err, "already done, which is final")
	ok(t, l, "todo_update", map[string]any{"id": "2", "status": "cancelled"})
	_, err = run(t, l, "todo_update", map[string]any{"id": "2", "status": "pending"})
	retry(t, err, "create a new item")
	_, err = run(t, l, "todo_create", map[string]any{"items": []string{"ok", "  "}})
	retry(t, err, "item 2 is empty")
	_, err = run(t, l, "todo_create", map[string]any{"items": []string{strings.Repeat("x", MaxTextLen+1)}})
	retry(t, err, "limit is 500")
	_, err = run(t, l, "todo_create", map[string]any{"items": []string{}})
	retry(t, err, "items")
	for i := 0; i < 3; i++ {
		many := make([]string, 49)
		for j := range many {
			many[j] = "x"
		}
		_, err = run(t, l, "todo_create", map[string]any{"items": many})
	}
	retry(t, err, "limit is 100")
	_, err = run(t, l, "todo_list", map[string]any{"status": "open"})
	retry(t, err, "status")
}

func TestTransitions(t *testing.T) {
	all := []Status{Pending, InProgress, Done, Cancelled}
	for _, from := range all {
		for _, to := range all {
			l := NewList()
			if _, err := l.Create([]string{"x"}, false); err != nil {
				t.Fatal(err)
			}
			if from != Pending {
				if _, err := l.Update("1", string(from), ""); err != nil {
					t.Fatal(err)
				}
			}
			_, err := l.Update("1", string(to), "")
			allowed := from == to || !from.Final()
			if (err == nil) != allowed {
				t.Errorf("%s → %s: err %v, allowed %v", from, to, err, allowed)
			}
		}
	}
}

func TestSubscribersHearOfChanges(t *testing.T) {
	l := NewList()
	ch, cancel := l.Subscribe()
	if _, err := l.Create([]string{"a"}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := l.Update("1", "done", ""); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ch:
	case <-time.After(time.Minute): // a hang detector
		t.Fatal("no notification")
	}
	// Two changes before the reader looked: one receive, and Snapshot has both.
	select {
	case <-ch:
		t.Fatal("notifications must be coalesced")
	default:
	}
	if s := l.Snapshot(); len(s) != 1 || s[0].Status != Done {
		t.Fatalf("snapshot = %+v", s)
	}
	if l.Clear(true) != 1 {
		t.Fatal("clear")
	}
	<-ch
	if l.Clear(true) != 0 {
		t.Fatal("clear of an empty list")
	}
	select {
	case <-ch:
		t.Fatal("a clear that removed nothing is no change")
	default:
	}
	cancel()
	cancel() // idempotent
	if _, open := <-ch; open {
		t.Fatal("cancel must close the channel")
	}
	if _, err := l.Create([]string{"b"}, false); err != nil { // no subscriber left: must not block or panic
		t.Fatal(err)
	}
}

func TestConcurrentUse(t *testing.T) {
	l := NewList()
	ch, cancel := l.Subscribe()
	defer cancel()
	go func() {
		for range ch {
			_ = l.Snapshot()
		}
	}()
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := 0; j < 10; j++ {
				items, err := l.Create([]string{"x"}, false)
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := l.Update(items[0].ID, "in_progress", "n"); err != nil {
					t.Error(err)
					return
				}
				l.Snapshot()
			}
		}()
	}
	wg.Wait()
	if n := len(l.Snapshot()); n != 80 {
		t.Fatalf("%d items, want 80", n)
	}
	seen := map[string]bool{}
	for _, it := range l.Snapshot() {
		if seen[it.ID] {
			t.Fatalf("id %s used twice", it.ID)
		}
		seen[it.ID] = true
	}
}

func TestFindAndSharedState(t *testing.T) {
	l := NewList()
	reg, err := tools.NewRegistry(l.Tools()...)
	if err != nil {
		t.Fatal(err)
	}
	if Find(reg) != l {
		t.Fatal("Find must return the session's list")
	}
	empty, _ := tools.NewRegistry()
	if Find(empty) != nil {
		t.Fatal("no todo tools: nil")
	}
	// Two sessions do not share a list.
	other := NewList()
	if _, err := other.Create([]string{"x"}, false); err != nil {
		t.Fatal(err)
	}
	if len(l.Snapshot()) != 0 {
		t.Fatal("lists leak between sessions")
	}
	for _, x := range l.Tools() {
		if x.Class() != tools.ReadOnly {
			t.Errorf("%s must run without asking", x.Name())
		}
		if d := tools.Decide(context.Background(), x, json.RawMessage(`{}`)); d.Decision != tools.Allow {
			t.Errorf("%s: %v", x.Name(), d.Decision)
		}
	}
}
