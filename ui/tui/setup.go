package tui

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	xansi "github.com/charmbracelet/x/ansi"

	"github.com/co-cli/co/ui/setup"
)

// The first-run setup (ui/setup): when co starts with no provider, a box
// over the chat asks for one — Gemini, Ollama or an OpenAI-compatible
// server —, with a one-line field that shows a key as dots only. Enter
// answers, Esc skips; /setup opens it again. The flow's network steps
// (looking for Ollama, listing models, saving) run in commands, never in
// Update. What is typed into the field is never drawn for a key, never
// kept in the input history, and never reaches the transcript.

// setupView is the setup box while it is open.
type setupView struct {
	flow   *setup.Flow
	th     *Theme
	field  textinput.Model
	prompt setup.Prompt // the question being asked (read from flow while idle)
	said   string       // the last answer's message
	err    bool
	busy   bool // the flow is working (a command runs)
	w, h   int
	box    string
}

// setupStartedMsg: the flow has looked for Ollama.
type setupStartedMsg struct{}

// setupAnsweredMsg brings what an answer did.
type setupAnsweredMsg struct{ r setup.Result }

func newSetupView(th *Theme, flow *setup.Flow, w, h int) *setupView {
	v := &setupView{flow: flow, th: th, busy: true}
	v.field = textinput.New()
	v.field.Prompt = ""
	v.field.CharLimit = 500
	st := textinput.DefaultStyles(th.Name == "dark")
	st.Focused.Text = lipgloss.NewStyle()
	st.Cursor.Blink = false // no ticks: a blinking cursor redraws the screen twice a second
	v.field.SetStyles(st)
	v.field.Focus()
	v.SetSize(w, h)
	return v
}

// openSetup opens the setup box and starts the flow off the loop.
func (a *App) openSetup() tea.Cmd {
	if a.setupEnv == nil || a.setup != nil {
		return nil
	}
	flow := setup.New(*a.setupEnv)
	a.setup = newSetupView(a.th, flow, a.width, max(a.height-1, 1))
	return safeCmd(func() tea.Msg {
		flow.Start(context.Background())
		return setupStartedMsg{}
	})
}

func (a *App) handleSetupStarted() {
	if a.setup == nil {
		return
	}
	a.setup.ready()
}

// ready shows the flow's next question.
func (v *setupView) ready() {
	v.busy = false
	v.prompt = v.flow.Prompt()
	v.field.Reset()
	if v.prompt.Secret {
		v.field.EchoMode = textinput.EchoPassword
		v.field.EchoCharacter = '•'
	} else {
		v.field.EchoMode = textinput.EchoNormal
	}
	v.render()
}

// setupKey handles a key while the box is open: Enter answers, Esc skips,
// anything else edits the field.
func (a *App) setupKey(k tea.KeyPressMsg) tea.Cmd {
	v := a.setup
	switch k.String() {
	case "esc":
		if v.busy {
			return nil
		}
		return a.closeSetup(v.flow.Skip())
	case "enter":
		if v.busy {
			return nil
		}
		line := v.field.Value()
		v.field.Reset()
		v.busy = true
		v.said, v.err = "", false
		v.render()
		flow := v.flow
		return safeCmd(func() tea.Msg {
			return setupAnsweredMsg{flow.Answer(context.Background(), line)}
		})
	}
	var cmd tea.Cmd
	v.field, cmd = v.field.Update(k)
	v.render()
	return cmd
}

// setupPaste puts a paste (a key, a URL) into the field, on one line.
func (a *App) setupPaste(p tea.PasteMsg) tea.Cmd {
	v := a.setup
	if v.busy {
		return nil
	}
	v.field.SetValue(v.field.Value() + strings.TrimSpace(strings.ReplaceAll(p.Content, "\n", "")))
	v.field.CursorEnd()
	v.render()
	return nil
}

func (a *App) handleSetupAnswered(msg setupAnsweredMsg) tea.Cmd {
	v := a.setup
	if v == nil {
		return nil
	}
	if msg.r.Done {
		return a.closeSetup(msg.r)
	}
	v.ready()
	v.said, v.err = msg.r.Said, msg.r.Err
	v.render()
	return nil
}

