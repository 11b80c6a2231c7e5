package tui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	xansi "github.com/charmbracelet/x/ansi"

	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/memory"
	"github.com/co-cli/co/ui/present"
)

// The /memory view: `/memory` with nothing after it opens a box over the
// chat with a search field that narrows the list as one types
// (memory.Store.Find), the list, and the selected memory in full. Keys that
// act on the list never type into the field: with the field focused they
// are Ctrl+ keys, and Tab moves to the list, where plain letters act (as
// in a file manager). Edit opens the text in a text area; forgetting asks
// y/n inside the view. Every store call runs in a tea.Cmd, never in
// Update, and its errors are shown in the view. Nothing of the view exists
// until it is opened, and the chat pays nothing for it when it is closed.

// MemoryKeyMap is the /memory view's keys.
type MemoryKeyMap struct {
	Up, Down, PageUp, PageDown key.Binding
	Pin                        key.Binding // pin or unpin (search field focused)
	Edit                       key.Binding
	Forget                     key.Binding
	ListPin                    key.Binding // the same, with the list focused
	ListEdit                   key.Binding
	ListForget                 key.Binding
	Focus                      key.Binding // between the search field and the list
	Search                     key.Binding // back to the search field (list focused)
	Close                      key.Binding
	Save                       key.Binding // the edit
	Newline                    key.Binding // in the edit
	Yes, No                    key.Binding // the forget question
}

// DefaultMemoryKeyMap returns the /memory view's default keys.
func DefaultMemoryKeyMap() MemoryKeyMap {
	b := func(help, desc string, keys ...string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(help, desc))
	}
	return MemoryKeyMap{
		Up:         b("↑", "previous", "up"),
		Down:       b("↓", "next", "down"),
		PageUp:     b("pgup", "page up", "pgup"),
		PageDown:   b("pgdn", "page down", "pgdown"),
		Pin:        b("ctrl+p", "pin/unpin", "ctrl+p"),
		Edit:       b("enter/ctrl+e", "edit", "enter", "ctrl+e"),
		Forget:     b("ctrl+d", "forget", "ctrl+d"),
		ListPin:    b("p", "pin/unpin", "p", "ctrl+p"),
		ListEdit:   b("e/enter", "edit", "e", "enter", "ctrl+e"),
		ListForget: b("d/del", "forget", "d", "delete", "ctrl+d"),
		Focus:      b("tab", "list", "tab", "shift+tab"),
		Search:     b("/", "search", "/"),
		Close:      b("esc", "close", "esc"),
		Save:       b("enter", "save", "enter"),
		Newline:    b("ctrl+j", "new line", "ctrl+j", "shift+enter", "alt+enter"),
		Yes:        b("y", "forget", "y", "Y"),
		No:         b("n/esc", "keep", "n", "N", "esc"),
	}
}

// memListMsg brings the memories for one query.
type memListMsg struct {
	seq   int
	items []memory.Memory
	total int
	err   error
}

// memDoneMsg is the end of a pin, edit or forget.
type memDoneMsg struct {
	op  string // "pin", "edit", "forget"
	m   memory.Memory
	err error
}

// memView is the open /memory view.
type memView struct {
	th    *Theme
	keys  MemoryKeyMap
	store func() (*memory.Store, error)

	search    textinput.Model
	focusList bool
	items     []memory.Memory
	total     int
	sel, top  int
	seq       int  // the latest query sent
	loaded    bool // a list came
	busy      bool // a pin, edit or forget is under way

	editing *textarea.Model // the text of items[sel] being edited
	editID  string
	confirm string // the id asked about ("Forget …?")

	note    string // what the last action did
	err     string // what went wrong last
	w, h    int    // the screen
	box     string // the drawn box, redrawn on every change
	details []string
}

// openMemView opens the view on a w×h screen and returns it with the
// command that loads the list.
func openMemView(th *Theme, keys MemoryKeyMap, store func() (*memory.Store, error), w, h int) (*memView, tea.Cmd) {
	v := &memView{th: th, keys: keys, store: store, w: w, h: h}
	v.search = textinput.New()
	v.search.Prompt = ""
	v.search.Placeholder = "type to search (every word, as the start of a word)"
	v.search.CharLimit = 200
	km := textinput.DefaultKeyMap()
	km.DeleteCharacterForward = key.NewBinding(key.WithKeys("delete")) // ctrl+d forgets
	km.LineEnd = key.NewBinding(key.WithKeys("end"))                   // ctrl+e edits
	km.AcceptSuggestion.Unbind()                                       // tab moves to the list
	km.NextSuggestion.Unbind()
	km.PrevSuggestion.Unbind() // ↑↓ select, ctrl+p pins
	v.search.KeyMap = km
	v.search.SetStyles(v.inputStyles())
	v.search.Focus()
	v.layout()
	return v, v.query()
}

