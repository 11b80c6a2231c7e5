package tui

import (
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	xansi "github.com/charmbracelet/x/ansi"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/tools"
)

// FormModal shows an MCP server's form (agent.FormRequested) over the
// chat: its fields from the requested schema, defaults filled in. Keys:
// tab/↓ and shift+tab/↑ move between fields, enter moves on and on the
// last field sends, ctrl+s sends, ctrl+d declines, esc cancels (dismisses)
// the form, ctrl+c cancels the turn. A choice field takes ←/→ (a
// multi-select: ←/→ to an option, space to tick it); yes/no takes space,
// y or n. Like the approval modal it swallows keys for ApprovalGrace, so
// typing meant for the prompt never fills anything in.
type FormModal struct {
	req        agent.FormRequested
	th         *Theme
	w, h       int
	idx        int
	inputs     []textinput.Model // text, number and integer fields
	choice     []int             // a choice field's option; -1: none
	ticked     [][]bool          // a multi-select field's options
	cursor     []int             // a multi-select field's option under the cursor
	boolean    []int             // -1 unset, 0 no, 1 yes
	note       string            // what was wrong with the last send
	graceUntil time.Time
	opened     time.Time // when it showed (NewFormModal)
	armed      bool      // the grace period is over: the keys line shows
}

// formArmedMsg ends the form's grace period (its keys line shows).
type formArmedMsg struct{ form *FormModal }

// ArmCmd is the tick that ends the grace period.
func (m *FormModal) ArmCmd() tea.Cmd {
	return tea.Tick(ApprovalGrace, func(time.Time) tea.Msg { return formArmedMsg{form: m} })
}

// Arm handles the grace tick; another tick while keys keep extending it.
func (m *FormModal) Arm(now time.Time) tea.Cmd {
	if m.armed {
		return nil
	}
	if now.Before(m.graceUntil) {
		return tea.Tick(m.graceUntil.Sub(now), func(time.Time) tea.Msg { return formArmedMsg{form: m} })
	}
	m.armed = true
	return nil
}

// FormResult is what a key did to the form.
type FormResult int

const (
	FormPending FormResult = iota
	FormSwallowed
	FormAnswered // Answer is ready
	FormCancelTurn
)

var (
	formNext    = key.NewBinding(key.WithKeys("tab", "down"))
	formPrev    = key.NewBinding(key.WithKeys("shift+tab", "up"))
	formEnter   = key.NewBinding(key.WithKeys("enter"))
	formSend    = key.NewBinding(key.WithKeys("ctrl+s"))
	formDecline = key.NewBinding(key.WithKeys("ctrl+d"))
	formCancel  = key.NewBinding(key.WithKeys("esc"))
	formTurn    = key.NewBinding(key.WithKeys("ctrl+c"))
	formLeft    = key.NewBinding(key.WithKeys("left"))
	formRight   = key.NewBinding(key.WithKeys("right"))
	formToggle  = key.NewBinding(key.WithKeys("space"))
)

// NewFormModal opens the form of req at now on a w×h screen.
func NewFormModal(req agent.FormRequested, th *Theme, w, h int, now time.Time) *FormModal {
	f := req.Form
	n := len(f.Fields)
	m := &FormModal{req: req, th: th, w: w, h: h, inputs: make([]textinput.Model, n), choice: make([]int, n),
		ticked: make([][]bool, n), cursor: make([]int, n), boolean: make([]int, n), graceUntil: now.Add(ApprovalGrace), opened: now}
	for i, fl := range f.Fields {
		m.choice[i], m.boolean[i] = -1, -1
		switch fl.Kind {
		case tools.FieldChoice:
			if d, ok := fl.Default.(string); ok {
				for j, o := range fl.Options {
					if o.Value == d {
						m.choice[i] = j
					}
				}
			}
		case tools.FieldMulti:
			m.ticked[i] = make([]bool, len(fl.Options))
			d, _ := fl.Default.([]string)
			for j, o := range fl.Options {
				for _, v := range d {
					if v == o.Value {
						m.ticked[i][j] = true
					}
				}
			}
		case tools.FieldBoolean:
			if d, ok := fl.Default.(bool); ok {
				m.boolean[i] = 0
				if d {
					m.boolean[i] = 1
				}
			}
		default:
			in := textinput.New()
			in.Prompt = "› "
			in.CharLimit = 2000
			st := textinput.DefaultStyles(th.Name == "dark")
			st.Focused.Placeholder, st.Blurred.Placeholder = th.Dim, th.Dim
			st.Cursor.Blink = false
			st.Cursor.Color = th.Accent.GetForeground()
			in.SetStyles(st)
			km := textinput.DefaultKeyMap()
			km.DeleteCharacterForward = key.NewBinding(key.WithKeys("delete")) // ctrl+d declines
			km.AcceptSuggestion.Unbind()                                       // tab moves on
			km.NextSuggestion.Unbind()
			km.PrevSuggestion.Unbind()
			in.KeyMap = km
			if fl.Secret {
				in.EchoMode = textinput.EchoPassword
			}
			in.SetValue(fl.Text(fl.Default))
			in.SetWidth(max(m.innerWidth()-4, 8))
			m.inputs[i] = in
		}
	}
	m.focus(0)
	return m
}

