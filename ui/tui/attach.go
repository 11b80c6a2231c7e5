package tui

import (
	"fmt"
	"net/url"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"mvdan.cc/sh/v3/shell"

	"github.com/co-cli/co/lib/count"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/ui/mention"
)

// Images and PDFs attached to the next message by pasting their path (a
// terminal pastes a file dropped on it as its path) or choosing one in
// the @ list: shown above the input before sending, the last removed
// with Detach (ctrl+x).
//
// No file is touched in Update. First the paths are checked (mediaProbe:
// a stat and the first bytes of each), which decides whether a paste is
// files or text; the keys and pastes that come meanwhile are held and
// handled after it, in order. Then each file is read in the background
// (up to 50 MB, hashed, its pixels counted), shown as "reading…" until
// it is. A message sent before its files are read waits in the queue
// (queued.ready) and goes once they are; one that fails to read gives
// the message back to the input.

// attachment is an image or PDF attached to the next message (or to a
// message waiting to go): read, or being read.
type attachment struct {
	id   int
	name string             // the file's name, shown while it is read
	abs  string             // the file (MediaSource.MediaPath)
	at   message.Attachment // once read
	read bool
}

// mediaOf are the read attachments of atts, in order.
func mediaOf(atts []*attachment) []message.Attachment {
	if len(atts) == 0 {
		return nil
	}
	out := make([]message.Attachment, 0, len(atts))
	for _, e := range atts {
		out = append(out, e.at)
	}
	return out
}

// unread is the first of atts still being read, or nil.
func unread(atts []*attachment) *attachment {
	for _, e := range atts {
		if !e.read {
			return e
		}
	}
	return nil
}

// mediaProbe is a paste (or an @ list choice) whose paths are being
// checked; held are the keys and pastes that came since.
type mediaProbe struct {
	id     int
	paste  tea.PasteMsg // the paste, handled as text when it is not files
	choice string       // the @ list's choice, put in the text when not a file
	what   string       // what is checked, for the line shown when it is slow
	slow   bool         // checking has taken long enough to show it
}

// probedMsg is a probe's answer: the files, or ok false (text).
type probedMsg struct {
	id    int
	files []string
	ok    bool
	err   string // the check panicked
}

// probeSlowMsg shows a probe that has not answered yet.
type probeSlowMsg struct{ id int }

// probeShowAfter is how long a probe goes unseen: a local file answers
// well within it, and a one-line text paste should not flash a line.
const probeShowAfter = 300 * time.Millisecond

// mediaReadMsg is an attachment read (or not).
type mediaReadMsg struct {
	id  int
	at  message.Attachment
	err string
}

// mediaSource is the source of images and PDFs, or nil.
func (a *App) mediaSource() mention.MediaSource {
	ms, _ := a.mentions.(mention.MediaSource)
	return ms
}

// pasteWords are the paths a bracketed paste may name: one line of
// shell words (quoted, file://, or with backslash-escaped spaces, as
// terminals and file managers write files dropped on them). ok is false
// for any other paste, which goes to the input as text.
func pasteWords(content string) ([]string, bool) {
	line := strings.TrimSpace(content)
	if line == "" || strings.ContainsAny(line, "\n\r") {
		return nil, false
	}
	// Shell words: quotes and backslashes as a shell reads them; nothing
	// expanded ($X is empty, ~ is MediaPath's).
	words, err := shell.Fields(line, func(string) string { return "" })
	if err != nil || len(words) == 0 {
		return nil, false
	}
	for i, w := range words {
		if rest, ok := strings.CutPrefix(w, "file://"); ok {
			if u, err := url.PathUnescape(rest); err == nil {
				words[i] = u
			}
		}
	}
	return words, true
}

// handlePaste attaches the images and PDFs a paste names when it names
// nothing else, or hands it to the input as text.
func (a *App) handlePaste(msg tea.PasteMsg) tea.Cmd {
	switch {
	case a.modal != nil:
	case a.form != nil:
		a.form.Paste(msg)
	case a.setup != nil:
		return a.setupPaste(msg)
	case a.mem != nil:
		return a.mem.Paste(msg)
	default:
		return a.pasteToPrompt(msg)
	}
	return nil
}

// pasteToPrompt attaches the images and PDFs a paste names when it names
// nothing else, or puts it in the input as text.
func (a *App) pasteToPrompt(msg tea.PasteMsg) tea.Cmd {
	ms := a.mediaSource()
	if words, ok := pasteWords(msg.Content); ok && ms != nil {
		names := make([]string, len(words))
		for i, w := range words {
			names[i] = filepath.Base(w)
		}
		return a.startProbe(&mediaProbe{paste: msg, what: strings.Join(names, " ")}, ms, words)
	}
	return a.toInput(msg)
}

