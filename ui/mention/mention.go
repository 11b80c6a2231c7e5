// Package mention is the @path mentions of the chat, shared by the
// full-screen chat (ui/tui) and --plain (ui/plain): finding @path tokens
// in what the user typed, attaching the files they name to the message the
// model gets, reading an attachment back out of a saved message (resume),
// the line that shows an attachment, and the fuzzy ranking of workspace
// files that @ completion offers.
//
// The workspace is reached through Source, which internal/cli makes over
// tools/files: files are listed by the file tools' walker (gitignore-aware)
// and read with read_file's bounds (tools/internal/pathsafe, the size cap,
// the binary test), so a mention can read nothing a read_file call could
// not.
//
// Format of the message the model gets (and the session saves): the
// user's text unchanged, then a blank line, the line Intro, and one block
// per file:
//
//	<attached-file path="src/a.go" lines=120 shown=120 truncated=false bytes=4021>
//	  1	package a
//	…
//	</attached-file>
//
// bytes is the exact length of the text between the header's line break
// and "\n</attached-file>", so Split reads the blocks back whatever the file
// holds.
package mention

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/message"
)

// Attachment is one file attached to a message.
type Attachment struct {
	Path      string // relative to the workspace root
	Text      string // numbered lines, as read_file shows them
	Lines     int    // lines in the file
	Shown     int    // lines in Text
	Truncated bool   // Text stops before the end of the file
}

// Source is the workspace the mentions read.
type Source interface {
	// Files lists the workspace's files (relative, slash-separated), at
	// most a capped number; more says the list stopped at the cap.
	Files() (files []string, more bool, err error)
	// Attach reads one file, at most maxChars characters of it.
	Attach(path string, maxChars int) (Attachment, error)
}

// MediaSource is a Source that also attaches images and PDFs: an @path
// whose content (not its name) is one goes with the message as itself,
// not as text. Finding out is cheap and reading is not (a file of up to
// message.MaxAttachBytes, hashed, its pixels counted), so they are two
// steps: the full-screen chat decides at once whether a pasted path is
// an attachment, and reads it in the background.
type MediaSource interface {
	// MediaPath reports whether path is an image or a PDF, from a stat and
	// the file's first bytes; ok is false when it is anything else (or
	// nothing: Attach then says what is wrong). abs is the file, for
	// ReadMedia.
	MediaPath(path string) (abs string, ok bool)
	// ReadMedia reads the image or PDF at abs; the error names the file
	// and what is wrong with it (gone, changed, too large, damaged).
	ReadMedia(abs string) (message.Attachment, error)
}

// Media reads path when it is an image or a PDF: ok is false when it is
// anything else.
func Media(ms MediaSource, path string) (a message.Attachment, ok bool, err error) {
	abs, ok := ms.MediaPath(path)
	if !ok {
		return message.Attachment{}, false, nil
	}
	a, err = ms.ReadMedia(abs)
	return a, true, err
}

// MaxMedia is the most images and PDFs one message attaches.
const MaxMedia = message.MaxPerMessage

// Limits of one message's attachments.
const (
	// MaxFiles is the most files one message attaches.
	MaxFiles = 10
	// MaxFileChars is the most characters of one file attached (read_file's
	// default).
	MaxFileChars = 20000
	// MaxChars is the most characters of all the files of one message.
	MaxChars = 100000
	// minChars: a file is not attached when less than this is left of
	// MaxChars.
	minChars = 500
	// noteRoom is kept for read_file's note at the end of a cut file.
	noteRoom = 200
)

// Intro is the line before the attached files in the message the model
// gets.
const Intro = "Files the user attached with @path (lines numbered as read_file numbers them):"

const (
	openTag  = agent.AttachTag // the agent counts such a message as the user's private data
	closeTag = "\n</attached-file>"
)

// Token is an @path in a text.
type Token struct {
	Start, End int    // byte offsets of the token, "@" included
	Path       string // as typed (quotes removed)
}