// Request is the request the form answers.
func (m *FormModal) Request() agent.FormRequested { return m.req }

func (m *FormModal) focus(i int) {
	if len(m.req.Form.Fields) == 0 {
		return
	}
	i = (i + len(m.req.Form.Fields)) % len(m.req.Form.Fields)
	if m.isText(m.idx) {
		m.inputs[m.idx].Blur()
	}
	m.idx = i
	if m.isText(i) {
		m.inputs[i].Focus()
	}
}

func (m *FormModal) isText(i int) bool {
	if i >= len(m.req.Form.Fields) {
		return false
	}
	switch m.req.Form.Fields[i].Kind {
	case tools.FieldChoice, tools.FieldMulti, tools.FieldBoolean:
		return false
	}
	return true
}

// SetSize resizes the screen the form is centred on.
func (m *FormModal) SetSize(w, h int) {
	m.w, m.h = w, h
	for i := range m.inputs {
		if m.isText(i) {
			m.inputs[i].SetWidth(max(m.innerWidth()-4, 8))
		}
	}
}

// HandleKey handles a key pressed at now; with FormAnswered, Answer holds
// the answer.
func (m *FormModal) HandleKey(k tea.KeyPressMsg, now time.Time) (FormResult, tools.FormAnswer) {
	if key.Matches(k, formTurn) {
		return FormCancelTurn, tools.FormAnswer{Action: tools.FormCancel}
	}
	if now.Before(m.graceUntil) {
		// A key held since before the form opened (slashwait.go) comes
		// with its own, earlier time: it never shortens the wait.
		if t := now.Add(ApprovalGrace); t.After(m.graceUntil) {
			m.graceUntil = t
			m.armed = false
		}
		return FormSwallowed, tools.FormAnswer{}
	}
	m.armed = true
	fields := m.req.Form.Fields
	switch {
	case key.Matches(k, formCancel):
		return FormAnswered, tools.FormAnswer{Action: tools.FormCancel}
	case key.Matches(k, formDecline):
		return FormAnswered, tools.FormAnswer{Action: tools.FormDecline}
	case key.Matches(k, formSend):
		return m.send()
	case m.req.Form.URL != "" && (k.Text == "y" || k.Text == "Y"):
		return FormAnswered, tools.FormAnswer{Action: tools.FormAccept}
	case m.req.Form.URL != "" && (k.Text == "n" || k.Text == "N"):
		return FormAnswered, tools.FormAnswer{Action: tools.FormDecline}
	case key.Matches(k, formEnter):
		if m.idx >= len(fields)-1 {
			return m.send()
		}
		m.focus(m.idx + 1)
		return FormPending, tools.FormAnswer{}
	case key.Matches(k, formNext):
		m.focus(m.idx + 1)
		return FormPending, tools.FormAnswer{}
	case key.Matches(k, formPrev):
		m.focus(m.idx - 1)
		return FormPending, tools.FormAnswer{}
	}
	if len(fields) == 0 {
		return FormPending, tools.FormAnswer{}
	}
	m.note = ""
	i, fl := m.idx, fields[m.idx]
	switch fl.Kind {
	case tools.FieldChoice:
		n := len(fl.Options)
		switch {
		case key.Matches(k, formRight), key.Matches(k, formToggle):
			m.choice[i] = (m.choice[i] + 1) % n
		case key.Matches(k, formLeft):
			m.choice[i] = (max(m.choice[i], 0) - 1 + n) % n
		}
	case tools.FieldMulti:
		n := len(fl.Options)
		switch {
		case key.Matches(k, formRight):
			m.cursor[i] = (m.cursor[i] + 1) % n
		case key.Matches(k, formLeft):
			m.cursor[i] = (m.cursor[i] - 1 + n) % n
		case key.Matches(k, formToggle):
			m.ticked[i][m.cursor[i]] = !m.ticked[i][m.cursor[i]]
		}
	case tools.FieldBoolean:
		switch {
		case k.Text == "y" || k.Text == "Y":
			m.boolean[i] = 1
		case k.Text == "n" || k.Text == "N":
			m.boolean[i] = 0
		case key.Matches(k, formToggle), key.Matches(k, formLeft), key.Matches(k, formRight):
			m.boolean[i] = 1 - max(m.boolean[i], 0)
		}
	default:
		m.inputs[i], _ = m.inputs[i].Update(k)
	}
	return FormPending, tools.FormAnswer{}
}

