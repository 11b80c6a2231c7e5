package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unsafe"

	xansi "github.com/charmbracelet/x/ansi"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

// longTurn is turn i of a long conversation: a question, a tool call and
// its output, a markdown reply with a list, a code block and a table,
// streamed in chunks.
func longTurn(a *App, i int) {
	a.turn++
	a.pump = &pump{turn: a.turn}
	a.chat.Add(newUserEntry(fmt.Sprintf("question %d: how is event %d handled?", i, i)))
	id := fmt.Sprintf("call-%d", i)
	a.handleAgentEvent(agentEventMsg{Turn: a.turn, Event: agent.ToolCallStarted{CallID: id, Name: "shell", Args: fmt.Sprintf(`{"command":"grep -n Handle svc_%d.go"}`, i)}})
	out := fmt.Sprintf("svc_%d.go:12:func (s *Service) Handle(ctx context.Context) error {\nsvc_%d.go:40:\treturn s.Handle(ctx)", i, i)
	a.handleAgentEvent(agentEventMsg{Turn: a.turn, Event: agent.ToolCallFinished{CallID: id, Name: "shell", Status: message.CallDone, Duration: time.Second, Result: tools.Result{Display: out}}})
	reply := fmt.Sprintf("Turn **%d**: the handler checks `ev.Version`.\n\n- parse it\n- store it\n\n```go\nreturn s.store.Put(ctx, %d)\n```\n\n| key | value |\n|---|---|\n| turn | %d |\n\nEnd of reply %d.", i, i, i, i)
	// Two chunks: the first ends inside the code block.
	cut := strings.Index(reply, "return")
	a.handleAgentEvent(agentEventMsg{Turn: a.turn, Event: agent.TextDelta{Text: reply[:cut]}})
	a.handleAgentEvent(agentEventMsg{Turn: a.turn, Event: agent.TextDelta{Text: reply[cut:]}})
	a.handleAgentEvent(agentEventMsg{Turn: a.turn, Event: agent.TurnFinished{}})
	if i%10 == 0 {
		a.View()
	}
}

// longChat is a chat of w×h after turns turns.
func longChat(turns, w, h int) *App {
	ag := agent.New(agent.Config{Provider: provider.Provider{Name: "openai", Model: "m"}})
	a := New(context.Background(), Options{Agent: ag, Environ: []string{}, Theme: "dark"})
	a.Update(windowSize(w, h))
	for i := range turns {
		longTurn(a, i)
	}
	return a
}

// heldRenderedLines counts the rendered lines the chat's entries hold, at
// any width, from their caches.
func heldRenderedLines(c *Chat) int {
	n := 0
	for _, e := range c.entries {
		switch e := e.(type) {
		case *assistantEntry:
			m := len(e.md.tail)
			for _, b := range e.md.blocks {
				if b.r != nil {
					m += len(b.r.lines)
				}
			}
			n += max(m, len(e.lines))
		case *reasoningEntry:
			n += max(len(e.lines), len(e.body))
		case *userEntry:
			n += len(e.lines)
		case *toolEntry:
			n += len(e.lines)
		case *noticeEntry:
			n += len(e.lines)
		case *welcomeEntry:
			n += len(e.lines)
		}
	}
	return n
}

// TestLongConversationKeepsRenderedLinesBounded plays 1,000 turns: the
// rendered lines the chat holds after 1,000 are no more than after 100
// (they are bounded by a constant, not by the conversation), and the top
// of the transcript, released long ago, shows as a fresh render would.
func TestLongConversationKeepsRenderedLinesBounded(t *testing.T) {
	a := longChat(100, 100, 30)
	at100 := heldRenderedLines(a.chat)
	for i := 100; i < 1000; i++ {
		longTurn(a, i)
	}
	at1000 := heldRenderedLines(a.chat)
	t.Logf("rendered lines held: %d after 100 turns, %d after 1,000", at100, at1000)
	if at1000 > at100+at100/5 {
		t.Errorf("the chat holds %d rendered lines after 1,000 turns against %d after 100: what it renders grows with the conversation", at1000, at100)
	}
	want := freshLines(t, a.chat, 12)
	a.chat.Top()
	step := a.chat.height - 1
	sameRows(t, a.chat.Rows()[:step], want[:step])
}

