// Package present turns agent data into plain text shared by every front
// end: a call's signature, a call's outcome, a duration. No styling here;
// every string that came from the model or a tool has been through the safe
// sanitiser.
package present

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/lib/cost"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

// Call renders a call on one line as name(key='value', n=3), keeping the
// argument order the model used. Invalid JSON is shown raw. Hidden
// characters are revealed, and newlines and tabs in the arguments are shown
// as ⏎ and \t (Line), so the summary never spills onto the next line.
func Call(name, args string) string {
	return Line(safe.Reveal(name) + "(" + Args(args) + ")")
}

// CallFull is Call with the arguments' newlines kept, for the views that
// show the whole text (the expanded tool call).
func CallFull(name, args string) string {
	return safe.Reveal(name) + "(" + Args(args) + ")"
}

// Line makes sanitised text fit on one line: a newline is shown as ⏎ and a
// tab as \t (a CRLF is one ⏎).
func Line(s string) string {
	if !strings.ContainsAny(s, "\n\t\r") {
		return s
	}
	return lineReplacer.Replace(s)
}

var lineReplacer = strings.NewReplacer("\r\n", "⏎", "\n", "⏎", "\t", `\t`, "\r", "")

// ShownAbove stands for an argument a question leaves out of its call
// line because the lines above it show that argument whole (CallOmitting).
const ShownAbove = "(shown above)"

// CallOmitting is Call with the arguments in omit written key=(shown
// above): an approval question that printed them (the preview, a command
// of several lines) does not print them again.
func CallOmitting(name, args string, omit map[string]bool) string {
	return Line(safe.Reveal(name) + "(" + args2(args, omit) + ")")
}

// Args renders a JSON arguments object as key='value', key=3. String
// values keep their newlines; Call puts them on one line.
func Args(args string) string { return args2(args, nil) }

func args2(args string, omit map[string]bool) string {
	dec := json.NewDecoder(strings.NewReader(args))
	dec.UseNumber()
	tok, err := dec.Token()
	if d, ok := tok.(json.Delim); err != nil || !ok || d != '{' {
		return safe.Reveal(strings.TrimSpace(args))
	}
	var parts []string
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return safe.Reveal(strings.TrimSpace(args))
		}
		key, _ := kt.(string)
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return safe.Reveal(strings.TrimSpace(args))
		}
		if omit[key] {
			parts = append(parts, safe.Reveal(key)+"="+ShownAbove)
			continue
		}
		parts = append(parts, safe.Reveal(key)+"="+value(raw))
	}
	return strings.Join(parts, ", ")
}

func value(raw json.RawMessage) string {
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return quoted(safe.Reveal(s))
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) == nil {
		return safe.Reveal(buf.String())
	}
	return safe.Reveal(string(raw))
}

// quoted puts a string argument in quotes as a person writes it: single
// quotes, or double ones when it holds a single quote and no double one
// (cmd="echo 'hi'", not single quotes with \' inside). Only a value that
// holds both kinds escapes, its single quotes and backslashes, so no value
// can seem to end early and show an argument the call does not have.
func quoted(s string) string {
	switch {
	case !strings.Contains(s, "'"):
		return "'" + s + "'"
	case !strings.Contains(s, `"`):
		return `"` + s + `"`
	}
	return "'" + strings.NewReplacer(`\`, `\\`, "'", `\'`).Replace(s) + "'"
}

// Duration renders d compactly: 85ms, 1.2s, 2m03s.
func Duration(d time.Duration) string {
	switch {
	case d < time.Second:
		return fmt.Sprintf("%dms", d.Milliseconds())
	case d < time.Minute:
		return fmt.Sprintf("%.1fs", d.Seconds())
	default:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	}
}

// Outcome is a one-line summary of a finished call: "done in 85ms",
// "denied by the user", "failed: …".
func Outcome(f agent.ToolCallFinished) string {
	switch f.Status {
	case message.CallDone:
		s := "done"
		if f.Duration > 0 { // a call read back from a saved session has none
			s += " in " + Duration(f.Duration)
		}
		if f.Decision == message.BySessionGrant || f.Decision == message.ByYolo || f.Decision == message.ByHook {
			s += " (" + string(f.Decision) + ")"
		}
		return s
	case message.CallDenied:
		switch f.Decision {
		case message.ByPolicyDeny, message.ByHookDeny:
			// The hook's reason is its own output: made safe.
			return safe.Text(f.Err)
		case message.ByHeadless:
			// Nobody was asked (co run without --yes).
			return agent.NeedsApproval
		}
		return "denied by the user"
	case message.CallInterrupted:
		return "interrupted"
	case message.CallWaiting:
		// A scheduled run kept it for the user (issue 29).
		return agent.Waiting
	case message.CallRetry:
		return "rejected, sent back to the model: " + FirstLine(safe.Text(f.Err))
	default:
		return "failed: " + FirstLine(safe.Text(f.Err))
	}
}

// FirstLine returns s up to its first newline.
func FirstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// Tokens renders a usage figure: 1234 → 1.2k.
func Tokens(n int) string {
	if n < 1000 {
		return fmt.Sprint(n)
	}
	if n < 1_000_000 {
		return fmt.Sprintf("%.1fk", float64(n)/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}

// Plain is text from the model or a tool, made safe for the terminal.
func Plain(s string) string { return safe.Text(s) }

// BangCommand is the cmd argument of a shell call's JSON arguments, or the
// arguments as they are when they have none.
func BangCommand(args string) string {
	var a struct {
		Cmd string `json:"cmd"`
	}
	if json.Unmarshal([]byte(args), &a) == nil && a.Cmd != "" {
		return a.Cmd
	}
	return args
}

// Risk are the lines an approval question adds for a call that follows
// untrusted content: the sources, where the call goes and what leaves.
// Plain text, not yet sanitised: each front end passes them through its
// sanitiser (safe.Reveal in questions, so hidden characters show).
func Risk(c tools.Check) []string {
	if len(c.Untrusted) == 0 {
		return nil
	}
	lines := []string{
		"⚠ This call follows untrusted content from " + agent.SourceList(c.Untrusted) + ".",
		"  That content may be steering the model: only your answer runs it (no grant, yolo, --yes or auto-approval covers it).",
	}
	if o := c.Outbound; o != nil {
		if o.To != "" {
			lines = append(lines, "  to: "+o.To)
		}
		if o.What != "" {
			lines = append(lines, "  sends: "+o.What)
		}
	}
	return lines
}

// Note is something said outside any turn, when it happens: an MCP server
// that failed to start, exited or connected. Problem marks a failure. The
// text is not yet sanitised.
type Note struct {
	Text    string
	Problem bool
}

// AfterLabel is a sentence after a label such as "note: ": its first
// letter lower case ("note: memory is unavailable"), unless the first word
// is an acronym or a name written in capitals (MCP, OTLP).
func AfterLabel(s string) string {
	r := []rune(s)
	if len(r) < 2 || !unicode.IsUpper(r[0]) || !unicode.IsLower(r[1]) {
		return s
	}
	r[0] = unicode.ToLower(r[0])
	return string(r)
}

// SessionCost is what the status line shows of a session's cost: its
// priced part ("$0.0123", with "+" when some calls had no price), or ""
// when nothing priced was spent (a local model, or no price known: /cost
// says why).
func SessionCost(u message.Usage) string {
	if u.Cost == 0 {
		return ""
	}
	if u.Unpriced != "" {
		return cost.Format(u.Cost) + "+"
	}
	return cost.Format(u.Cost)
}