func (v *memView) inputStyles() textinput.Styles {
	st := textinput.DefaultStyles(v.th.Name == "dark")
	st.Focused.Placeholder, st.Blurred.Placeholder = v.th.Dim, v.th.Dim
	st.Focused.Text, st.Blurred.Text = lipgloss.NewStyle(), v.th.Dim
	st.Cursor.Blink = false // no ticks: a blinking cursor redraws the screen twice a second
	// GetForeground is never nil: the no-colour theme's Accent gives
	// lipgloss.NoColor, which leaves the cursor uncoloured too.
	st.Cursor.Color = v.th.Accent.GetForeground()
	return st
}

// query loads the list for what the search field holds.
func (v *memView) query() tea.Cmd {
	v.seq++
	seq, q, store := v.seq, v.search.Value(), v.store
	return safeCmd(func() tea.Msg {
		s, err := store()
		if err != nil {
			return memListMsg{seq: seq, err: err}
		}
		ms, n, err := s.Find(q, memory.FindMax)
		return memListMsg{seq: seq, items: ms, total: n, err: err}
	})
}

// do runs a store action off the loop.
func (v *memView) do(op string, f func(s *memory.Store) (memory.Memory, error)) tea.Cmd {
	v.busy, v.note, v.err = true, "", ""
	store := v.store
	return safeCmd(func() tea.Msg {
		s, err := store()
		if err != nil {
			return memDoneMsg{op: op, err: err}
		}
		m, err := f(s)
		return memDoneMsg{op: op, m: m, err: err}
	})
}

// listed takes a loaded list; a stale one (typed over since) is dropped.
func (v *memView) listed(msg memListMsg) {
	if msg.seq != v.seq {
		return
	}
	v.loaded = true
	if msg.err != nil {
		v.err = "could not read the memories: " + safe.Text(msg.err.Error())
		v.render()
		return
	}
	id := v.selectedID()
	v.items, v.total = msg.items, msg.total
	v.sel = 0
	for i, m := range v.items {
		if m.ID == id {
			v.sel = i
		}
	}
	if v.confirm != "" && v.selectedID() != v.confirm {
		v.confirm = "" // what was asked about is gone from the list
	}
	v.layout()
}

// done takes the end of an action and reloads the list.
func (v *memView) done(msg memDoneMsg) tea.Cmd {
	v.busy = false
	if msg.err != nil {
		// A refused edit (a secret, an empty text) stays open to be fixed.
		v.err = safe.Text(msg.err.Error())
		v.render()
		return nil
	}
	id := safe.Text(msg.m.ID)
	switch msg.op {
	case "pin":
		if msg.m.Pinned {
			v.note = fmt.Sprintf("Pinned [%s]: it is recalled on every turn.", id)
		} else {
			v.note = fmt.Sprintf("Unpinned [%s]: recalled only when relevant.", id)
		}
	case "edit":
		v.editing, v.editID = nil, ""
		v.note = fmt.Sprintf("Updated [%s].", id)
	case "forget":
		v.note = fmt.Sprintf("Forgot [%s].", id)
	}
	v.layout()
	return v.query()
}

func (v *memView) selected() (memory.Memory, bool) {
	if v.sel < 0 || v.sel >= len(v.items) {
		return memory.Memory{}, false
	}
	return v.items[v.sel], true
}

func (v *memView) selectedID() string {
	m, _ := v.selected()
	return m.ID
}

