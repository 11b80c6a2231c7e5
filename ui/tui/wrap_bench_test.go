package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

// benchOutput is a command's output of long lines of words (a log), and
// one line of 64 KiB with no space (minified JSON: the sandbox's cap).
func benchOutput() (words, oneLine string) {
	var b strings.Builder
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&b, "2026-12-07T03:%02d:00Z level=info msg=\"request served\" path=/api/v1/items/%d status=200 duration=12ms bytes=5120 user_agent=\"curl/8.5.0\"\n", i%60, i)
	}
	return b.String(), strings.Repeat(`{"k":"v"},`, 64<<10/10)
}

// BenchmarkToolOutputRender renders one finished call's output, expanded,
// at 120 columns: lines of words, and one 64 KiB line without a space.
func BenchmarkToolOutputRender(b *testing.B) {
	words, oneLine := benchOutput()
	for name, out := range map[string]string{"words": words, "oneLine": oneLine} {
		b.Run(name, func(b *testing.B) {
			th := NewTheme("dark", false)
			rc := &renderCtx{th: &th, collapseLines: 8}
			e := newToolEntry(agent.ToolCallStarted{CallID: "c", Name: "run_shell_command", Args: `{"cmd":"cat log"}`}, time.Time{})
			e.finish(agent.ToolCallFinished{CallID: "c", Status: message.CallDone, Result: tools.Result{Display: out}})
			e.expanded = true
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				e.invalidate()
				e.render(120, rc)
			}
		})
	}
}

// BenchmarkStreamedReplyAfterToolOutput streams a reply after 10 or 1,000
// earlier calls with long output: a frame costs the same whatever came
// before, as the outputs, once wrapped, are not wrapped again.
func BenchmarkStreamedReplyAfterToolOutput(b *testing.B) {
	reply := benchReply()
	words, _ := benchOutput()
	for _, earlier := range []int{10, 1000} {
		b.Run(fmt.Sprintf("earlier=%d", earlier), func(b *testing.B) {
			a, fr := benchChat(0, "")
			for i := 0; i < earlier; i++ {
				e := newToolEntry(agent.ToolCallStarted{CallID: fmt.Sprint(i), Name: "run_shell_command", Args: `{"cmd":"cat log"}`}, time.Time{})
				e.finish(agent.ToolCallFinished{CallID: fmt.Sprint(i), Status: message.CallDone, Result: tools.Result{Display: words}})
				a.chat.Add(e)
			}
			fr.frame(a.View().Content)
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
