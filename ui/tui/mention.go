package tui

import (
	"strings"
	"unicode"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	xansi "github.com/charmbracelet/x/ansi"

	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/ui/mention"
)

// @ completion: typing "@" at the start of a word opens a list of the
// workspace's files above the prompt, ranked fuzzily by what follows the
// "@" (ui/mention). ↑/↓ (ctrl+p/ctrl+n, shift+tab) move, Tab or Enter puts
// "@path " in place of the word, Esc closes the list for that word. The
// file list is made in the background the first time "@" is typed (never
// before the first frame) and again when it is stale; the list is drawn
// with the prompt, so streaming a reply costs nothing more while it is
// open.

// mentionRows is how many files the list shows.
const mentionRows = 6

// mentionFilesMsg says the workspace's file list was (re)made.
type mentionFilesMsg struct{}

// mentionPopup is the open completion list.
type mentionPopup struct {
	row, col int    // where the "@" is: the line and its rune column
	query    string // what follows the "@" up to the cursor
	cands    []string
	sel      int
	loading  bool   // no file list yet
	err      string // the listing failed
	ranked   bool   // cands were ranked from a ready list
}

// mentionWord finds the @word the cursor ends: its line, the rune column
// of its "@" and what follows up to the cursor. Only at the start of a word
// (a@b.com is not one), only when the cursor is at the word's end, and
// not in a quoted @"…" (completion writes the quotes).
func (in *Input) mentionWord() (row, col int, query string, ok bool) {
	row, cur := in.ta.Line(), in.ta.Column()
	lines := strings.Split(in.ta.Value(), "\n")
	if row >= len(lines) {
		return 0, 0, "", false
	}
	line := []rune(lines[row])
	if cur > len(line) || (cur < len(line) && !unicode.IsSpace(line[cur])) {
		return 0, 0, "", false
	}
	for j := cur - 1; j >= 0; j-- {
		r := line[j]
		if unicode.IsSpace(r) {
			return 0, 0, "", false
		}
		if r == '@' && (j == 0 || unicode.IsSpace(line[j-1])) {
			q := string(line[j+1 : cur])
			if strings.HasPrefix(q, `"`) {
				return 0, 0, "", false
			}
			return row, j, q, true
		}
	}
	return 0, 0, "", false
}

// MentionOpen reports whether the @ completion list is shown.
func (in *Input) MentionOpen() bool { return in.pop != nil }

// CloseMention closes the list; it stays closed for this @word.
func (in *Input) CloseMention() {
	if in.pop != nil {
		in.dismissed = [2]int{in.pop.row, in.pop.col}
		in.pop = nil
		in.refresh()
	}
}

// FilesListed re-ranks an open list when the file list was (re)made.
func (in *Input) FilesListed() {
	if in.pop != nil {
		in.pop.ranked = false
	}
	in.updateMention()
	in.refresh()
}

// updateMention opens, updates or closes the list for the text as it is
// now, and returns what loads the file list when it is wanted.
func (in *Input) updateMention() tea.Cmd {
	if in.index == nil {
		return nil
	}
	row, col, q, ok := in.mentionWord()
	if !ok {
		in.pop = nil
		in.dismissed = [2]int{-1, -1}
		return nil
	}
	if in.dismissed == [2]int{row, col} {
		return nil
	}
	var cmd tea.Cmd
	if done := in.index.Load(); done != nil {
		cmd = func() tea.Msg { <-done; return mentionFilesMsg{} }
	}
	files, _, err, ready := in.index.Files()
	p := in.pop
	if p != nil && p.row == row && p.col == col && p.query == q && p.ranked {
		return cmd // the same word and query: keep the choice
	}
	p = &mentionPopup{row: row, col: col, query: q}
	switch {
	case !ready:
		p.loading = true
	case err != nil && len(files) == 0:
		p.err = safe.Text(err.Error())
	default:
		p.cands = mention.Rank(files, q, mentionRows)
		p.ranked = true
	}
	in.pop = p
	return cmd
}

// mentionKey handles a key while the list is open; false: not its key.
func (in *Input) mentionKey(k tea.KeyPressMsg) bool {
	p := in.pop
	n := len(p.cands)
	switch {
	case k.String() == "up" || k.String() == "ctrl+p" || key.Matches(k, in.keys.CompletePrev):
		if n > 0 {
			p.sel = (p.sel - 1 + n) % n
		}
		return true
	case k.String() == "down" || k.String() == "ctrl+n":
		if n > 0 {
			p.sel = (p.sel + 1) % n
		}
		return true
	case key.Matches(k, in.keys.Complete):
		if n > 0 {
			in.acceptMention()
		}
		return true
	case key.Matches(k, in.keys.Send):
		if n == 0 || p.cands[p.sel] == p.query {
			// Nothing to complete, or the path is typed whole: Enter sends
			// what was typed.
			in.pop = nil
			return false
		}
		in.acceptMention()
		return true
	}
	return false
}

// acceptMention puts "@path " in place of the @word.
func (in *Input) acceptMention() {
	p := in.pop
	path := p.cands[p.sel]
	// The cursor ends the word: delete back to the "@", insert the path.
	for range in.ta.Column() - p.col {
		in.ta, _ = in.ta.Update(tea.KeyPressMsg{Code: tea.KeyBackspace})
	}
	in.pop = nil
	if in.checkChoice {
		// Maybe an image or PDF, attached above the input rather than put
		// in the text: the App finds out (Chosen).
		in.chosen = path
		return
	}
	in.InsertMention(path)
}

// Chosen is the @ list's choice left for the App to check, once.
func (in *Input) Chosen() string {
	p := in.chosen
	in.chosen = ""
	return p
}

// InsertMention puts "@path " at the cursor, quoted when path has a space.
func (in *Input) InsertMention(path string) {
	if strings.ContainsFunc(path, unicode.IsSpace) {
		path = `"` + path + `"`
	}
	in.ta.InsertString("@" + path + " ")
	in.pop = nil
	in.refresh()
}

// mentionLines draws the list: one line per file, the chosen one marked.
func (in *Input) mentionLines() []string {
	p := in.pop
	dim := func(s string) string { return in.th.Dim.Render(truncate(s, in.width)) }
	switch {
	case p.loading:
		return []string{dim("  @ listing the workspace's files…")}
	case p.err != "":
		return []string{in.th.Error.Render(truncate("  @ could not list the files: "+p.err, in.width))}
	case len(p.cands) == 0:
		return []string{dim("  @ no file matches " + safe.Text(p.query) + " (Esc closes)")}
	}
	out := make([]string, len(p.cands))
	for i, c := range p.cands {
		c = safe.Text(c)
		if i == p.sel {
			out[i] = in.th.Selected.Render(xansi.Truncate("▸ @"+c, in.width, "…"))
			continue
		}
		out[i] = dim("  @" + c)
	}
	return out
}

// addAttachments shows a line per file attached to the message above.
func (a *App) addAttachments(atts []mention.Attachment) {
	for _, at := range atts {
		a.chat.Add(newNotice(noticeAttach, "attached "+mention.Summary(at)))
	}
}
