// Package deliver sends a scheduled run's answer where the schedule's
// notify says, after the run: a desktop notification (the freedesktop
// Notifications service on the session bus), a Slack message (a direct
// message from co's bot, or a channel) and a Gmail draft to the account's
// own address. The places come from the user's settings only (a
// schedule's notify), but the answer is the model's: after untrusted
// content it is marked with its sources, and a place others may read
// (Shared) gets no answer at all from a run that also held private data,
// only where to read it (Withheld). A delivery that fails, or a place
// that is not configured, is said in the run's log with how to fix it; it
// never changes the run's exit code.
package deliver

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"github.com/co-cli/co/config"
	"github.com/co-cli/co/lib/safe"
)

// SummaryChars bounds how much of the answer a short summary (desktop,
// Slack) carries.
const SummaryChars = 300

// Run is what a scheduled run left, for its delivery.
type Run struct {
	Schedule string
	// Outcome is how it ended, for people: "done", "2 calls waiting for
	// your approval: co inbox", "failed: …".
	Outcome string
	Answer  string
	// Waiting describes each call kept waiting, one line each.
	Waiting []string
	Start   time.Time
	Session string // the saved session's id; "" when none was saved
	// Untrusted are the untrusted sources the run read (their labels, in
	// order); Private is whether it held the user's private data too.
	Untrusted []string
	Private   bool
}

// Shared says whether people other than the user may read what goes to a
// place of kind: Slack, a channel or a member, unless Places.SlackOnlyYou
// says the place is the user's own DM. The desktop and a draft to your own
// address are yours alone.
func Shared(kind string) bool { return kind != "desktop" && kind != "mail" }

// Withheld says why the answer must not go to a place of kind, "" when
// it may: a place others may read, after a run that held untrusted
// content together with private data (the content could have steered the
// answer to carry the data there). Deliver sends WithheldShort instead of
// the answer to such a place.
func (r Run) Withheld(kind string) string {
	if !Shared(kind) || len(r.Untrusted) == 0 || !r.Private {
		return ""
	}
	return "untrusted content with private data, to a place others may read"
}

// where is the command that shows the run's answer.
func (r Run) where() string {
	if r.Session != "" {
		return "co inbox show " + r.Session + " (or co schedule logs " + clean(r.Schedule) + ")"
	}
	return "co schedule logs " + clean(r.Schedule)
}

// sources names the untrusted sources for a sentence: up to three, then
// how many more.
func (r Run) sources() string {
	ls := make([]string, 0, len(r.Untrusted))
	for _, l := range r.Untrusted {
		ls = append(ls, oneLine(l))
	}
	if len(ls) <= 3 {
		return strings.Join(ls, ", ")
	}
	return strings.Join(ls[:3], ", ") + fmt.Sprintf(" and %d more", len(ls)-3)
}

// caution is the line that marks an answer following untrusted content,
// "" when the run read none.
func (r Run) caution() string {
	if len(r.Untrusted) == 0 {
		return ""
	}
	return "This answer follows untrusted content from " + r.sources() +
		": its links and requests may be theirs, not yours."
}

// WithheldShort is a short summary without the answer: the outcome, why
// the answer is not here and where to read it.
func (r Run) WithheldShort() string {
	return clean(r.Outcome) + "\n\nThe answer is not shown here: this run read untrusted content (" + r.sources() +
		") together with your private data, and its answer could carry that data to whoever reads this. Read it with " + r.where() + "."
}

// Outcome says how a run ended: failure is "" for a run that did not
// fail, waiting the number of calls it left waiting.
func Outcome(failure string, waiting int) string {
	var out string
	switch {
	case failure != "":
		out = "failed: " + failure
	case waiting == 0:
		return "done"
	default:
		out = "done"
	}
	switch {
	case waiting == 1:
		out += "; 1 call waiting for your approval: co inbox"
	case waiting > 1:
		out += fmt.Sprintf("; %d calls waiting for your approval: co inbox", waiting)
	}
	return out
}

// Title is a delivery's title: "co: NAME".
func (r Run) Title() string { return "co: " + clean(r.Schedule) }

// Short is the summary's body: the outcome, the caution after untrusted
// content, then the answer's first SummaryChars characters, on plain lines
// (no control characters, no escape sequence).
func (r Run) Short() string {
	b := clean(r.Outcome)
	if c := r.caution(); c != "" {
		b += "\n\n" + c
	}
	if a := strings.TrimSpace(clean(r.Answer)); a != "" {
		if rs := []rune(a); len(rs) > SummaryChars {
			a = strings.TrimRightFunc(string(rs[:SummaryChars]), unicode.IsSpace) + "…"
		}
		b += "\n\n" + a
	}
	return b
}

// Long is the whole delivery (a mail draft's body): the outcome, the whole
// answer, the calls left waiting, and where to see the run.
func (r Run) Long() string {
	var b strings.Builder
	fmt.Fprintf(&b, "The scheduled run %s (started %s): %s\n\n", clean(r.Schedule), r.Start.Format("2006-01-02 15:04 MST"), clean(r.Outcome))
	if c := r.caution(); c != "" {
		b.WriteString(c + "\n\n")
	}
	if a := strings.TrimSpace(clean(r.Answer)); a != "" {
		b.WriteString(a + "\n")
	} else {
		b.WriteString("(no answer)\n")
	}
	if len(r.Waiting) > 0 {
		fmt.Fprintf(&b, "\nWaiting for your approval (co inbox lists them; approve one in the chat with /inbox approve ID):\n")
		for _, w := range r.Waiting {
			b.WriteString("- " + oneLine(w) + "\n")
		}
	}
	if r.Session != "" {
		fmt.Fprintf(&b, "\nThe run: co inbox show %s\n", r.Session)
	}
	return b.String()
}