// closeSetup closes the box, says in the transcript what came of it, and
// sends the prompt given on the command line, if it waited for the setup.
func (a *App) closeSetup(r setup.Result) tea.Cmd {
	a.setup = nil
	if r.Said != "" {
		kind := noticeInfo
		if r.Err {
			kind = noticeError
		}
		a.chat.Add(newNotice(kind, r.Said))
	}
	a.setProvider()
	a.chat.Bottom()
	if text := a.firstPending; text != "" {
		a.firstPending = ""
		return a.handleSubmit(Submission{Text: text, save: a.input.record(text)})
	}
	return nil
}

func (v *setupView) SetSize(w, h int) {
	v.w, v.h = w, h
	v.field.SetWidth(max(v.innerWidth()-3, 4))
	v.render()
}

func (v *setupView) boxWidth() int   { return max(min(v.w-4, 100), 30) }
func (v *setupView) innerWidth() int { return v.boxWidth() - 4 }

// render draws the box; View returns it as it is.
func (v *setupView) render() {
	th, w := v.th, v.innerWidth()
	var q []string
	if v.prompt.Text == "" {
		q = []string{th.Dim.Render("Looking for Ollama…")}
	} else {
		q = wrapHanging(v.prompt.Text, w)
	}
	var said []string
	if v.said != "" {
		style := th.Dim
		if v.err {
			style = th.Error
		}
		for _, l := range wrapText(v.said, w) {
			said = append(said, style.Render(l))
		}
	}
	field := th.KeyHint.Render("› ") + v.field.View()
	var busy []string
	if v.busy && v.prompt.Text != "" {
		busy = []string{th.Dim.Render("checking…")}
	}
	hint := th.Dim.Render("enter: next · esc: skip (/setup opens this again)")
	q, said, spaced, titled := fitSetup(q, said, v.h-2-2-len(busy)) // borders, field, hint
	var lines []string
	if titled {
		lines = append(lines, th.Title.Render("Set up a provider"))
		if spaced {
			lines = append(lines, "")
		}
	}
	lines = append(lines, q...)
	if spaced {
		lines = append(lines, "")
	}
	lines = append(lines, field)
	lines = append(lines, busy...)
	lines = append(lines, said...)
	if spaced {
		lines = append(lines, "")
	}
	lines = append(lines, hint)
	for i, l := range lines {
		if pad := w - xansi.StringWidth(l); pad > 0 {
			lines[i] = l + strings.Repeat(" ", pad)
		} else if pad < 0 {
			lines[i] = truncate(l, w)
		}
	}
	v.box = th.Modal.Render(strings.Join(lines, "\n"))
}

// fitSetup fits the question and what the last answer said into room
// lines, so the field and the key hints are always on screen: it drops
// the blank lines, then the title, then cuts the question (a name not
// shown can still be typed), then what was said, keeping a line of each.
func fitSetup(q, said []string, room int) (_, _ []string, spaced, titled bool) {
	need := func() int {
		n := len(q) + len(said)
		if spaced {
			n += 3
		}
		if titled {
			n++
		}
		return n
	}
	spaced, titled = true, true
	if need() > room {
		spaced = false
	}
	if need() > room {
		titled = false
	}
	if over := need() - room; over > 0 && len(q) > 1 {
		keep := max(len(q)-over-1, 1)
		more := "  …"
		if slices.ContainsFunc(q[keep:], isChoice) {
			more = "  … (more: type a name)"
		}
		q = append(q[:keep:keep], more)
	}
	if over := need() - room; over > 0 && len(said) > 1 {
		keep := max(len(said)-over, 1)
		said = append(said[:keep-1:keep-1], strings.TrimRight(said[keep-1], " ")+" …")
	}
	return q, said, spaced, titled
}

// isChoice tells a line of a numbered list ("   2  Ollama: …").
func isChoice(l string) bool {
	f := strings.Fields(l)
	if len(f) < 2 || !strings.HasPrefix(l, " ") {
		return false
	}
	_, err := strconv.Atoi(f[0])
	return err == nil
}

func (v *setupView) View() string { return v.box }