// chooseMedia checks the @ list's choice: an image or PDF is attached,
// anything else goes into the text as @path.
func (a *App) chooseMedia(path string) tea.Cmd {
	ms := a.mediaSource()
	if ms == nil {
		a.input.InsertMention(path)
		return nil
	}
	return a.startProbe(&mediaProbe{choice: path, what: filepath.Base(path)}, ms, []string{path})
}

// startProbe checks words off the loop; keys and pastes wait for it.
func (a *App) startProbe(p *mediaProbe, ms mention.MediaSource, words []string) tea.Cmd {
	a.probeSeq++
	p.id = a.probeSeq
	a.probe = p
	id := p.id
	check := func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = probedMsg{id: id, err: fmt.Sprintf("checking the pasted path panicked: %v\n%s", r, debug.Stack())}
			}
		}()
		files := make([]string, 0, len(words))
		for _, w := range words {
			abs, ok := ms.MediaPath(w)
			if !ok {
				return probedMsg{id: id} // not all files to attach: text
			}
			files = append(files, abs)
		}
		return probedMsg{id: id, files: files, ok: true}
	}
	slow := tea.Tick(probeShowAfter, func(time.Time) tea.Msg { return probeSlowMsg{id: id} })
	return tea.Batch(check, slow)
}

// handleProbed attaches what the probe found, or puts the paste (the
// choice) in the text; then the keys held meanwhile are handled.
func (a *App) handleProbed(msg probedMsg) tea.Cmd {
	p := a.probe
	if p == nil || p.id != msg.id {
		return nil // given up (ctrl+c)
	}
	a.probe = nil
	var cmds []tea.Cmd
	switch {
	case msg.err != "":
		a.chat.Add(newNotice(noticeError, "internal error (the chat goes on; please report this): "+msg.err))
		cmds = append(cmds, a.probeAsText(p))
	case msg.ok:
		ms := a.mediaSource()
		for _, f := range msg.files {
			cmds = append(cmds, a.attachFile(ms, f))
		}
	default:
		cmds = append(cmds, a.probeAsText(p))
	}
	a.layout()
	cmds = append(cmds, a.release())
	return tea.Batch(cmds...)
}

// probeAsText hands a probe's paste (or choice) to the input as text.
func (a *App) probeAsText(p *mediaProbe) tea.Cmd {
	if p.choice != "" {
		a.input.InsertMention(p.choice)
		return nil
	}
	return a.toInput(p.paste)
}

// giveUpProbe is ctrl+c while a probe is slow: what was pasted goes in
// as text, and the keys held go after it.
func (a *App) giveUpProbe() tea.Cmd {
	p := a.probe
	a.probe = nil
	cmd := a.probeAsText(p)
	a.layout()
	return tea.Batch(cmd, a.release())
}

// attachFile adds the file abs to the next message's attachments and
// reads it in the background.
func (a *App) attachFile(ms mention.MediaSource, abs string) tea.Cmd {
	for _, p := range a.pending {
		if p.abs == abs {
			return nil
		}
	}
	if len(a.pending) == mention.MaxMedia {
		a.tooMany(filepath.Base(abs))
		return nil
	}
	a.attachSeq++
	e := &attachment{id: a.attachSeq, name: filepath.Base(abs), abs: abs}
	a.pending = append(a.pending, e)
	a.layout()
	id := e.id
	return func() (msg tea.Msg) {
		defer func() {
			if r := recover(); r != nil {
				msg = mediaReadMsg{id: id, err: fmt.Sprintf("reading %s panicked: %v (the chat goes on; please report this)\n%s", abs, r, debug.Stack())}
			}
		}()
		at, err := ms.ReadMedia(abs)
		if err != nil {
			return mediaReadMsg{id: id, err: err.Error()}
		}
		return mediaReadMsg{id: id, at: at}
	}
}