// TestScrollingBackShowsEveryLine plays a conversation long enough that
// the chat has released most of what it rendered, then pages from the
// top to the end: every line of every message shows, as a chat that
// rendered each of them afresh would show it.
func TestScrollingBackShowsEveryLine(t *testing.T) {
	a := longChat(80, 100, 30)
	want := freshLines(t, a.chat, len(a.chat.entries))
	if held := heldRenderedLines(a.chat); held > len(want)*3/4 {
		t.Fatalf("the chat holds %d of the transcript's %d lines: nothing was released to render again", held, len(want))
	}
	// From the top, page by page: each page shows the lines after the
	// last one (its last row says there is more below), and the end shows
	// the last lines.
	a.chat.Top()
	ch := a.chat.height
	step := ch - 1
	for pos := 0; !a.chat.Following(); pos += step {
		sameRows(t, a.chat.Rows()[:step], want[pos:pos+step])
		a.chat.ScrollDown(step)
	}
	sameRows(t, a.chat.Rows(), want[len(want)-ch:])
}

// freshLines is the transcript's first n entries, each rendered afresh,
// one after another with a blank line between them, without styles.
func freshLines(t *testing.T, c *Chat, n int) []string {
	t.Helper()
	fresh := NewChat(c.rc.th, c.rc.md)
	fresh.SetSize(c.width, c.height)
	var want []string
	for i, e := range c.entries[:n] {
		if i > 0 {
			want = append(want, "")
		}
		for _, l := range copyEntry(t, e).render(fresh.inner(), &fresh.rc) {
			want = append(want, xansi.Strip(l))
		}
	}
	return want
}

func sameRows(t *testing.T, rows []row, want []string) {
	t.Helper()
	if len(rows) != len(want) {
		t.Fatalf("%d rows on screen, want %d", len(rows), len(want))
	}
	for i, r := range rows {
		if got := xansi.Strip(r.text); got != want[i] {
			t.Fatalf("row %d: %q, want %q", i, got, want[i])
		}
	}
}

// copyEntry is e as it was before it rendered anything.
func copyEntry(t *testing.T, e entry) entry {
	switch e := e.(type) {
	case *assistantEntry:
		c := &assistantEntry{interrupted: e.interrupted}
		c.md.append(e.plain())
		c.md.finish()
		return c
	case *userEntry:
		c := *e
		c.lineCache = lineCache{}
		return &c
	case *toolEntry:
		c := *e
		c.lineCache = lineCache{}
		return &c
	case *noticeEntry:
		c := *e
		c.lineCache = lineCache{}
		return &c
	case *welcomeEntry:
		c := *e
		c.lineCache = lineCache{}
		return &c
	}
	t.Fatalf("no copy for %T", e)
	return nil
}

// TestReleasedBlockIsItsOffsets: a finished block of a reply the chat has
// released costs its two offsets and a nil pointer, not room for its
// lines, their widths and the width they were rendered at; the render
// comes back, the same, when the reply is drawn again.
func TestReleasedBlockIsItsOffsets(t *testing.T) {
	if got, want := unsafe.Sizeof(mdBlock{}), 3*unsafe.Sizeof(0); got > want {
		t.Fatalf("a reply's block record is %d bytes, want at most %d (two offsets and a pointer)", got, want)
	}
	md := testMarkdown()
	var s mdStream
	s.append("## Title\n\nSome **text**.\n\n- one\n- two\n\n```go\nfunc f() {}\n```\n\nThe end.")
	s.finish()
	before, _, _ := s.render(md, 60, 0)
	before = slices.Clone(before)
	if len(s.blocks) < 4 {
		t.Fatalf("want the reply cut into blocks, got %d", len(s.blocks))
	}
	s.release()
	for i, b := range s.blocks {
		if b.r != nil {
			t.Fatalf("block %d keeps its render after release", i)
		}
	}
	if s.heldLines() != 0 {
		t.Fatalf("held lines after release: %d", s.heldLines())
	}
	after, _, _ := s.render(md, 60, 0)
	if !slices.Equal(before, after) {
		t.Fatalf("render after release differs:\n%q\n%q", before, after)
	}
}
