package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/co-cli/co/tools"
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
