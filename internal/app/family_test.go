package app

import (
	"testing"

	"github.com/co-cli/co/agent"
)

// Spans carry the tool's family, as the design's observability section
// asks: every registered tool has one of the known families.
func TestEveryToolHasAFamily(t *testing.T) {
	a := allTools(t)
	want := map[string]string{
		"run_shell_command": "shell", "read_file": "files", "search_drive_files": "google",
		"list_slack_channels": "slack", "search_notes": "notes", "web_fetch": "web", "todo_create": "todo", "save_memory": "memory",
		"read_skill": "skills",
	}
	known := map[string]bool{"shell": true, "files": true, "google": true, "slack": true, "notes": true, "web": true, "todo": true, "skills": true, "memory": true}
	for _, tool := range a.Tools.All() {
		f := agent.ToolFamily(tool)
		if !known[f] {
			t.Errorf("%s: family %q", tool.Name(), f)
		}
		if w, ok := want[tool.Name()]; ok && f != w {
			t.Errorf("%s: family %q, want %q", tool.Name(), f, w)
		}
		// llm_tool_groups picks tools by name: each lands in its family's group.
		if g := agent.ToolGroup(tool.Name()); g != f {
			t.Errorf("%s: ToolGroup %q, but its family is %q", tool.Name(), g, f)
		}
	}
}
