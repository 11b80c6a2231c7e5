package telemetry

import (
	"strings"
	"testing"
)

// co tail's line of a scheduled run's turn names its schedule, and a
// delivery's line where it went, so following the store tells a run
// started by the scheduler from the chat.
func TestTailLineNamesTheSchedule(t *testing.T) {
	turn := &Span{Name: "invoke_agent", Attributes: map[string]any{
		"gen_ai.operation.name": "invoke_agent", "co.turn": float64(1), "co.outcome": "success",
		"co.run.kind": "scheduled", "co.schedule.name": "brief",
	}}
	if line := FormatLine(turn); !strings.Contains(line, "schedule=brief") {
		t.Errorf("turn: %s", line)
	}
	chat := &Span{Name: "invoke_agent", Attributes: map[string]any{"gen_ai.operation.name": "invoke_agent", "co.turn": float64(1)}}
	if line := FormatLine(chat); strings.Contains(line, "schedule=") {
		t.Errorf("a chat's turn: %s", line)
	}
	d := &Span{Name: "deliver", Attributes: map[string]any{"co.deliver.to": "slack:#me", "co.schedule.name": "brief"}}
	if line := FormatLine(d); !strings.Contains(line, "to=slack:#me") || !strings.Contains(line, "schedule=brief") {
		t.Errorf("deliver: %s", line)
	}
}
