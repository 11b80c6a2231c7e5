package app

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools/todo"
)

// A resumed session gets its todo list back: the saved todo calls that
// succeeded run again, in order; failed ones do not.
func TestResumeRebuildsTheTodoList(t *testing.T) {
	a := allTools(t)
	run := func(name, args string) string {
		tool, _ := a.Tools.Get(name)
		res, err := tool.Run(context.Background(), json.RawMessage(args))
		if err != nil {
			return "error: the tool failed: " + err.Error()
		}
		return res.ForModel()
	}
	calls := [][2]string{
		{"todo_create", `{"items":["write the test","fix the bug"]}`},
		{"todo_update", `{"id":"1","status":"done"}`},
		{"todo_update", `{"id":"9","status":"done"}`}, // fails: no such item
	}
	var h []message.Message
	for i, c := range calls {
		id := string(rune('a' + i))
		h = append(h,
			message.Message{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: id, Name: c[0], Args: c[1]}}},
			message.Message{Role: message.RoleTool, ToolCallID: id, ToolName: c[0], Content: run(c[0], c[1])})
	}
	want := todo.Render(todo.Find(a.Tools).Snapshot())
	todo.Find(a.Tools).Clear(false)
	a2 := allTools(t)
	a2.replayTodos(h)
	if got := todo.Render(todo.Find(a2.Tools).Snapshot()); got != want || len(todo.Find(a2.Tools).Snapshot()) != 2 {
		t.Fatalf("replayed list:\n%s\nwant:\n%s", got, want)
	}
}
