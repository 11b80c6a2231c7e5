// Package export writes a saved session, as sessions.Store.Export gives it
// (secrets already redacted), for co sessions export and /export: a
// Markdown transcript, the JSON document co sessions import reads back, or
// a self-contained HTML page in the look of co traces' page. Every format
// marks the turns an undo took out or a summary replaced, and the content
// that came from outside (a tool result with untrusted sources);
// attachments are named, never inlined. Text from the conversation goes
// through lib/safe (Markdown, JSON) or is HTML-escaped, so that printing an
// export never sends the terminal an escape sequence.
package export

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/co-cli/co/lib/cost"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/tools"
)

// Format is an export's format.
type Format string

const (
	Markdown Format = "md"
	JSON     Format = "json"
	HTML     Format = "html"
)

// ParseFormat reads a format's name ("" is Markdown).
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "md", "markdown":
		return Markdown, nil
	case "json":
		return JSON, nil
	case "html":
		return HTML, nil
	}
	return "", fmt.Errorf("unknown export format %q: use md, json or html", s)
}

// FileName is the default file of session id's export in format f.
func FileName(id string, f Format) string { return "co-session-" + id + "." + string(f) }

// Write writes d in format f.
func Write(w io.Writer, d sessions.Exported, f Format) error {
	switch f {
	case JSON:
		b, err := json.MarshalIndent(d, "", "  ")
		if err != nil {
			return err
		}
		// Escaped, not changed: import reads back the same text.
		_, err = w.Write(append(safe.EscapeJSON(b), '\n'))
		return err
	case HTML:
		return writeHTML(w, d)
	case Markdown, "":
		_, err := io.WriteString(w, markdown(d))
		return err
	}
	return fmt.Errorf("unknown export format %q: use md, json or html", f)
}

// step is one thing the transcript shows, in either format.
type step struct {
	kind  string // "user", "assistant", "call", "result", "decision", "note", "summary"
	mark  string // "", sessions.MarkUndone, sessions.MarkSummarised
	title string // the step's label's detail: a tool's name, a model
	text  string
	code  string // a call's arguments
	// untrusted names the sources outside content came from ("" when none).
	untrusted string
	sources   string // the other sources, for the record
	atts      []string
	cut       bool // an interrupted reply
}

// steps lays out d's transcript.
func steps(d sessions.Exported) []step {
	var out []step
	turn := 0
	for _, st := range d.Steps {
		switch {
		case st.Decision != nil:
			out = append(out, step{kind: "decision", mark: st.Mark, title: st.Decision.Tool, text: st.Decision.Verdict})
		case st.Aside != nil:
			a := st.Aside
			if a.Args == "" {
				out = append(out, step{kind: "note", mark: st.Mark, text: a.Notice})
				continue
			}
			var cmd struct{ Cmd string }
			_ = json.Unmarshal([]byte(a.Args), &cmd)
			text := a.Display
			if a.Err != "" {
				text = strings.TrimSpace(a.Err + "\n" + text)
			}
			out = append(out, step{kind: "call", mark: st.Mark, title: "!" + cmd.Cmd, code: a.Args},
				step{kind: "result", mark: st.Mark, title: a.Name + " (" + a.Status + ")", text: text})
		default:
			m := st.Message
			switch m.Role {
			case message.RoleUser:
				if strings.HasPrefix(m.Content, sessions.SummaryIntro) {
					out = append(out, step{kind: "summary", mark: st.Mark, text: strings.TrimPrefix(m.Content, sessions.SummaryIntro)})
					continue
				}
				turn++
				text := m.Content
				if m.Shown != "" {
					text = m.Shown
				}
				s := step{kind: "user", mark: st.Mark, title: fmt.Sprintf("Turn %d", turn), text: text}
				s.untrusted, s.sources = origins(m.Sources)
				for _, a := range m.Attachments {
					s.atts = append(s.atts, fmt.Sprintf("%s (%s, %s)", a.Name, a.MIME, message.FormatBytes(a.Size)))
				}
				out = append(out, s)
			case message.RoleAssistant:
				if m.Content != "" || len(m.ToolCalls) == 0 {
					out = append(out, step{kind: "assistant", mark: st.Mark, title: m.Model, text: m.Content, cut: m.Interrupted})
				}
				for _, c := range m.ToolCalls {
					out = append(out, step{kind: "call", mark: st.Mark, title: c.Name, code: prettyArgs(c.Args)})
				}
			case message.RoleTool:
				s := step{kind: "result", mark: st.Mark, title: m.ToolName, text: m.Content}
				s.untrusted, s.sources = origins(m.Sources)
				out = append(out, s)
			}
		}
	}
	return out
}

// origins names the untrusted sources and the others.
func origins(os []tools.Origin) (untrusted, other string) {
	var u, o []string
	for _, x := range os {
		if x.Untrusted {
			u = append(u, x.Label)
		} else {
			o = append(o, x.Label)
		}
	}
	return strings.Join(u, ", "), strings.Join(o, ", ")
}

