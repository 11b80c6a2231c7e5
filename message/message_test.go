package message

import (
	"reflect"
	"testing"
)

// A call left without a result gets "Interrupted by the user." right after
// the results its message already has, and the asides after that point
// move with the messages they follow; the input is not modified.
func TestPatchDanglingAnswersEveryCallInPlace(t *testing.T) {
	msgs := []Message{
		{Role: RoleUser, Content: "go"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "c1", Name: "a"}, {ID: "c2", Name: "b"}}},
		{Role: RoleTool, ToolCallID: "c1", ToolName: "a", Content: "one"},
		{Role: RoleUser, Content: "and then"},
	}
	before := append([]Message(nil), msgs...)
	xs := []Aside{{After: 1, Notice: "before the results"}, {After: 3, Notice: "after c1's result"}}
	out, moved := PatchDanglingAsides(msgs, xs)
	want := []Message{
		msgs[0], msgs[1], msgs[2],
		{Role: RoleTool, ToolCallID: "c2", ToolName: "b", Content: InterruptedResult},
		msgs[3],
	}
	if !reflect.DeepEqual(out, want) {
		t.Fatalf("patched\n%+v\nwant\n%+v", out, want)
	}
	if moved[0].After != 1 || moved[1].After != 4 {
		t.Errorf("asides at %d and %d, want 1 and 4", moved[0].After, moved[1].After)
	}
	if !reflect.DeepEqual(msgs, before) || xs[1].After != 3 {
		t.Error("the input was modified")
	}
	if again := PatchDangling(out); !reflect.DeepEqual(again, out) {
		t.Errorf("a patched history patched again changed: %+v", again)
	}
}

// A call whose id an earlier turn's call had too (servers that number
// calls per response) is still answered when its own result is missing,
// and ResultOf finds each call's own result.
func TestPatchDanglingMatchesIDsWithinTheirTurn(t *testing.T) {
	msgs := []Message{
		{Role: RoleUser, Content: "list"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "call_0", Name: "ls"}}},
		{Role: RoleTool, ToolCallID: "call_0", ToolName: "ls", Content: "a.go"},
		{Role: RoleAssistant, Content: "one file"},
		{Role: RoleUser, Content: "write"},
		{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "call_0", Name: "write_file"}}},
	}
	patch := Message{Role: RoleTool, ToolCallID: "call_0", ToolName: "write_file", Content: InterruptedResult}
	if out := PatchDangling(msgs); !reflect.DeepEqual(out, append(append([]Message(nil), msgs...), patch)) {
		t.Fatalf("patched:\n%+v", out)
	}
	if got := Unanswered(msgs); !reflect.DeepEqual(got, []Message{patch}) {
		t.Errorf("Unanswered = %+v", got)
	}
	if r, ok := ResultOf(msgs, 1, "call_0"); !ok || r.Content != "a.go" {
		t.Errorf("ResultOf the first turn's call = %+v, %v", r, ok)
	}
	if r, ok := ResultOf(msgs, 5, "call_0"); ok {
		t.Errorf("the second turn's call has no result, got %+v", r)
	}
}
