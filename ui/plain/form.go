package plain

import (
	"context"
	"fmt"
	"strings"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/tools"
)

// The line form of an MCP server's elicitation (agent.FormRequested): one
// prompt a field, its default in brackets, which Enter takes; "!decline"
// declines the form, "!cancel" dismisses it, Ctrl+C ends the turn (the
// form cancelled with it). A field that looks like a secret is read with
// the terminal's echo off and never printed back.

const (
	formDecline = "!decline"
	formCancel  = "!cancel"
)

// form asks req's fields and replies; inputEnded when the input ran out.
func (s *session) form(ctx context.Context, cancel context.CancelFunc, req agent.FormRequested) (inputEnded bool) {
	f := req.Form
	s.newline()
	s.println("form: " + safe.Reveal(f.Who()) + " asks (a form from an MCP server, not from co)")
	if m := strings.TrimSpace(f.Message); m != "" {
		s.println(indent(safe.Reveal(m)))
	}
	if w := f.SecretWarning(); w != "" {
		s.println("warning: " + safe.Reveal(w))
	}
	answer := func(a tools.FormAnswer) {
		req.Reply(a)
		switch a.Action {
		case tools.FormAccept:
			s.println("form: sent to MCP server " + safe.Text(f.Server))
		case tools.FormDecline:
			s.println("form: declined")
		default:
			s.println("form: cancelled")
		}
	}
	// ask reads one answer; done is set when the form ended meanwhile.
	ask := func(prompt string, secret bool) (line string, done bool) {
		s.print(prompt)
		restore := func() {}
		if secret {
			restore = s.noEcho()
		}
		defer restore()
		select {
		case <-ctx.Done():
			return "", true
		case <-req.Withdrawn:
			s.println("\nform: withdrawn by the server")
			return "", true
		case <-s.o.Interrupts:
			s.println("^C")
			answer(tools.FormAnswer{Action: tools.FormCancel})
			cancel()
			return "", true
		case l, ok := <-s.lines:
			if !ok {
				s.println("\n(input ended: form cancelled)")
				req.Reply(tools.FormAnswer{Action: tools.FormCancel})
				inputEnded = true
				return "", true
			}
			switch {
			case secret && l != "":
				s.println("(not shown)")
			case secret:
				s.println("")
			case !s.o.isTTYEcho():
				s.println(l)
			}
			switch strings.TrimSpace(l) {
			case formDecline:
				answer(tools.FormAnswer{Action: tools.FormDecline})
				return "", true
			case formCancel:
				answer(tools.FormAnswer{Action: tools.FormCancel})
				return "", true
			}
			return l, false
		}
	}
	if f.URL != "" {
		s.println("  it asks you to open: " + safe.Reveal(f.URL))
		s.println("  on host: " + safe.Reveal(tools.URLHost(f.URL)))
		s.println("  co does not open it; open it yourself if you trust it.")
		for {
			l, done := ask("Open it? [y/n] ", false)
			if done {
				return inputEnded
			}
			switch strings.ToLower(strings.TrimSpace(l)) {
			case "y", "yes":
				answer(tools.FormAnswer{Action: tools.FormAccept})
				return false
			case "n", "no":
				answer(tools.FormAnswer{Action: tools.FormDecline})
				return false
			}
			s.println("answer y (you will open it) or n (decline)")
		}
	}
	s.println(fmt.Sprintf("  Enter takes the value in [brackets]; %s declines the form, %s dismisses it.", formDecline, formCancel))
fill:
	content := map[string]any{}
	for _, fl := range f.Fields {
		s.println("  " + fieldLine(fl))
		for i, o := range fl.Options {
			s.println(fmt.Sprintf("    %d) %s", i+1, optionText(o)))
		}
		prompt := safe.Reveal(fl.Label())
		if fl.Default != nil {
			d := fl.Text(fl.Default)
			if fl.Secret {
				d = "keep the default, not shown"
			}
			prompt += " [" + safe.Reveal(d) + "]"
		}
		for {
			l, done := ask(prompt+": ", fl.Secret)
			if done {
				return inputEnded
			}
			v, err := fl.Parse(l)
			if err != nil {
				s.println("  " + safe.Reveal(err.Error()))
				continue
			}
			if v == nil {
				v = fl.Default
			}
			if v == nil && fl.Required {
				s.println(fmt.Sprintf("  %s is required: type a value, or %s", safe.Reveal(fl.Label()), formDecline))
				continue
			}
			if v != nil {
				content[fl.Name] = v
			}
			break
		}
	}
	// The spec: the user reviews the answers before they are sent.
	s.println("  to send to MCP server " + safe.Text(f.Server) + ":")
	for _, fl := range f.Fields {
		v, ok := content[fl.Name]
		text := "(left out)"
		switch {
		case ok && fl.Secret:
			text = "(not shown)"
		case ok:
			text = safe.Reveal(fl.Text(v))
		}
		s.println("    " + safe.Reveal(fl.Label()) + ": " + text)
	}
	for {
		l, done := ask("Send it? [y = send, n = decline, e = fill in again] ", false)
		if done {
			return inputEnded
		}
		switch strings.ToLower(strings.TrimSpace(l)) {
		case "y", "yes":
			answer(tools.FormAnswer{Action: tools.FormAccept, Content: content})
			return false
		case "n", "no":
			answer(tools.FormAnswer{Action: tools.FormDecline})
			return false
		case "e", "edit":
			goto fill
		}
		s.println("answer y (send), n (decline) or e (fill in again)")
	}
}

// fieldLine describes a field: its name, kind and whether it is required,
// then its description.
func fieldLine(f tools.Field) string {
	var kind []string
	if f.Required {
		kind = append(kind, "required")
	}
	switch f.Kind {
	case tools.FieldNumber:
		kind = append(kind, "a number")
	case tools.FieldInteger:
		kind = append(kind, "a whole number")
	case tools.FieldBoolean:
		kind = append(kind, "yes or no")
	case tools.FieldChoice:
		kind = append(kind, "one of, by number or value")
	case tools.FieldMulti:
		kind = append(kind, "any of, by number or value, separated by commas")
	default:
		if f.Format != "" {
			kind = append(kind, f.Format)
		}
	}
	if f.Secret {
		kind = append(kind, "looks like a secret: not shown as you type")
	}
	line := safe.Reveal(f.Label())
	if len(kind) > 0 {
		line += " (" + strings.Join(kind, ", ") + ")"
	}
	if d := strings.TrimSpace(f.Description); d != "" {
		line += ": " + safe.Reveal(d)
	}
	return line
}

func optionText(o tools.Option) string {
	if o.Title != "" && o.Title != o.Value {
		return safe.Reveal(o.Title) + " (" + safe.Reveal(o.Value) + ")"
	}
	return safe.Reveal(o.Value)
}