// clean is text with no control character but newline and tab, and no
// escape sequence (lib/safe shows them as visible pictures).
func clean(s string) string { return safe.Text(s) }

func oneLine(s string) string { return strings.Join(strings.Fields(clean(s)), " ") }

// Places are the ways to reach each kind of place, or why there is none.
type Places struct {
	// Desktop shows a notification; nil: never (only tests leave it nil).
	Desktop func(ctx context.Context, title, body string) error
	// Slack posts text to a member or channel; nil: Slack is not
	// configured, and SlackMissing says how to configure it.
	Slack        func(ctx context.Context, to, text string) (where string, err error)
	SlackMissing string
	// SlackOnlyYou says whether a Slack place reaches the user alone (their
	// own DM with the bot): such a place gets the answer, marked, as the
	// desktop does. nil: every Slack place is shared.
	SlackOnlyYou func(ctx context.Context, to string) (bool, error)
	// Mail saves a draft to the user's own address; nil: Google is not
	// configured, and MailMissing says how to configure it.
	Mail        func(ctx context.Context, subject, body string) (link string, err error)
	MailMissing string
	// Tracer records a "deliver" span per place (co.deliver.to, and the
	// error of one that failed); nil records none.
	Tracer trace.Tracer
}

// Timeout bounds each delivery.
const Timeout = 30 * time.Second

// Deliver sends r to each place of notify (a schedule's, validated by
// config), one after the other, and writes what happened to log, a line
// each. It returns how many deliveries failed or could not be made.
func Deliver(ctx context.Context, r Run, notify []string, p Places, log io.Writer) (failed int) {
	seen := map[string]bool{}
	for _, n := range notify {
		kind, target, msg := config.ParseNotify(n)
		if msg != "" {
			fmt.Fprintf(log, "co: not delivered to %q: %s\n", n, msg)
			failed++
			continue
		}
		if seen[kind+":"+target] {
			fmt.Fprintf(log, "co: %q is listed more than once in notify; delivered once\n", n)
			continue
		}
		seen[kind+":"+target] = true
		withheld := r.Withheld(kind)
		err := func() (err error) {
			ctx, cancel := context.WithTimeout(ctx, Timeout)
			defer cancel()
			if p.Tracer != nil {
				var span trace.Span
				ctx, span = p.Tracer.Start(ctx, "deliver", trace.WithAttributes(
					attribute.String("co.deliver.to", n), attribute.String("co.schedule.name", r.Schedule),
					attribute.String("co.session.id", r.Session), attribute.String("co.run.outcome", r.Outcome),
					attribute.StringSlice("co.risk.untrusted", r.Untrusted), attribute.Bool("co.risk.private", r.Private)))
				defer func() {
					span.SetAttributes(attribute.Bool("co.deliver.withheld", withheld != ""))
					if withheld != "" {
						span.SetAttributes(attribute.String("co.deliver.withheld_reason", withheld))
					}
					if err != nil {
						span.RecordError(err)
						span.SetStatus(codes.Error, err.Error())
					}
					span.End()
				}()
			}
			switch kind {
			case "desktop":
				if p.Desktop == nil {
					return fmt.Errorf("no desktop notifications here")
				}
				if err := p.Desktop(ctx, r.Title(), r.Short()); err != nil {
					return err
				}
				fmt.Fprintf(log, "co: delivered to the desktop (a notification)\n")
			case "slack":
				if p.Slack == nil {
					return fmt.Errorf("Slack is not configured: %s", p.SlackMissing)
				}
				if withheld != "" && p.SlackOnlyYou != nil {
					// A place no one else reads is not withheld from;
					// not knowing is as good as shared.
					if yours, err := p.SlackOnlyYou(ctx, target); err != nil {
						fmt.Fprintf(log, "co: could not tell whether slack:%s is your own DM, so it is treated as read by others: %s\n", target, clean(err.Error()))
					} else if yours {
						withheld = ""
					}
				}
				body := r.Short()
				if withheld != "" {
					body = r.WithheldShort()
				}
				where, err := p.Slack(ctx, target, "*"+r.Title()+"*\n"+body)
				if err != nil {
					return err
				}
				switch {
				case withheld != "":
					fmt.Fprintf(log, "co: delivered to Slack: %s, without the answer: the run read untrusted content (%s) with your private data; read it with %s\n", where, r.sources(), r.where())
				case r.Withheld(kind) != "":
					fmt.Fprintf(log, "co: delivered to Slack: %s, your own DM, with the answer marked as following untrusted content (%s)\n", where, r.sources())
				default:
					fmt.Fprintf(log, "co: delivered to Slack: %s\n", where)
				}
			case "mail":
				if p.Mail == nil {
					return fmt.Errorf("Google is not configured: %s", p.MailMissing)
				}
				link, err := p.Mail(ctx, r.Title()+" — "+r.Start.Format("Mon 2006-01-02 15:04"), r.Long())
				if err != nil {
					return err
				}
				fmt.Fprintf(log, "co: delivered as a Gmail draft to yourself (not sent): %s\n", link)
			}
			return nil
		}()
		if err != nil {
			fmt.Fprintf(log, "co: not delivered to %s: %s\n", n, clean(err.Error()))
			failed++
		}
	}
	return failed
}
