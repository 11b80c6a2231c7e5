package tui

import (
	"strings"
	"testing"
	"time"

	xansi "github.com/charmbracelet/x/ansi"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/telemetry"
	"github.com/co-cli/co/tools"
)

func screenRC() *renderCtx {
	th := NewTheme("dark", false)
	return &renderCtx{th: &th, collapseLines: 5}
}

func plainLines(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = xansi.Strip(l)
	}
	return out
}

// A call whose arguments hold newlines and tabs stays one line in the
// transcript (⏎, \t), cut at the width; expanding it shows the full text.
func TestToolEntryMultilineArgsOneLine(t *testing.T) {
	rc := screenRC()
	now := time.Now()
	e := newToolEntry(agent.ToolCallStarted{CallID: "1", Name: "write_file",
		Args: `{"path":"a.md","content":"# Hello\nworld\tend"}`}, now)
	e.finish(agent.ToolCallFinished{CallID: "1", Status: agent.CallDone, Duration: time.Millisecond, Result: tools.Text("wrote a.md")})
	lines := plainLines(e.render(80, rc))
	if !strings.Contains(lines[0], `content='# Hello⏎world\tend'`) {
		t.Fatalf("title = %q, want the content on one line with ⏎ and \\t", lines[0])
	}
	for _, l := range lines {
		if strings.HasPrefix(l, "world") || xansi.StringWidth(l) > 80 {
			t.Fatalf("line %q spills out of the entry:\n%s", l, strings.Join(lines, "\n"))
		}
	}
	long := newToolEntry(agent.ToolCallStarted{CallID: "2", Name: "run_shell_command",
		Args: `{"cmd":"` + strings.Repeat("echo a; ", 30) + `"}`}, now)
	if l := plainLines(long.render(60, rc)); len(l) != 1 || xansi.StringWidth(l[0]) > 60 || !strings.Contains(l[0], "…") {
		t.Fatalf("long call not cut at the width: %q", l)
	}
	if !e.collapsible(rc) {
		t.Fatal("a call with a cut title cannot be expanded")
	}
	e.expanded = true
	e.invalidate()
	full := strings.Join(plainLines(e.render(80, rc)), "\n")
	if !strings.Contains(full, "# Hello\n") || !strings.Contains(full, "world   end") {
		t.Fatalf("expanded view lacks the full text:\n%s", full)
	}
	if got := e.plain(); !strings.Contains(got, "# Hello\nworld\tend") {
		t.Fatalf("copied text = %q", got)
	}
}

// A span or todo with a newline keeps the side panel's rows in their column.
func TestSidePanelNewlineName(t *testing.T) {
	th := NewTheme("dark", false)
	p := NewSidePanel(&th)
	p.SetSize(30, 8)
	now := time.Now()
	p.Apply(telemetry.SpanEvent{TraceID: "t", SpanID: "a", Name: "execute_tool write\nfile\tx", Start: now, End: now.Add(time.Millisecond)})
	p.SetTodos([]string{"1 todo", "☐ first\nsecond"})
	rows := p.Rows()
	if len(rows) != 8 {
		t.Fatalf("panel has %d rows, want 8:\n%s", len(rows), p.View())
	}
	for _, r := range rows {
		if w := xansi.StringWidth(r); w != 30 {
			t.Fatalf("row %q is %d wide, want 30:\n%s", xansi.Strip(r), w, p.View())
		}
	}
	if v := xansi.Strip(p.View()); !strings.Contains(v, "write⏎file") || !strings.Contains(v, "first⏎second") {
		t.Fatalf("newlines not shown as ⏎:\n%s", v)
	}
}