// Find returns the @path tokens of text. A mention starts a word: "@" at
// the start of the text or after white space, so a@b.com is not one. The
// path runs to the next white space, or is quoted: @"a file.txt".
func Find(text string) []Token {
	var out []Token
	for i := 0; i < len(text); i++ {
		if text[i] != '@' || !wordStart(text, i) {
			continue
		}
		if t, ok := tokenAt(text, i); ok {
			out = append(out, t)
			i = t.End - 1
		}
	}
	return out
}

// wordStart reports whether text[i] starts a word.
func wordStart(text string, i int) bool {
	if i == 0 {
		return true
	}
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return unicode.IsSpace(r)
}

// tokenAt reads the token whose "@" is text[i].
func tokenAt(text string, i int) (Token, bool) {
	rest := text[i+1:]
	if strings.HasPrefix(rest, `"`) {
		end := strings.IndexAny(rest[1:], "\"\n")
		if end > 0 && rest[1+end] == '"' {
			return Token{Start: i, End: i + 1 + end + 2, Path: rest[1 : 1+end]}, true
		}
		// Not a quoted path: read it as typed.
	}
	end := strings.IndexFunc(rest, unicode.IsSpace)
	if end < 0 {
		end = len(rest)
	}
	if end == 0 {
		return Token{}, false
	}
	return Token{Start: i, End: i + 1 + end, Path: rest[:end]}, true
}

// trailing are the characters a sentence may put after a mention
// ("see @a.go, then …").
const trailing = ".,;:!?)]}'\""

// Expanded is a message with its mentions attached.
type Expanded struct {
	// Prompt is what the model gets: the text as typed, then the files.
	Prompt   string
	Attached []Attachment
	// Media are the images and PDFs mentioned, sent with the message as
	// themselves.
	Media []message.Attachment
	// Problems are the mentions not attached, each a sentence for the user.
	Problems []string
}

// Expand attaches the files text mentions. Each file is attached once;
// a mention that names no readable file of the workspace (missing, a
// directory, outside the workspace, binary, too large) is left as typed
// and reported in Problems. With src nil, or no mention, Prompt is text.
func Expand(src Source, text string) Expanded { return ExpandFor(src, text, text) }

// ExpandFor attaches the files that typed, what the user typed, mentions
// to text, the message the model gets. They differ for a custom command or
// a skill (/NAME ARGS): text is the command file's, and only the user's
// own ARGS may attach files, never an @path written in a repository's
// command or skill (it could name the user's .env).
func ExpandFor(src Source, typed, text string) Expanded {
	x := Expanded{Prompt: text}
	toks := Find(typed)
	if src == nil || len(toks) == 0 {
		return x
	}
	seen := map[string]bool{}
	left := MaxChars
	ms, _ := src.(MediaSource)
	for _, t := range toks {
		if ms != nil {
			if done := x.addMedia(ms, t.Path, seen); done {
				continue
			}
		}
		if len(x.Attached) == MaxFiles {
			x.Problems = append(x.Problems, fmt.Sprintf("@%s not attached: a message attaches at most %d files", t.Path, MaxFiles))
			continue
		}
		if left-noteRoom < minChars {
			x.Problems = append(x.Problems, fmt.Sprintf("@%s not attached: the message already carries %d characters of files", t.Path, MaxChars-left))
			continue
		}
		limit := min(MaxFileChars, left-noteRoom)
		a, err := src.Attach(t.Path, limit)
		name := t.Path
		if err != nil {
			// "see @a.go." names a.go; "@src," names src, and when that
			// fails too, its reason is the one to give (a directory).
			if p := strings.TrimRight(t.Path, trailing); p != t.Path && p != "" {
				a, err = src.Attach(p, limit)
				name = p
			}
		}
		if err != nil {
			x.Problems = append(x.Problems, fmt.Sprintf("@%s not attached: %s", name, err))
			continue
		}
		if seen[a.Path] {
			continue
		}
		seen[a.Path] = true
		left -= utf8.RuneCountInString(a.Text)
		x.Attached = append(x.Attached, a)
	}
	if len(x.Attached) == 0 {
		return x
	}
	var b strings.Builder
	b.WriteString(text)
	b.WriteString("\n\n")
	b.WriteString(Intro)
	for _, a := range x.Attached {
		b.WriteByte('\n')
		writeBlock(&b, a)
	}
	x.Prompt = b.String()
	return x
}

