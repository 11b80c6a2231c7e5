package tui

import (
	"context"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"

	"github.com/charmbracelet/colorprofile"
	uv "github.com/charmbracelet/ultraviolet"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/provider"
)

// frameRenderer does to each frame what Bubble Tea's renderer does: parse
// the view into cells, diff against the last frame, write the changes.
type frameRenderer struct {
	buf uv.ScreenBuffer
	scr *uv.TerminalRenderer
}

func newFrameRenderer(w, h int) *frameRenderer {
	scr := uv.NewTerminalRenderer(io.Discard, []string{"TERM=xterm-256color"})
	scr.SetColorProfile(colorprofile.ANSI256)
	scr.SetFullscreen(true)
	scr.SetScrollOptim(true)
	scr.SetTabStops(-1)
	return &frameRenderer{buf: uv.NewScreenBuffer(w, h), scr: scr}
}

func (r *frameRenderer) frame(content string) {
	r.buf.Clear()
	uv.NewStyledString(content).Draw(r.buf, r.buf.Bounds())
	r.scr.Render(r.buf.RenderBuffer)
	_ = r.scr.Flush()
}

func benchReply() string {
	parts := []string{
		"## Overview\n\nThe service reads **events** from the queue, validates them against the `schema`, and writes the accepted ones to the store.\n\n",
		"- Parse the payload and check the version field.\n- Reject events older than the retention window.\n\n",
		"```go\nfunc (s *Service) Handle(ctx context.Context, ev Event) error {\n\treturn s.store.Put(ctx, ev)\n}\n```\n\n",
		"| setting | default |\n|---|---|\n| `batch_size` | 500 |\n\n",
	}
	var b strings.Builder
	for i := 0; b.Len() < 8000; i++ {
		b.WriteString(parts[i%len(parts)])
	}
	return b.String()
}

// BenchmarkStreamedReply streams an 8,000-character reply in frames of
// about 60 characters (what ~30 frames a second carry at 500 chunks a
// second) after 10 or 1,000 earlier messages: model update, view and the
// renderer's work per frame. The two must cost about the same.
func BenchmarkStreamedReply(b *testing.B) {
	reply := benchReply()
	for _, earlier := range []int{10, 1000} {
		b.Run(fmt.Sprintf("earlier=%d", earlier), func(b *testing.B) {
			a, fr := benchChat(earlier, "Answer %d: the **value** is `%d`.\n\n- checked\n- verified")
			frames := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				a.turn++
				a.pump = &pump{turn: a.turn}
				a.reply = nil
				for off := 0; off < len(reply); off += 60 {
					a.handleAgentEvent(agentEventMsg{Turn: a.turn, Event: agent.TextDelta{Text: reply[off:min(off+60, len(reply))]}})
					fr.frame(a.View().Content)
					frames++
				}
				a.endReply(false)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(frames)/1000, "µs/frame")
		})
	}
}

// benchChat is a 120×40 chat with earlier messages (half questions, half
// answers made from answer, a format of two %d), its first frame drawn.
func benchChat(earlier int, answer string) (*App, *frameRenderer) {
	ag := agent.New(agent.Config{Provider: provider.Provider{Name: "openai", Model: "m"}})
	a := New(context.Background(), Options{Agent: ag, Environ: []string{}, Theme: "dark"})
	a.Update(windowSize(120, 40))
	for i := 0; i < earlier/2; i++ {
		a.chat.Add(newUserEntry(fmt.Sprintf("question %d", i)))
		r := &assistantEntry{}
		r.append(fmt.Sprintf(answer, i, i))
		r.finish(false)
		a.chat.Add(r)
	}
	fr := newFrameRenderer(120, 40)
	fr.frame(a.View().Content)
	return a, fr
}

// BenchmarkStreamedReasoning streams 8,000 characters of reasoning in
// 60-character frames after 10 or 1,000 earlier messages: a frame costs
// the reasoning's unfinished line, not the reasoning so far nor the
// conversation.
func BenchmarkStreamedReasoning(b *testing.B) {
	var sb strings.Builder
	for i := 0; sb.Len() < 8000; i++ {
		fmt.Fprintf(&sb, "Step %d: the value could be %d, so check the divisors of it before going on with the next one. ", i, i*7)
		if i%4 == 3 {
			sb.WriteString("\n\n")
		}
	}
	text := sb.String()
	for _, earlier := range []int{10, 1000} {
		b.Run(fmt.Sprintf("earlier=%d", earlier), func(b *testing.B) {
			a, fr := benchChat(earlier, "Answer %d: the **value** is `%d`.")
			frames := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				a.turn++
				a.pump = &pump{turn: a.turn}
				a.think = nil
				for off := 0; off < len(text); off += 60 {
					a.handleAgentEvent(agentEventMsg{Turn: a.turn, Event: agent.ReasoningDelta{Text: text[off:min(off+60, len(text))]}})
					fr.frame(a.View().Content)
					frames++
				}
				a.endThink(a.now())
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(frames)/1000, "µs/frame")
		})
	}
}

// BenchmarkLongConversationHeap plays 100 turns, then 900 more (those of
// TestLongConversationKeepsRenderedLinesBounded), and reports the live
// heap each turn after the 100th adds, beside the bytes of text the turn
// brings (question, tool output, reply): what the view keeps beyond the
// text itself. Run it with -benchtime 1x.
func BenchmarkLongConversationHeap(b *testing.B) {
	live := func() uint64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return m.HeapAlloc
	}
	var grown, text uint64
	for range b.N {
		a := longChat(100, 100, 30)
		before := live()
		n := 0
		for i := 100; i < 1000; i++ {
			longTurn(a, i)
		}
		for _, e := range a.chat.entries[1:] {
			n += len(e.plain())
		}
		after := live()
		grown += (after - before) / 900
		text += uint64(n) / 1000
		runtime.KeepAlive(a)
	}
	b.ReportMetric(float64(grown)/float64(b.N), "heap-B/turn")
	b.ReportMetric(float64(text)/float64(b.N), "text-B/turn")
}