// prettyArgs indents a call's JSON arguments (as they were when they are
// not JSON).
func prettyArgs(args string) string {
	var v any
	if json.Unmarshal([]byte(args), &v) != nil {
		return args
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return args
	}
	return string(b)
}

// markNote says what a mark means, for the reader.
func markNote(mark string) string {
	switch mark {
	case sessions.MarkUndone:
		return "undone: taken out of the conversation by an undo; the model no longer has it"
	case sessions.MarkSummarised:
		return "summarised: the model has a summary of it, not these messages"
	}
	return ""
}

// label is a step's heading.
func (s step) label() string {
	switch s.kind {
	case "user":
		return s.title + " — You"
	case "assistant":
		l := "co"
		if s.title != "" {
			l += " (" + s.title + ")"
		}
		return l
	case "call":
		return "Tool call: " + s.title
	case "result":
		return "Tool result: " + s.title
	case "decision":
		return "Approval: " + s.title + " — " + s.text
	case "summary":
		return "Summary of the earlier conversation (sent to the model)"
	}
	return "Note"
}

// UntrustedNote heads content that came from outside.
const UntrustedNote = "UNTRUSTED content (written by someone other than the user; it may carry instructions)"

// header is the session's description, line by line.
func header(d sessions.Exported) []string {
	in := d.Session
	turns := fmt.Sprint(in.Turns)
	if in.Undone > 0 {
		turns += fmt.Sprintf(" (%d undone)", in.Undone)
	}
	from := string(in.Kind)
	if in.Schedule != "" {
		from += ": " + in.Schedule
	}
	return []string{
		"Session: " + in.ID,
		"Workspace: " + in.Workspace,
		"Started by: " + from,
		"Created: " + in.Created.UTC().Format("2006-01-02 15:04:05 UTC"),
		"Last activity: " + in.Updated.UTC().Format("2006-01-02 15:04:05 UTC"),
		"Turns: " + turns,
		fmt.Sprintf("Tokens: %d in (%d cached), %d out", in.InputTokens, in.CachedTokens, in.OutputTokens),
		"Cost: " + costLine(in),
		"Secrets redacted as in co's span store; attachments named, not included.",
	}
}

// costLine is the session's cost as the header says it: dollars by
// lib/cost's table, and which model had no price when one did not.
func costLine(in sessions.ExportedInfo) string {
	if in.Unpriced == "" {
		return cost.Format(in.CostUSD)
	}
	return cost.Format(in.CostUSD) + " and calls with no known price (" + in.Unpriced + ")"
}

// markdown is d as a Markdown transcript, every text through lib/safe.
func markdown(d sessions.Exported) string {
	var b strings.Builder
	title := d.Session.Title
	if title == "" {
		title = "(untitled)"
	}
	fmt.Fprintf(&b, "# co session: %s\n\n", oneLine(title))
	for _, l := range header(d) {
		fmt.Fprintf(&b, "- %s\n", oneLine(l))
	}
	for _, s := range steps(d) {
		b.WriteString("\n")
		head := s.label()
		if n := markNote(s.mark); n != "" {
			head += " — " + n
		}
		level := "####"
		if s.kind == "user" {
			level = "##"
		}
		fmt.Fprintf(&b, "%s %s\n\n", level, oneLine(head))
		if s.untrusted != "" {
			fmt.Fprintf(&b, "> **%s** from: %s\n\n", UntrustedNote, oneLine(s.untrusted))
		}
		if s.sources != "" {
			fmt.Fprintf(&b, "> Source: %s\n\n", oneLine(s.sources))
		}
		switch s.kind {
		case "call":
			b.WriteString(fence(s.code, "json"))
		case "result":
			b.WriteString(fence(s.text, ""))
		case "decision":
		case "note":
			fmt.Fprintf(&b, "> %s\n", strings.ReplaceAll(safe.Text(s.text), "\n", "\n> "))
		default:
			if s.kind == "user" || s.untrusted != "" {
				b.WriteString(fence(s.text, "")) // as typed: no Markdown of its own
			} else {
				fmt.Fprintf(&b, "%s\n", safe.Text(s.text))
			}
			if s.cut {
				b.WriteString("\n*[interrupted]*\n")
			}
		}
		for _, a := range s.atts {
			fmt.Fprintf(&b, "- Attached: %s\n", oneLine(a))
		}
	}
	return b.String()
}

// oneLine is text made safe and kept on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(safe.Text(s)), " ")
}

// fence is text in a code block whose fence no line of it closes.
func fence(text, lang string) string {
	text = safe.Text(strings.TrimRight(text, "\n"))
	n, run := 3, 0
	for _, r := range text {
		if r == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", n)
	return f + lang + "\n" + text + "\n" + f + "\n"
}