// addMedia attaches the image or PDF p names ("see @a.png." names
// a.png), reporting whether p was one (attached, or a problem said).
func (x *Expanded) addMedia(ms MediaSource, p string, seen map[string]bool) bool {
	a, ok, err := Media(ms, p)
	if !ok && err == nil {
		if q := strings.TrimRight(p, trailing); q != p && q != "" {
			p = q
			a, ok, err = Media(ms, p)
		}
	}
	switch {
	case err != nil:
		x.Problems = append(x.Problems, fmt.Sprintf("@%s not attached: %s", p, err))
		return true
	case !ok:
		return false
	case seen[a.Path]:
		return true
	case len(x.Media) == MaxMedia:
		x.Problems = append(x.Problems, fmt.Sprintf("@%s not attached: a message attaches at most %d images and PDFs", p, MaxMedia))
		return true
	}
	seen[a.Path] = true
	x.Media = append(x.Media, a)
	return true
}

func writeBlock(b *strings.Builder, a Attachment) {
	fmt.Fprintf(b, "%s%s lines=%d shown=%d truncated=%t bytes=%d>\n", openTag, strconv.Quote(a.Path), a.Lines, a.Shown, a.Truncated, len(a.Text))
	b.WriteString(a.Text)
	b.WriteString(closeTag)
}

// Split reads a message Expand made back into the text as typed and its
// attachments; any other text comes back whole, with none.
func Split(prompt string) (text string, atts []Attachment) {
	sep := "\n\n" + Intro + "\n"
	for from := 0; ; {
		i := strings.Index(prompt[from:], sep)
		if i < 0 {
			return prompt, nil
		}
		i += from
		if atts, ok := parseBlocks(prompt[i+len(sep):]); ok {
			return prompt[:i], atts
		}
		from = i + 1
	}
}

// parseBlocks reads blocks that make up the whole of s.
func parseBlocks(s string) ([]Attachment, bool) {
	var out []Attachment
	for {
		rest, ok := strings.CutPrefix(s, openTag)
		if !ok {
			return nil, false
		}
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return nil, false
		}
		p, _ := strconv.Unquote(q)
		rest = rest[len(q):]
		nl := strings.IndexByte(rest, '\n')
		if nl < 0 {
			return nil, false
		}
		var a Attachment
		var n int
		if _, err := fmt.Sscanf(rest[:nl], " lines=%d shown=%d truncated=%t bytes=%d>", &a.Lines, &a.Shown, &a.Truncated, &n); err != nil {
			return nil, false
		}
		rest = rest[nl+1:]
		if n < 0 || n > len(rest) || !strings.HasPrefix(rest[n:], closeTag) {
			return nil, false
		}
		a.Path, a.Text = p, rest[:n]
		out = append(out, a)
		s = rest[n+len(closeTag):]
		if s == "" {
			return out, true
		}
		if s, ok = strings.CutPrefix(s, "\n"); !ok {
			return nil, false
		}
	}
}

// MediaSummary describes an image or PDF for the transcript, sanitised:
// `shot.png (image, 1.2 MB, 1920×1080)`.
func MediaSummary(a message.Attachment) string { return safe.Text(a.Summary()) }

// Summary describes an attachment for the transcript, sanitised:
// `src/a.go (120 lines)`, `big.log (9000 lines, the first 800 attached)`.
func Summary(a Attachment) string {
	p := safe.Text(a.Path)
	switch {
	case a.Truncated:
		return fmt.Sprintf("%s (%s, the first %d attached)", p, lines(a.Lines), a.Shown)
	default:
		return fmt.Sprintf("%s (%s)", p, lines(a.Lines))
	}
}

func lines(n int) string {
	if n == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", n)
}