// Paste goes into the focused text field.
func (m *FormModal) Paste(p tea.PasteMsg) {
	if m.isText(m.idx) {
		m.inputs[m.idx], _ = m.inputs[m.idx].Update(p)
	}
}

// send checks every field; the first wrong one gets the focus and the
// note says what is wrong.
func (m *FormModal) send() (FormResult, tools.FormAnswer) {
	content := map[string]any{}
	for i, fl := range m.req.Form.Fields {
		v, err := m.value(i)
		if err == nil && v == nil && fl.Required {
			err = fmt.Errorf("%s is required: fill it in, or ctrl+d to decline the form", fl.Label())
		}
		if err != nil {
			m.note = err.Error()
			m.focus(i)
			return FormPending, tools.FormAnswer{}
		}
		if v != nil {
			content[fl.Name] = v
		}
	}
	return FormAnswered, tools.FormAnswer{Action: tools.FormAccept, Content: content}
}

func (m *FormModal) value(i int) (any, error) {
	fl := m.req.Form.Fields[i]
	switch fl.Kind {
	case tools.FieldChoice:
		if m.choice[i] < 0 {
			return nil, nil
		}
		return fl.Options[m.choice[i]].Value, nil
	case tools.FieldMulti:
		var out []string
		for j, t := range m.ticked[i] {
			if t {
				out = append(out, fl.Options[j].Value)
			}
		}
		if err := fl.CheckItems(len(out)); err != nil {
			return nil, err
		}
		if out == nil && fl.MinItems != nil && *fl.MinItems > 0 {
			return nil, nil // left out: required says so, or the default applies
		}
		if out == nil {
			// None ticked is an answer: left out, the default would come back.
			out = []string{}
		}
		return out, nil
	case tools.FieldBoolean:
		if m.boolean[i] < 0 {
			return nil, nil
		}
		return m.boolean[i] == 1, nil
	}
	return fl.Parse(m.inputs[i].Value())
}

func (m *FormModal) boxWidth() int   { return max(min(m.w-4, 100), 24) }
func (m *FormModal) innerWidth() int { return m.boxWidth() - 4 }