// handleMediaRead fills in an attachment read. One removed meanwhile
// (ctrl+x, or its message cancelled and then removed) is dropped. One
// that failed is removed with a notice; a message waiting for it does not
// go without it: it comes back to the input, with those queued after it.
func (a *App) handleMediaRead(msg mediaReadMsg) tea.Cmd {
	e, owner := a.findAttachment(msg.id)
	if e == nil {
		return nil
	}
	if msg.err == "" {
		e.at, e.read = msg.at, true
		a.layout()
		return a.next()
	}
	a.chat.Add(newNotice(noticeError, "not attached: "+safe.Text(msg.err)))
	if owner < 0 {
		a.pending = without(a.pending, e)
		a.layout()
		return nil
	}
	// The message that waited for it comes back, and so do those queued
	// after it: they would otherwise go before it.
	back := a.queue[owner:]
	a.queue = a.queue[:owner:owner]
	back[0].atts = without(back[0].atts, e)
	why := fmt.Sprintf("Not sent: %s could not be read.", safe.Text(e.name))
	switch len(back) {
	case 1:
	case 2:
		why = fmt.Sprintf("Not sent: %s could not be read, nor the message queued after it.", safe.Text(e.name))
	default:
		why = fmt.Sprintf("Not sent: %s could not be read, nor the %s queued after it.", safe.Text(e.name), count.Of(len(back)-1, "message"))
	}
	a.giveBack(why, back...)
	a.chat.Bottom()
	return a.next()
}

// findAttachment finds the attachment id among the next message's (owner
// -1) or a queued message's (owner its index).
func (a *App) findAttachment(id int) (e *attachment, owner int) {
	for _, p := range a.pending {
		if p.id == id {
			return p, -1
		}
	}
	for i, q := range a.queue {
		for _, p := range q.atts {
			if p.id == id {
				return p, i
			}
		}
	}
	return nil, 0
}

// tooMany says that name was not attached: the message has as many as it
// takes.
func (a *App) tooMany(name string) {
	a.chat.Add(newNotice(noticeError, fmt.Sprintf("not attached: %s: a message attaches at most %d images and PDFs", safe.Text(name), mention.MaxMedia)))
}

func without(atts []*attachment, e *attachment) []*attachment {
	out := make([]*attachment, 0, len(atts))
	for _, p := range atts {
		if p != e {
			out = append(out, p)
		}
	}
	return out
}

// restore puts the attachments of a message given back above the input,
// before those attached since.
func (a *App) restore(atts []*attachment) {
	if len(atts) == 0 {
		return
	}
	all := make([]*attachment, 0, len(atts)+len(a.pending))
	seen := map[string]bool{}
	for _, e := range append(append([]*attachment(nil), atts...), a.pending...) {
		switch {
		case seen[e.abs]:
		case len(all) == mention.MaxMedia:
			a.tooMany(e.name)
		default:
			seen[e.abs] = true
			all = append(all, e)
		}
	}
	a.pending = all
	a.layout()
}

// detach removes the last pending attachment; if it is still being read,
// what the read brings back is dropped.
func (a *App) detach() {
	a.pending = a.pending[:len(a.pending)-1]
	a.layout()
}

// takePending returns the pending attachments for the message being sent.
func (a *App) takePending() []*attachment {
	p := a.pending
	if p != nil {
		a.pending = nil
		a.layout()
	}
	return p
}

// pendingTexts are the lines above the input: the pending attachments, a
// probe that is slow to answer, a command that is slow to answer.
func (a *App) pendingTexts() []string {
	out := make([]string, 0, len(a.pending)+2)
	for i, e := range a.pending {
		line := "  📎 " + safe.Text(e.name) + " (reading…)"
		if e.read {
			line = "  📎 " + mention.MediaSummary(e.at)
		}
		if i == len(a.pending)-1 {
			line += "  · " + a.keys.Detach.Help().Key + " removes"
		}
		out = append(out, line)
	}
	if a.probe != nil && a.probe.slow {
		out = append(out, "  📎 checking "+strings.ReplaceAll(safe.Text(a.probe.what), "\n", " ")+"…  · "+a.keys.Interrupt.Help().Key+" takes it as text")
	}
	if a.slashWait != nil && a.slashWait.slow {
		out = append(out, "  ⏳ "+safe.Text(a.slashWait.name)+" is running…  · "+a.keys.Interrupt.Help().Key+" stops waiting for it")
	}
	return out
}

// pendingLines are pendingTexts drawn within cw columns.
func (a *App) pendingLines(cw int) []string {
	lines := a.pendingTexts()
	for i, l := range lines {
		lines[i] = a.th.Queued.Render(truncate(l, cw))
	}
	return lines
}

// pendingCount is how many lines pendingLines draws.
func (a *App) pendingCount() int { return len(a.pendingTexts()) }

// addMedia shows a line per image or PDF sent with the message above.
func (a *App) addMedia(atts []message.Attachment) {
	for _, at := range atts {
		a.chat.Add(newNotice(noticeAttach, "attached "+mention.MediaSummary(at)))
	}
}
