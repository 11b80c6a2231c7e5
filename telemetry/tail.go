package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/co-cli/co/lib/safe"
)

// TailOptions configure Tail.
type TailOptions struct {
	Filter Filter
	// Last is how many stored spans to print first (0: all).
	Last   int
	Follow bool
	// Detail prints arguments, results, prompt and response text, errors.
	Detail bool
	JSON   bool
	// Poll is how often a follower looks for new spans (default 200ms).
	Poll time.Duration
	// Color marks errors in red (for a terminal).
	Color bool
	// Waiting is printed (to the error stream) while the store does not
	// exist yet.
	Waiting io.Writer
}

// Tail prints spans from the store, one line each, then (Follow) the new
// ones as co writes them, until ctx ends.
func Tail(ctx context.Context, st *Store, w io.Writer, o TailOptions) error {
	if o.Poll <= 0 {
		o.Poll = 200 * time.Millisecond
	}
	p := &tailPrinter{w: w, o: o}
	var seq int64
	first := true
	warned := false
	for {
		var spans []Span
		var err error
		var head int64
		if first {
			// Follow from the end of the table (filtered or not): the head
			// first, so nothing written meanwhile is missed.
			if head, _, err = st.Head(ctx); err == nil {
				spans, err = st.Last(ctx, o.Last, o.Filter)
			}
		} else {
			spans, err = st.After(ctx, seq, o.Filter, 1000)
		}
		switch {
		case errors.Is(err, ErrNoStore):
			if !o.Follow {
				return nil
			}
			if !warned && o.Waiting != nil {
				fmt.Fprintf(o.Waiting, "co tail: no spans yet; waiting for co to write %s\n", st.Path())
				warned = true
			}
		case err != nil:
			if ctx.Err() != nil {
				return nil
			}
			return err
		default:
			if first {
				seq, first = head, false
			}
			for i := range spans {
				if spans[i].Seq > seq {
					seq = spans[i].Seq
				}
			}
			// The store keeps spans as they end (a turn after its calls);
			// people read them as they started.
			slices.SortStableFunc(spans, func(a, b Span) int { return a.Start().Compare(b.Start()) })
			for i := range spans {
				if err := p.print(&spans[i]); err != nil {
					return err
				}
			}
			if len(spans) == 1000 {
				continue // more are waiting
			}
		}
		if !o.Follow {
			return nil
		}
		// A writer that deleted everything (pruning) restarts the rowids.
		if !first {
			if head, _, err := st.Head(ctx); err == nil && head < seq {
				seq = 0
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(o.Poll):
		}
	}
}

type tailPrinter struct {
	w         io.Writer
	o         TailOptions
	lastTrace string
}

func (p *tailPrinter) print(s *Span) error {
	if p.o.JSON {
		b, err := json.Marshal(s)
		if err != nil {
			return err
		}
		// Lossless, and no raw C1 control or bidi override reaches the
		// terminal (encoding/json escapes only the C0 controls).
		_, err = fmt.Fprintf(p.w, "%s\n", safe.EscapeJSON(b))
		return err
	}
	var b strings.Builder
	if s.TraceID != p.lastTrace {
		fmt.Fprintf(&b, "── trace %s %s\n", oneLine(s.TraceID), strings.Repeat("─", 20))
		p.lastTrace = s.TraceID
	}
	b.WriteString(FormatLine(s))
	if s.Error() {
		msg := "ERROR"
		if s.StatusDescription != "" {
			msg += ": " + oneLine(firstLine(s.StatusDescription, 120))
		}
		if p.o.Color {
			msg = "\x1b[31m" + msg + "\x1b[0m"
		}
		b.WriteString("  " + msg)
	}
	b.WriteString("\n")
	if p.o.Detail {
		for _, d := range Details(s) {
			writeDetail(&b, d.Label, d.Text, 4000)
		}
	}
	_, err := io.WriteString(p.w, b.String())
	return err
}

// FormatLine is a span's line in co tail: time, kind, name, key
// attributes, duration. Every text in it from the span has been through the
// sanitiser (lib/safe) and is kept on one line.
func FormatLine(s *Span) string {
	kind := strings.ToUpper(s.Category())
	if kind == "OTHER" {
		kind = "SPAN"
	}
	line := fmt.Sprintf("%s  %-5s  %-28s", s.Start().Local().Format("15:04:05.000"), kind, oneLine(s.Name))
	if attrs := KeyAttrs(s); attrs != "" {
		line += "  " + attrs
	}
	return line + "  " + FormatDuration(s.DurationMS)
}

// KeyAttrs are the attributes worth a glance, by kind of span, sanitised.
func KeyAttrs(s *Span) string {
	var parts []string
	add := func(label, key string) {
		if v := s.Attr(key); v != "" {
			v = safe.Text(v)
			if strings.ContainsAny(v, " \t\n") {
				v = fmt.Sprintf("%q", v)
			}
			parts = append(parts, label+"="+v)
		}
	}
	tokens := func() {
		in, out := s.Attr("gen_ai.usage.input_tokens"), s.Attr("gen_ai.usage.output_tokens")
		if in != "" || out != "" {
			parts = append(parts, "tokens="+oneLine(orDash(in))+"/"+oneLine(orDash(out)))
		}
	}
	switch s.Category() {
	case "agent":
		add("turn", "co.turn")
		add("requests", "co.llm_requests")
		add("outcome", "co.outcome")
		tokens()
		add("schedule", "co.schedule.name") // a scheduled run's, or a call approved from its inbox
	case "llm":
		add("provider", "gen_ai.provider.name")
		tokens()
		add("finish", "gen_ai.response.finish_reasons")
		if v, ok := s.Attributes["co.time_to_first_token_ms"].(float64); ok && v > 0 {
			parts = append(parts, "ttft="+FormatDuration(v))
		}
	case "tool":
		add("call", "gen_ai.tool.call.id")
		add("status", "co.tool.status")
		add("by", "co.approval.by")
		if v := s.Attr("co.tool.args_size"); v != "" {
			parts = append(parts, "args="+oneLine(v)+"B")
		}
		if v := s.Attr("co.tool.result_size"); v != "" {
			parts = append(parts, "result="+oneLine(v)+"B")
		}
		add("exit", "co.tool.exit_code")
		add("isolation", "co.sandbox.isolation")
	case "hook":
		add("matcher", "co.hook.matcher")
		add("exit", "co.hook.exit_code")
		if s.Attr("co.hook.blocked") == "true" {
			parts = append(parts, "blocked")
		}
		if s.Attr("co.hook.timed_out") == "true" {
			parts = append(parts, "timed-out")
		}
		add("from", "co.hook.source")
	default:
		// A scheduled run's delivery: where its summary went.
		add("to", "co.deliver.to")
		add("schedule", "co.schedule.name")
	}
	return strings.Join(parts, " ")
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// FormatDuration is a short duration: 850µs, 12ms, 1.25s, 2m03s.
func FormatDuration(ms float64) string {
	switch {
	case ms < 1:
		return fmt.Sprintf("%.0fµs", ms*1000)
	case ms < 100:
		return fmt.Sprintf("%.1fms", ms)
	case ms < 1000:
		return fmt.Sprintf("%.0fms", ms)
	case ms < 60000:
		return fmt.Sprintf("%.2fs", ms/1000)
	}
	d := time.Duration(ms * float64(time.Millisecond)).Round(time.Second)
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}

// Detail is one labelled text of a span (--detail, the viewers).
type Detail struct {
	Label string
	Text  string
}

// Details are a span's longer texts: prompt and response, tool arguments
// and result, the error and exception events.
func Details(s *Span) []Detail {
	var out []Detail
	add := func(label, text string) {
		if strings.TrimSpace(text) != "" {
			out = append(out, Detail{label, text})
		}
	}
	switch s.Category() {
	case "agent":
		add("prompt", MessagesText(s.Attr("gen_ai.input.messages")))
		add("response", MessagesText(s.Attr("gen_ai.output.messages")))
	case "llm":
		add("prompt", MessagesText(s.Attr("gen_ai.input.messages")))
		add("response", MessagesText(s.Attr("gen_ai.output.messages")))
	case "tool":
		add("args", s.Attr("gen_ai.tool.call.arguments"))
		add("result", s.Attr("gen_ai.tool.call.result"))
	case "hook":
		add("command", s.Attr("co.hook.command"))
		add("stdout", s.Attr("co.hook.stdout"))
		add("stderr", s.Attr("co.hook.stderr"))
	}
	if s.Error() {
		add("error", s.StatusDescription)
	}
	for _, ev := range s.Events {
		if ev.Name == "exception" {
			if m, ok := ev.Attributes["exception.message"].(string); ok && m != s.StatusDescription {
				add("exception", m)
			}
		}
	}
	return out
}

func writeDetail(b *strings.Builder, label, text string, max int) {
	if len(text) > max {
		for max > 0 && !utf8.RuneStart(text[max]) {
			max--
		}
		text = text[:max] + fmt.Sprintf("… (%d more bytes; co traces shows all)", len(text)-max)
	}
	text = safe.Text(text) // newlines kept: each is a line of its own below
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	fmt.Fprintf(b, "    %s: %s\n", label, lines[0])
	pad := strings.Repeat(" ", 6+len(label))
	for _, l := range lines[1:] {
		b.WriteString(pad + l + "\n")
	}
}

func firstLine(s string, max int) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > max {
		for max > 0 && !utf8.RuneStart(s[max]) {
			max--
		}
		s = s[:max] + "…"
	}
	return s
}

// oneLine is text from a span made safe for the terminal (lib/safe)
// and kept on one line: a newline shows as ⏎, a tab as
// a space.
func oneLine(s string) string {
	return strings.NewReplacer("\n", "⏎", "\t", " ").Replace(safe.Text(s))
}
