package tui

import (
	"net/url"
	"strings"

	"mvdan.cc/sh/v3/shell"

	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/ui/mention"
)

// Images and PDFs attached to the next message by pasting their path (a
// terminal pastes a file dropped on it as its path) or choosing one in
// the @ list: shown above the input before sending, the last removed
// with Detach (ctrl+x).

// pastedMedia are the images and PDFs a bracketed paste names, when the
// paste is one line of paths (quoted, file://, or with backslash-escaped
// spaces, as terminals and file managers write files dropped on them)
// that are all images or PDFs; handled is false for any other paste,
// which goes to the input as text.
func (a *App) pastedMedia(content string) (atts []message.Attachment, handled bool) {
	ms, ok := a.mentions.(mention.MediaSource)
	if !ok {
		return nil, false
	}
	line := strings.TrimSpace(content)
	if line == "" || strings.ContainsAny(line, "\n\r") {
		return nil, false
	}
	// Shell words: quotes and backslashes as a shell reads them; nothing
	// expanded ($X is empty, ~ is mediaAt's).
	words, err := shell.Fields(line, func(string) string { return "" })
	if err != nil || len(words) == 0 {
		return nil, false
	}
	var problems []string
	for _, w := range words {
		if rest, ok := strings.CutPrefix(w, "file://"); ok {
			if u, err := url.PathUnescape(rest); err == nil {
				w = u
			}
		}
		at, ok, err := ms.Media(w)
		switch {
		case err != nil:
			problems = append(problems, err.Error())
		case !ok:
			return nil, false // not all files to attach: text
		default:
			atts = append(atts, at)
		}
	}
	for _, p := range problems {
		a.chat.Add(newNotice(noticeError, "not attached: "+safe.Text(p)))
	}
	return atts, true
}

// attachPath attaches the image or PDF at path (an @ list choice,
// relative to the workspace) and reports whether it was one.
func (a *App) attachPath(path string) bool {
	ms, ok := a.mentions.(mention.MediaSource)
	if !ok {
		return false
	}
	at, ok, err := ms.Media(path)
	switch {
	case err != nil:
		a.chat.Add(newNotice(noticeError, "not attached: "+safe.Text(err.Error())))
		return true
	case !ok:
		return false
	}
	a.attach(at)
	return true
}

// attach adds at to the next message's attachments.
func (a *App) attach(at message.Attachment) {
	if at.Path == "" {
		return
	}
	for _, p := range a.pending {
		if p.Path == at.Path {
			return
		}
	}
	if len(a.pending) == mention.MaxMedia {
		a.chat.Add(newNotice(noticeError, "not attached: a message attaches at most 10 images and PDFs"))
		return
	}
	a.pending = append(a.pending, at)
	a.layout()
}

// detach removes the last pending attachment.
func (a *App) detach() {
	a.pending = a.pending[:len(a.pending)-1]
	a.layout()
}

// takePending returns the pending attachments for the message being sent.
func (a *App) takePending() []message.Attachment {
	p := a.pending
	if p != nil {
		a.pending = nil
		a.layout()
	}
	return p
}

// pendingLines show the pending attachments above the input.
func (a *App) pendingLines(cw int) []string {
	out := make([]string, 0, len(a.pending))
	for i, at := range a.pending {
		line := "  📎 " + mention.MediaSummary(at)
		if i == len(a.pending)-1 {
			line += "  · " + a.keys.Detach.Help().Key + " removes"
		}
		out = append(out, a.th.Queued.Render(truncate(line, cw)))
	}
	return out
}

// addMedia shows a line per image or PDF sent with the message above.
func (a *App) addMedia(atts []message.Attachment) {
	for _, at := range atts {
		a.chat.Add(newNotice(noticeAttach, "attached "+mention.MediaSummary(at)))
	}
}