// HandleKey acts on a key; closed reports that the view is to close.
func (v *memView) HandleKey(k tea.KeyPressMsg) (cmd tea.Cmd, closed bool) {
	defer v.render()
	switch {
	case v.confirm != "":
		return v.confirmKey(k), false
	case v.editing != nil:
		return v.editKey(k), false
	}
	if key.Matches(k, v.keys.Close) {
		return nil, true
	}
	switch {
	case key.Matches(k, v.keys.Up):
		v.move(-1)
		return nil, false
	case key.Matches(k, v.keys.Down):
		v.move(+1)
		return nil, false
	case key.Matches(k, v.keys.PageUp):
		v.move(-max(v.listHeight()-1, 1))
		return nil, false
	case key.Matches(k, v.keys.PageDown):
		v.move(max(v.listHeight()-1, 1))
		return nil, false
	case key.Matches(k, v.keys.Focus):
		v.setFocusList(!v.focusList)
		return nil, false
	}
	if v.focusList {
		switch {
		case key.Matches(k, v.keys.ListPin):
			return v.pin(), false
		case key.Matches(k, v.keys.ListEdit):
			return v.edit(), false
		case key.Matches(k, v.keys.ListForget):
			v.ask()
			return nil, false
		case key.Matches(k, v.keys.Search):
			v.setFocusList(false)
			return nil, false
		case key.Matches(k, key.NewBinding(key.WithKeys("k"))):
			v.move(-1)
			return nil, false
		case key.Matches(k, key.NewBinding(key.WithKeys("j"))):
			v.move(+1)
			return nil, false
		}
		if k.Text == "" {
			return nil, false
		}
		v.setFocusList(false) // any other letter searches
	} else {
		switch {
		case key.Matches(k, v.keys.Pin):
			return v.pin(), false
		case key.Matches(k, v.keys.Edit):
			return v.edit(), false
		case key.Matches(k, v.keys.Forget):
			v.ask()
			return nil, false
		}
	}
	return v.typed(k), false
}

// typed hands a key (or a paste) to the search field; a change reloads.
func (v *memView) typed(msg tea.Msg) tea.Cmd {
	before := v.search.Value()
	var cmd tea.Cmd
	v.search, cmd = v.search.Update(msg)
	if v.search.Value() == before {
		return cmd
	}
	v.note, v.err = "", ""
	return tea.Batch(cmd, v.query())
}

// Paste puts pasted text in the field being typed in.
func (v *memView) Paste(p tea.PasteMsg) tea.Cmd {
	defer v.render()
	switch {
	case v.confirm != "":
		return nil
	case v.editing != nil:
		var cmd tea.Cmd
		*v.editing, cmd = v.editing.Update(p)
		return cmd
	}
	v.setFocusList(false)
	return v.typed(p)
}

// Wheel moves the selection.
func (v *memView) Wheel(up bool) {
	if v.editing != nil || v.confirm != "" {
		return
	}
	if up {
		v.move(-1)
	} else {
		v.move(+1)
	}
	v.render()
}

func (v *memView) setFocusList(on bool) {
	v.focusList = on
	if on {
		v.search.Blur()
	} else {
		v.search.Focus()
	}
}

func (v *memView) move(d int) {
	if len(v.items) == 0 {
		return
	}
	v.sel = min(max(v.sel+d, 0), len(v.items)-1)
	v.layout()
}

func (v *memView) pin() tea.Cmd {
	m, ok := v.selected()
	if !ok || v.busy {
		return nil
	}
	return v.do("pin", func(s *memory.Store) (memory.Memory, error) { return s.Pin(m.ID, !m.Pinned) })
}

func (v *memView) ask() {
	if m, ok := v.selected(); ok && !v.busy {
		v.confirm, v.note, v.err = m.ID, "", ""
	}
}

func (v *memView) confirmKey(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(k, v.keys.Yes):
		id := v.confirm
		v.confirm = ""
		return v.do("forget", func(s *memory.Store) (memory.Memory, error) { return s.Forget(id) })
	case key.Matches(k, v.keys.No):
		v.confirm, v.note = "", "Kept."
	}
	return nil // anything else: the question stays
}

// edit opens the selected memory's text in a text area.
func (v *memView) edit() tea.Cmd {
	m, ok := v.selected()
	if !ok || v.busy {
		return nil
	}
	ta := textarea.New()
	ta.ShowLineNumbers = false
	ta.Prompt = ""
	ta.CharLimit = memory.MaxContent
	ta.MaxHeight = 0
	km := textarea.DefaultKeyMap()
	km.InsertNewline = v.keys.Newline // enter saves
	ta.KeyMap = km
	st := textarea.DefaultStyles(v.th.Name == "dark")
	for _, s := range []*textarea.StyleState{&st.Focused, &st.Blurred} {
		s.Base, s.CursorLine, s.Text, s.Prompt, s.EndOfBuffer = lipgloss.NewStyle(), lipgloss.NewStyle(), lipgloss.NewStyle(), lipgloss.NewStyle(), lipgloss.NewStyle()
		s.Placeholder = v.th.Dim
	}
	st.Cursor.Blink = false
	st.Cursor.Color = v.th.Accent.GetForeground() // as in inputStyles
	ta.SetStyles(st)
	ta.SetWidth(v.innerWidth())
	ta.SetHeight(v.editHeight())
	ta.SetValue(safe.Text(m.Content)) // what is shown is what is saved
	ta.Focus()
	v.editing, v.editID, v.note, v.err = &ta, m.ID, "", ""
	v.layout()
	return nil
}