// View is the form's box: who asks (a server, not co), its message, the
// secret warning, the fields, the keys.
func (m *FormModal) View() string {
	th, w := m.th, m.innerWidth()
	f := m.req.Form
	var head, body []string
	add := func(to *[]string, style func(...string) string, s string) {
		for _, l := range wrapWords(s, w) {
			*to = append(*to, markHidden(th, style(l)))
		}
	}
	add(&head, th.Title.Render, "Form from "+safe.Reveal(f.Who())+" — not from co")
	var msgLines []string
	if msg := strings.TrimSpace(f.Message); msg != "" {
		msgLines = append(msgLines, "")
		add(&msgLines, lipgloss.NewStyle().Render, safe.Reveal(msg))
	}
	msgAt := len(head)
	if warn := f.SecretWarning(); warn != "" {
		head = append(head, "")
		add(&head, th.Error.Bold(true).Render, "⚠ "+safe.Reveal(warn))
	}
	if f.URL != "" {
		head = append(head, "")
		add(&head, th.Warn.Render, "It asks you to open this page (co does not open it; open it yourself if you trust it):")
		add(&head, th.User.Render, safe.Reveal(f.URL))
		add(&head, th.Warn.Render, "on host "+safe.Reveal(tools.URLHost(f.URL)))
	}
	focusTop, focusEnd := 0, 0
	for i, fl := range f.Fields {
		body = append(body, "")
		if i == m.idx {
			focusTop = len(body)
		}
		mark := "  "
		if i == m.idx {
			mark = th.Accent.Render("▸ ")
		}
		label := th.ToolName.Render(safe.Reveal(fl.Label()))
		if fl.Required {
			label += th.Error.Render(" *")
		}
		if fl.Secret {
			label += th.Warn.Render(" (looks like a secret: hidden)")
		}
		body = append(body, markHidden(th, mark+label))
		if d := strings.TrimSpace(fl.Description); d != "" {
			for _, l := range wrapWords(safe.Reveal(d), w-2) {
				body = append(body, markHidden(th, "  "+th.Dim.Render(l)))
			}
		}
		for _, l := range wrapWords(m.fieldView(i), w-2) {
			body = append(body, "  "+l)
		}
		if i == m.idx {
			focusEnd = len(body)
		}
	}
	foot := []string{""}
	if m.note != "" {
		add(&foot, th.Error.Render, safe.Reveal(m.note))
	}
	keys := "ctrl+s send · ctrl+d decline · esc cancel · ctrl+c cancel the turn"
	if f.URL != "" {
		keys = "y I will open it · n decline · esc cancel · ctrl+c cancel the turn"
	} else if len(f.Fields) > 0 {
		keys = "tab/↑↓ field · enter next (send on the last) · " + keys
	}
	if !m.armed {
		keys = "(keys answer the form in a moment: read it first)"
	}
	add(&foot, th.Dim.Render, keys)
	// The message gives way before the warning, the focused field and the
	// keys: a long one is cut, saying so, rather than pushing them off.
	if spare := m.h - 2 - len(head) - len(foot) - min(len(body), 4); len(msgLines) > max(spare, 3) {
		keep := max(spare, 3) - 1
		cut := len(msgLines) - keep
		msgLines = msgLines[:keep:keep]
		add(&msgLines, th.Dim.Render, fmt.Sprintf("… %d more lines of the message (a taller terminal shows more)", cut))
	}
	head = append(head[:msgAt:msgAt], append(msgLines, head[msgAt:]...)...)
	room := max(m.h-2-len(head)-len(foot), 4)
	if len(body) > room {
		start := max(min(focusTop-1, len(body)-room), 0)
		if focusEnd > start+room {
			start = focusEnd - room
		}
		body = body[start:min(start+room, len(body))]
	}
	lines := append(append(head, body...), foot...)
	for i, l := range lines {
		if pad := w - xansi.StringWidth(l); pad > 0 {
			lines[i] = l + strings.Repeat(" ", pad)
		}
	}
	return th.Modal.Render(strings.Join(lines, "\n"))
}

// fieldView is field i's value as it is edited.
func (m *FormModal) fieldView(i int) string {
	th := m.th
	fl := m.req.Form.Fields[i]
	opt := func(o tools.Option) string {
		if o.Title != "" {
			return safe.Reveal(o.Title)
		}
		return safe.Reveal(o.Value)
	}
	switch fl.Kind {
	case tools.FieldChoice:
		if m.choice[i] < 0 {
			return th.Dim.Render(fmt.Sprintf("‹ choose one of %d: ←/→ ›", len(fl.Options)))
		}
		return fmt.Sprintf("‹ %s › %s", th.User.Render(opt(fl.Options[m.choice[i]])), th.Dim.Render(fmt.Sprintf("%d of %d", m.choice[i]+1, len(fl.Options))))
	case tools.FieldMulti:
		var parts []string
		for j, o := range fl.Options {
			box := "[ ] "
			if m.ticked[i][j] {
				box = "[x] "
			}
			s := box + opt(o)
			if i == m.idx && j == m.cursor[i] {
				s = th.Accent.Render(s)
			}
			parts = append(parts, s)
		}
		return strings.Join(parts, "  ")
	case tools.FieldBoolean:
		switch m.boolean[i] {
		case 1:
			return "[x] " + th.User.Render("yes")
		case 0:
			return "[ ] " + th.User.Render("no")
		}
		return th.Dim.Render("[ ] (not set: space, y or n)")
	}
	v := m.inputs[i].View()
	if f := fl.Format; f != "" {
		v += th.Dim.Render("  (" + f + ")")
	}
	return v
}
