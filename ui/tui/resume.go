package tui

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/ui/mention"
	"github.com/co-cli/co/ui/present"
)

// showHistory adds the conversation (agent.Shown) to the transcript (a
// resumed session, or one picked with /sessions): what was said, each
// tool call with its outcome, replies cut short marked interrupted, a
// summary as the notice it was, and a last line naming the session. A
// resumed session shows every saved message, also those a saved
// compaction replaced, its notice where it happened. Entries render
// lazily, so a long conversation costs little until it is scrolled. last
// is that line ("": "Resumed session ID; type to continue.").
func (a *App) showHistory(last string) {
	now := a.now()
	h, asides := a.agent.Shown()
	// showAsides adds the !cmd runs and notices placed before message i.
	noticeAt := -1
	showAsides := func(i int) {
		for len(asides) > 0 && asides[0].After <= i {
			x := asides[0]
			asides = asides[1:]
			if b := x.Bang; b != nil {
				a.chat.Add(newUserEntry("!" + present.BangCommand(b.Args)))
				t := newToolEntry(agent.ToolCallStarted{CallID: b.Finished.CallID, Name: b.Finished.Name, Args: b.Args, Bang: true}, now)
				t.finish(agent.ToolCallFinished(b.Finished))
				a.chat.Add(t)
				continue
			}
			a.chat.Add(newNotice(noticeInfo, x.Notice))
			noticeAt = i
		}
	}
	for i, m := range h {
		showAsides(i)
		switch m.Role {
		case message.RoleUser:
			if strings.HasPrefix(m.Content, agent.SummaryIntro) {
				// What the live turn said when it summarised, not the
				// summary itself (it is for the model); the saved notice,
				// with its count, when there is one.
				if noticeAt != i {
					a.chat.Add(newNotice(noticeInfo, "Summarised older messages to stay within the context."))
				}
				continue
			}
			text, piped, isPiped := message.SplitPiped(m.Content)
			text, atts := mention.Split(text)
			if m.Shown != "" { // /NAME ARGS, as it was typed
				text = m.Shown
			}
			a.chat.Add(newUserEntry(text))
			a.addAttachments(atts)
			a.addMedia(m.Attachments)
			if isPiped { // a co run's: its size and mark only, never its text
				a.chat.Add(newNotice(noticeAttach, "attached "+piped.Summary()))
			}
		case message.RoleAssistant:
			if m.Reasoning != "" && !a.hideReasoning {
				if r := savedReasoning(m.Reasoning, a.keys.Reasoning.Help().Key); !r.empty() {
					a.chat.Add(r)
				}
			}
			if m.Content != "" {
				e := &assistantEntry{}
				e.append(m.Content)
				e.finish(m.Interrupted)
				a.chat.Add(e)
			}
			for _, c := range m.ToolCalls {
				t := newToolEntry(agent.ToolCallStarted{CallID: c.ID, Name: c.Name, Args: c.Args}, now)
				r, _ := message.ResultOf(h, i, c.ID)
				t.finish(agent.Outcome(c, r))
				a.chat.Add(t)
			}
		}
	}
	showAsides(len(h))
	if id := a.agent.SessionID(); last == "" && id != "" {
		last = "Resumed session " + id + "; type to continue."
	}
	if last != "" {
		a.chat.Add(newNotice(noticeInfo, last))
	}
	if n := agent.HeldNotice(a.agent.Risk()); n != "" {
		a.chat.Add(newNotice(noticeWarn, n))
	}
	a.chat.Bottom()
}

// compactedMsg reports the end of /compact.
type compactedMsg struct {
	n   int
	err error
}

// compact runs /compact off the UI goroutine.
func (a *App) compact() tea.Cmd {
	ag := a.agent
	return safeCmd(func() tea.Msg {
		n, err := ag.Compact(context.Background())
		return compactedMsg{n: n, err: err}
	})
}

func (a *App) handleCompacted(msg compactedMsg) {
	if msg.err != nil {
		a.chat.Add(newNotice(noticeError, msg.err.Error()))
	} else {
		a.chat.Add(newNotice(noticeInfo, agent.CompactedNotice(msg.n)))
	}
	a.chat.Bottom()
	a.refreshStatus()
}