func (v *memView) editKey(k tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(k, v.keys.Close):
		v.editing, v.editID, v.err = nil, "", ""
		v.note = "Not changed."
		v.layout()
		return nil
	case key.Matches(k, v.keys.Save):
		if v.busy {
			return nil
		}
		id, text := v.editID, v.editing.Value()
		return v.do("edit", func(s *memory.Store) (memory.Memory, error) { return s.Update(id, text) })
	}
	var cmd tea.Cmd
	*v.editing, cmd = v.editing.Update(k)
	return cmd
}

// SetSize resizes the screen the view is centred on.
func (v *memView) SetSize(w, h int) {
	v.w, v.h = w, h
	v.search.SetWidth(max(v.innerWidth()-len("Search: ")-1, 4))
	if v.editing != nil {
		v.editing.SetWidth(v.innerWidth())
		v.editing.SetHeight(v.editHeight())
	}
	v.layout()
}

func (v *memView) boxWidth() int { return max(min(v.w-4, 110), 30) }

// innerWidth is the text width inside the border and padding.
func (v *memView) innerWidth() int { return v.boxWidth() - 4 }

// innerHeight is the number of lines inside the border.
func (v *memView) innerHeight() int { return max(v.h-2-2, 1) }

func (v *memView) editHeight() int {
	if v.tight() {
		return 1
	}
	return min(max(v.innerHeight()/3, 1), 6)
}

// tight: the screen is too short for the box's blank lines, a list row
// and the details at their height (a 40×12 terminal); the box drops the
// blank lines and shows one line of the details, so that it ends on the
// screen with its keys.
func (v *memView) tight() bool {
	return v.innerHeight()-6-1-min(max(v.innerHeight()/3, 1), 6) < 1
}

// memListRows is the most list rows shown: the box keeps one height while
// the list narrows (a box that shrank with each key typed would jump).
const memListRows = 12

// listHeight is the number of list rows: what the inner height leaves
// after the title, the search field, the blank lines, the details (or the
// edit), the status line and the keys, up to memListRows.
func (v *memView) listHeight() int {
	fixed := 6
	if v.tight() {
		fixed = 4
	}
	return min(max(v.innerHeight()-fixed-v.lowerHeight(), 1), memListRows)
}

// lowerHeight is the selected memory's details or the edit (its title and
// text area): the same height, so the box does not change size.
func (v *memView) lowerHeight() int { return 1 + v.editHeight() }

// layout recomputes the selected memory's details, scrolls the list to
// show the selection and redraws.
func (v *memView) layout() {
	v.details = nil
	if m, ok := v.selected(); ok && v.editing == nil {
		w := v.innerWidth()
		lines := wrapText(expandTabs(safe.Text(m.Content)), w)
		maxLines := v.lowerHeight() - 1
		if len(lines) > maxLines {
			lines = append(lines[:maxLines-1:maxLines-1], truncate(lines[maxLines-1]+" …", w))
		}
		v.details = append(v.details, lines...)
		meta := "saved " + m.Created.Format("2006-01-02 15:04") + " · last used "
		if m.Used.IsZero() {
			meta += "never"
		} else {
			meta += m.Used.Format("2006-01-02 15:04")
		}
		if len(m.Tags) > 0 {
			meta += " · tags " + safe.Text(strings.Join(m.Tags, ", "))
		}
		if m.Pinned {
			meta += " · pinned: recalled on every turn"
		}
		v.details = append(v.details, v.th.Dim.Render(truncate(present.Line(meta), w)))
	}
	for len(v.details) < v.lowerHeight() && v.editing == nil {
		v.details = append(v.details, "")
	}
	lh := v.listHeight()
	if v.sel < v.top {
		v.top = v.sel
	}
	if v.sel >= v.top+lh {
		v.top = v.sel - lh + 1
	}
	v.top = max(min(v.top, len(v.items)-lh), 0)
	v.render()
}

