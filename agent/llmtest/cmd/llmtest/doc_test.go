package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/co-cli/co/tools/shell"
)

// The script example in the command's doc comment calls co's shell tool by
// its real name and arguments, so copying it gives a working demo.
func TestDocExampleCallsTheRealShellTool(t *testing.T) {
	src, err := os.ReadFile("main.go")
	if err != nil {
		t.Fatal(err)
	}
	// The example is the indented JSON array of the doc comment.
	var js strings.Builder
	in := false
	for _, line := range strings.Split(string(src), "\n") {
		text, ok := strings.CutPrefix(line, "//\t")
		switch {
		case ok && strings.TrimSpace(text) == "[":
			in = true
		case !ok:
			in = false
		}
		if in {
			js.WriteString(text + "\n")
		}
	}
	var script []struct {
		ToolCalls []struct {
			Name string          `json:"name"`
			Args json.RawMessage `json:"args"`
		} `json:"tool_calls"`
	}
	if err := json.Unmarshal([]byte(js.String()), &script); err != nil {
		t.Fatalf("the doc example is not a JSON script: %v\n%s", err, js.String())
	}
	var schema struct {
		Properties map[string]any `json:"properties"`
	}
	if err := json.Unmarshal(new(shell.Tool).Schema(), &schema); err != nil {
		t.Fatal(err)
	}
	calls := 0
	for _, r := range script {
		for _, c := range r.ToolCalls {
			calls++
			if c.Name != shell.Name {
				t.Errorf("the example calls %q; co's shell tool is %q", c.Name, shell.Name)
			}
			var args map[string]any
			if err := json.Unmarshal(c.Args, &args); err != nil {
				t.Fatalf("args %s: %v", c.Args, err)
			}
			for k := range args {
				if _, ok := schema.Properties[k]; !ok {
					t.Errorf("the example passes %q; %s takes %v", k, shell.Name, schema.Properties)
				}
			}
		}
	}
	if calls == 0 {
		t.Error("the doc example has no tool call")
	}
}
