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