// render draws the box; View returns it as it is.
func (v *memView) render() {
	th, w := v.th, v.innerWidth()
	var lines []string
	count := ""
	switch {
	case !v.loaded:
		count = "loading…"
	case v.search.Value() == "":
		count = plural(v.total, "memory", "memories")
	default:
		count = fmt.Sprintf("%d of %s match", len(v.items), plural(v.total, "memory", "memories"))
		if len(v.items) == v.total {
			count = plural(v.total, "match", "matches")
		}
	}
	title := th.Title.Render("Memories")
	c := th.Dim.Render(count)
	lines = append(lines, title+strings.Repeat(" ", max(w-xansi.StringWidth(title)-xansi.StringWidth(c), 1))+c)
	label := th.Dim.Render("Search: ")
	if !v.focusList && v.editing == nil && v.confirm == "" {
		label = th.KeyHint.Render("Search: ")
	}
	lines = append(lines, truncate(label+v.search.View(), w))
	gap := []string{""}
	if v.tight() {
		gap = nil
	}
	lines = append(lines, gap...)

	lh := v.listHeight()
	var rows []string
	switch {
	case !v.loaded:
	case len(v.items) == 0 && v.search.Value() == "":
		rows = append(rows, th.Dim.Render(truncate("No memories yet. co saves one when you ask it to remember something (you approve each save).", w)))
	case len(v.items) == 0:
		rows = append(rows, th.Dim.Render("No memory matches."))
	}
	for i := v.top; i < len(v.items) && i < v.top+lh; i++ {
		rows = append(rows, v.row(v.items[i], i == v.sel, w))
	}
	if more := v.total - len(v.items); more > 0 && len(rows) < lh && v.top+lh >= len(v.items) {
		rows = append(rows, th.Dim.Render(truncate(fmt.Sprintf("… and %d more: type to narrow them down", more), w)))
	}
	for len(rows) < lh {
		rows = append(rows, "")
	}
	lines = append(lines, rows...)
	lines = append(lines, gap...)

	if v.editing != nil {
		lines = append(lines, th.Title.Render("Edit ["+safe.Text(v.editID)+"]"))
		lines = append(lines, strings.Split(v.editing.View(), "\n")...)
	} else {
		lines = append(lines, v.details...)
	}

	switch {
	case v.confirm != "":
		m, _ := v.selected()
		q := fmt.Sprintf("Forget [%s] %s? It cannot be undone.", safe.Text(v.confirm), present.Line(safe.Text(m.Content)))
		lines = append(lines, th.Warn.Render(truncate(q, w)))
	case v.err != "":
		lines = append(lines, th.Error.Render(truncate(present.Line(v.err), w)))
	case v.busy:
		lines = append(lines, th.Dim.Render("…"))
	case v.note != "":
		lines = append(lines, th.Success.Render(truncate(v.note, w)))
	default:
		lines = append(lines, "")
	}
	lines = append(lines, truncate(v.hints(), w))

	for i, l := range lines {
		if pad := w - xansi.StringWidth(l); pad > 0 {
			lines[i] = l + strings.Repeat(" ", pad)
		}
	}
	v.box = th.Modal.Render(strings.Join(lines, "\n"))
}

// row is one memory in the list: a mark for the selection, ★ for a pin,
// the id and the text on one line.
func (v *memView) row(m memory.Memory, selected bool, w int) string {
	th := v.th
	mark, text := "  ", lipgloss.NewStyle()
	if selected {
		mark, text = th.Selected.Render("❯ "), th.User
	}
	pin := "  "
	if m.Pinned {
		pin = th.Warn.Render("★ ")
	}
	id := th.Dim.Render(safe.Text(m.ID) + " ")
	lead := mark + pin + id
	rest := max(w-xansi.StringWidth(lead), 4)
	return lead + text.Render(truncate(present.Line(safe.Text(m.Content)), rest))
}

// hints is the footer: the keys of the view's current state.
func (v *memView) hints() string {
	th := v.th
	var pairs []key.Binding
	switch {
	case v.confirm != "":
		pairs = []key.Binding{v.keys.Yes, v.keys.No}
	case v.editing != nil:
		pairs = []key.Binding{v.keys.Save, v.keys.Newline, key.NewBinding(key.WithHelp("esc", "cancel"))}
	case v.focusList:
		pairs = []key.Binding{key.NewBinding(key.WithHelp("↑↓", "select")), v.keys.ListEdit, v.keys.ListPin, v.keys.ListForget, v.keys.Search, v.keys.Close}
	default:
		pairs = []key.Binding{key.NewBinding(key.WithHelp("↑↓", "select")), v.keys.Edit, v.keys.Pin, v.keys.Forget, v.keys.Focus, v.keys.Close}
	}
	var parts []string
	for _, b := range pairs {
		h := b.Help()
		parts = append(parts, th.KeyHint.Render(h.Key)+" "+th.Dim.Render(h.Desc))
	}
	return strings.Join(parts, th.Dim.Render(" · "))
}

// View is the drawn box (not yet placed on the screen).
func (v *memView) View() string { return v.box }

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}
