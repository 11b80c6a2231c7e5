package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/todo"
)

type named string

func (n named) Name() string          { return string(n) }
func (named) Description() string     { return "" }
func (named) Schema() json.RawMessage { return json.RawMessage(`{"type":"object"}`) }
func (named) Class() tools.Class      { return tools.SideEffect }
func (named) Run(context.Context, json.RawMessage) (tools.Result, error) {
	return tools.Result{}, nil
}

// /tools keeps one column when an MCP tool's name is longer than the
// built-in ones.
func TestToolsListingKeepsOneColumn(t *testing.T) {
	reg, err := tools.NewRegistry(named("read_file"), named("mcp__everything__get-annotated-message"))
	if err != nil {
		t.Fatal(err)
	}
	out := toolsListing(reg, nil)
	col := -1
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		i := strings.Index(line, "asks")
		if col >= 0 && i != col {
			t.Fatalf("the class column moves (%d, then %d):\n%s", col, i, out)
		}
		col = i
	}
}

// /tools names the tools co does not send, and why.
func TestToolsListingNotSent(t *testing.T) {
	reg, err := tools.NewRegistry(named("read_file"), named("web_fetch"), named("todo_list"))
	if err != nil {
		t.Fatal(err)
	}
	all := func(string) bool { return true }
	if got := notSentLine(reg, all, ""); got != "" {
		t.Fatalf("all sent: %q", got)
	}
	files := func(n string) bool { return n == "read_file" }
	got := notSentLine(reg, files, "only the shell and files tools")
	if !strings.Contains(got, "context window is small") || !strings.Contains(got, "web_fetch, todo_list") || strings.Contains(got, "read_file") {
		t.Fatalf("small window: %q", got)
	}
	if got := notSentLine(reg, files, ""); !strings.Contains(got, "(llm_tool_groups)") {
		t.Fatalf("setting: %q", got)
	}
}

// The todo tools that write the list run at once but are not called
// read-only (issue 27); todo_list is.
func TestToolsListingTodoToolsAreNotReadOnly(t *testing.T) {
	reg, err := tools.NewRegistry(todo.NewList().Tools()...)
	if err != nil {
		t.Fatal(err)
	}
	out := toolsListing(reg, nil)
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		name := strings.Fields(line)[0]
		readOnly := strings.Contains(line, "read-only")
		if name == "todo_list" != readOnly || !strings.Contains(line, "runs at once") {
			t.Errorf("%s: %q", name, line)
		}
		if name != "todo_list" && !strings.Contains(line, "changes only the run's todo list") {
			t.Errorf("%s: %q", name, line)
		}
	}
}
