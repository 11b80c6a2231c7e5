package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/config"
	"github.com/co-cli/co/deliver"
	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/schedule"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/tools/google"
	"github.com/co-cli/co/tools/slack"
	"github.com/co-cli/co/ui/headless"
	"github.com/co-cli/co/ui/mention"
	"github.com/co-cli/co/ui/plain"
	"github.com/co-cli/co/ui/present"
	"github.com/co-cli/co/ui/slash"
)

// runScheduled is one scheduled run of sch, in its workspace (the working
// directory), as its systemd timer, cron or launchd entry makes it through
// co schedule run NAME: a new session of kind sessions.Scheduled, the
// agent unattended (headless.Unattended: what needs approval waits for the
// user, stored with its provenance; approve and tools come from the user's
// settings only). The answer and every notice go to log. It returns the
// saved session's id and the exit code: co run's, 4 (headless.ExitWaiting)
// when a call waits. Then the run's summary goes where sch.Notify says
// (deliver), with the untrusted sources the run read and whether it held
// private data; what that does is in log and never changes the code.
func runScheduled(ctx context.Context, s env, sch config.Schedule, log io.Writer) (sessionID string, code int) {
	r := runScheduledWith(ctx, s, sch, log, wallClock())
	return r.id, r.code
}

// scheduledRun is how a scheduled run ended: its saved session, its exit
// code and how many attempts it made (more than one when the model could
// not be reached at first).
type scheduledRun struct {
	id       string
	code     int
	attempts int
	// waiting are the calls the run left waiting for the user's approval;
	// outcome is its session's (sessions.Info.Outcome). co schedule run
	// says them when it ends (runEndLine).
	waiting []sessions.Pending
	outcome string
}

// runClock is what a scheduled run reads the time from and waits with
// between attempts; tests give their own.
type runClock struct {
	now func() time.Time
	// sleep waits d, or returns ctx's error when ctx ends first.
	sleep func(ctx context.Context, d time.Duration) error
}

func wallClock() runClock {
	return runClock{now: time.Now, sleep: func(ctx context.Context, d time.Duration) error {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
			return nil
		}
	}}
}

// runScheduledWith is runScheduled on clock. A turn that failed because
// the model could not be reached (provider.Unreachable), before anything
// reached the model or ran, is tried again in a new session, the failed
// one removed (it holds the prompt alone), after the waits of
// schedule.RetryWait: at most schedule.RetryAttempts, never into the
// schedule's next run. The log says each attempt; when they all fail, the
// outcome says how many there were.
func runScheduledWith(ctx context.Context, s env, sch config.Schedule, log io.Writer, clock runClock) scheduledRun {
	start := clock.now()
	l, err := loadSettings()
	if err != nil {
		fmt.Fprintf(log, "co: %v\n", err)
		return scheduledRun{code: exitError, attempts: 1}
	}
	if sch.MaxCost > 0 { // the schedule's own limit, for this run
		l.Settings.MaxCost = sch.MaxCost
	}
	a, err := app.New(ctx, l, app.Options{Version: s.version, Kind: sessions.Scheduled, Schedule: sch.Name})
	if err != nil {
		printConfigWarnings(env{Streams{In: s.In, Out: log, Err: log}, s.version}, l)
		fmt.Fprintf(log, "co: %v\n", err)
		deliverRun(ctx, l, sch, deliver.Run{Schedule: sch.Name, Outcome: deliver.Outcome(present.FirstLine(err.Error()), 0), Start: start}, nil, log)
		return scheduledRun{code: exitError, attempts: 1}
	}
	defer a.Close()
	for _, w := range startupWarnings(a) {
		fmt.Fprintf(log, "co: %s\n", w)
	}
	if n := homeNotice(a); n != "" {
		fmt.Fprintf(log, "co: %s\n", n)
	}
	if n := hooksNotice(a.Hooks(), "co hooks", "co hooks trust"); n != "" {
		fmt.Fprintf(log, "co: note: %s\n", n)
	}
	for _, n := range extensionNotes(a.Extensions.Get()) {
		fmt.Fprintf(log, "co: %s\n", n)
	}
	// No provider usable: when co would have used Ollama had it answered
	// (nothing else set), it may be starting still (a run at boot), so the
	// run tries again as for a model it cannot reach, looking for Ollama
	// again before each attempt. Otherwise only the settings can fix it,
	// and the run's outcome says which.
	ps := app.ProviderSettings(l)
	_, _, perr := a.Agent.WaitProvider(ctx)
	noProvider := errors.Is(perr, provider.ErrNoProvider)
	waitsForOllama := noProvider && app.NeedsProbe(ps)
	if noProvider {
		// The error names environment variables; cron and systemd start
		// co without the user's shell, so they would not help.
		fmt.Fprintln(log, noProviderHint)
	}
	prompt, shown, media := scheduledPrompt(a, sch.Prompt, log)
	next := nextRunAfter(sch, start)
	var code int
	attempt := 1
	for ; ; attempt++ {
		var failed *agent.TurnFailed
		code = headless.Run(ctx, headless.Options{Agent: a.Agent, Prompt: prompt, Shown: shown, Attachments: media, Out: log, Err: log,
			Unattended: &headless.Unattended{Schedule: sch.Name, Approve: sch.Approve, Tools: sch.Tools, Store: a.Sessions},
			AtExit:     func() (string, []string) { return a.ExitCheck(ctx) },
			Failed:     func(f agent.TurnFailed) { failed = &f }})
		noneYet := waitsForOllama && noProviderBeforeAnything(failed, a.Agent.History())
		if !noneYet && !unreachableBeforeAnything(failed, a.Agent.History()) {
			if failed != nil && errors.Is(failed.Err, provider.ErrNoProvider) {
				noProviderOutcome(a, log)
			}
			if attempt > 1 {
				fmt.Fprintf(log, "co: attempt %d reached the model (the first %s could not)\n", attempt, plural(attempt-1, "attempt"))
			}
			break
		}
		now := clock.now()
		wait, again := schedule.RetryWait(attempt, now, next)
		if !again {
			gaveUp(a, log, failed.Message, attempt, now.Sub(start), next)
			break
		}
		what := "could not reach the model"
		if noneYet {
			what = "found no provider (Ollama did not answer at " + provider.OllamaRoot(ollamaBaseOf(ps)) + ")"
		}
		fmt.Fprintf(log, "co: attempt %d of at most %d %s; trying again in %s, at %s\n",
			attempt, schedule.RetryAttempts, what, wait, now.Add(wait).Format(time.TimeOnly))
		if err := clock.sleep(ctx, wait); err != nil {
			fmt.Fprintf(log, "co: stopped while waiting to try again: %v\n", err)
			break
		}
		if err := newAttemptSession(a, sch.Name); err != nil {
			fmt.Fprintf(log, "co: cannot try again: %v\n", err)
			break
		}
		if waitsForOllama {
			if p, note, err := a.ResolveProvider(ctx, ps); err == nil {
				ps.Provider = p.Name
				if _, err := a.Agent.Configure(ctx, ps); err == nil {
					waitsForOllama = false
					fmt.Fprintf(log, "co: %s\n", note)
				}
			}
		}
	}
	id := a.Agent.SessionID()
	if len(sch.Notify) > 0 {
		// Under the run's turn: co traces shows the run with where its
		// summary went.
		dctx := trace.ContextWithSpanContext(ctx, a.Agent.LastTurnSpan())
		r := runReport(a.Sessions, sch.Name, id, code, start)
		// What the run read decides where its answer may go (deliver.Run.Withheld).
		risk := a.Agent.Risk()
		r.Untrusted, r.Private = risk.Labels(), risk.Private
		deliverRun(dctx, l, sch, r, a.Telemetry.Tracer, log)
	}
	run := scheduledRun{id: id, code: code, attempts: attempt}
	if info, err := a.Sessions.Find(id); err == nil {
		run.outcome = info.Outcome
	}
	if pending, err := a.Sessions.PendingCalls(sessions.Waiting); err == nil {
		for _, p := range pending {
			if p.SessionID == id {
				run.waiting = append(run.waiting, p)
			}
		}
	}
	return run
}

// unreachableBeforeAnything reports whether a scheduled run's turn failed
// because the model could not be reached (provider.Unreachable), with
// nothing done yet: the history holds the prompt alone (no reply, partial
// or whole, no call), so trying again repeats nothing.
func unreachableBeforeAnything(failed *agent.TurnFailed, h []message.Message) bool {
	return failed != nil && !failed.Interrupted && provider.Unreachable(failed.Err) &&
		len(h) == 1 && h[0].Role == message.RoleUser
}

// noProviderHint is what a scheduled run without a usable provider says
// in its log.
const noProviderHint = "co: a scheduled run does not see your shell's variables: keep the provider in co's settings instead (co config set, e.g. co config set gemini_api_key KEY; or /setup in the chat)"

// noProviderBeforeAnything reports whether a scheduled run's turn failed
// for want of a provider (provider.ErrNoProvider), with nothing sent.
func noProviderBeforeAnything(failed *agent.TurnFailed, h []message.Message) bool {
	return failed != nil && !failed.Interrupted && errors.Is(failed.Err, provider.ErrNoProvider) && len(h) <= 1
}

// noProviderOutcome makes the outcome of a run that had no provider say
// what to configure, where co inbox and the chat's start notice show it:
// the provider's own message names shell variables, which a scheduled run
// does not see.
func noProviderOutcome(a *app.App, log io.Writer) {
	o := "failed: no model provider is configured in co's settings, which is where a scheduled run finds it (not your shell's variables): save one with co config set (e.g. co config set gemini_api_key KEY) or /setup in the chat"
	if err := a.Sessions.SetOutcome(a.Agent.SessionID(), o); err != nil {
		fmt.Fprintf(log, "co: the run's outcome was not saved: %v\n", err)
	}
}

// ollamaBaseOf is where the resolution looks for Ollama.
func ollamaBaseOf(ps provider.ProviderSettings) string {
	if ps.OllamaHost == "" {
		return "http://localhost:11434"
	}
	return ps.OllamaHost
}

// gaveUp says in log and in the run's outcome that the model could not be
// reached in attempts attempts over d; next, when not zero, is the
// schedule's next run, which tries again.
func gaveUp(a *app.App, log io.Writer, why string, attempts int, d time.Duration, next time.Time) {
	if attempts == 1 && next.IsZero() {
		return
	}
	when := ""
	if !next.IsZero() {
		when = "; the next run, at " + next.Format("2006-01-02 15:04") + ", tries again"
	}
	tried := fmt.Sprintf("in %s over %s", plural(attempts, "attempt"), d.Round(time.Second))
	fmt.Fprintf(log, "co: the model could not be reached %s%s\n", tried, when)
	outcome := fmt.Sprintf("failed: the model could not be reached (%s%s): %s", tried, when, present.FirstLine(why))
	if err := a.Sessions.SetOutcome(a.Agent.SessionID(), outcome); err != nil {
		fmt.Fprintf(log, "co: the run's outcome was not saved: %v\n", err)
	}
}

// newAttemptSession starts saving a's scheduled run into a new session of
// the schedule named name and removes the one its last attempt failed in,
// which held the prompt alone (checked again in the store: a session with
// more is never removed).
func newAttemptSession(a *app.App, name string) error {
	old := a.Agent.SessionID()
	rec := a.Sessions.NewScheduled(a.Workspace, name)
	if err := rec.SetOutcome(sessions.OutcomeRunning); err != nil {
		return err
	}
	a.Agent.Reset()
	a.Agent.SetRecorder(rec)
	if _, h, err := a.Sessions.Load(old); err == nil && len(h) <= 1 {
		return a.Sessions.Delete(old)
	}
	return nil
}

// nextRunAfter is the schedule's first run after t, in the scheduler's
// zone; zero when there is none (a once SPEC) or the SPEC cannot be read.
func nextRunAfter(sch config.Schedule, t time.Time) time.Time {
	spec, err := schedule.Parse(sch.At)
	if err != nil {
		return time.Time{}
	}
	zone, _ := schedulerZone()
	next, ok := spec.Next(t.In(zone), t)
	if !ok {
		return time.Time{}
	}
	return next
}

// scheduledPrompt is what the schedule's prompt sends, as the chat would
// send it typed: "/NAME ARGS" a custom command's or skill's text (read
// now; a built-in command is the chat's and is sent as written, said in
// log), with the files the user's own words mention (@path, read now).
// shown is the prompt as written when the text is a command's.
func scheduledPrompt(a *app.App, prompt string, log io.Writer) (text, shown string, media []message.Attachment) {
	text, typed := prompt, prompt
	if slash.IsCommand(prompt) {
		name, args, _ := strings.Cut(strings.TrimSpace(prompt), " ")
		args = strings.TrimSpace(args)
		found := false
		if !slash.Builtin(name) && a.Extensions != nil {
			cs, _ := customCommands(a.Extensions.Get())
			for _, c := range cs {
				if c.Name != name {
					continue
				}
				found = true
				msg, err := c.Message(args)
				if err != nil {
					fmt.Fprintf(log, "note: %s could not be read (%s): the prompt goes as written\n", safe.Text(name), safe.Text(err.Error()))
					break
				}
				text, typed, shown = msg, args, prompt
			}
		}
		switch {
		case slash.Builtin(name):
			fmt.Fprintf(log, "note: %s is a command of the chat, which a scheduled run has not: the prompt goes to the model as written\n", safe.Text(name))
		case !found:
			fmt.Fprintf(log, "note: no custom command or skill %s here: the prompt goes to the model as written\n", safe.Text(name))
		}
	}
	if a.Files == nil {
		return text, shown, nil
	}
	x := mention.ExpandFor(mentionSource{a.Files}, typed, text)
	for _, at := range x.Attached {
		fmt.Fprintln(log, plain.AttachedPrefix+mention.Summary(at))
	}
	for _, p := range x.Problems {
		fmt.Fprintln(log, "note: "+safe.Text(p))
	}
	return x.Prompt, shown, x.Media
}

// withoutWaiting is an outcome without the ", 2 calls waiting" headless
// adds to it.
func withoutWaiting(o string) string {
	if i := strings.LastIndex(o, ", "); i >= 0 && (strings.HasSuffix(o, " call waiting") || strings.HasSuffix(o, " calls waiting")) {
		return o[:i]
	}
	return o
}

// runReport is what the saved session id says of the run that ended with
// code: its outcome, its answer and the calls it left waiting.
func runReport(st *sessions.Store, name, id string, code int, start time.Time) deliver.Run {
	r := deliver.Run{Schedule: name, Start: start, Session: id}
	var failure string
	if info, h, err := st.Load(id); err == nil {
		r.Answer = lastAnswer(h)
		if o := withoutWaiting(info.Outcome); o != "done" && o != "" && o != sessions.OutcomeRunning {
			failure = strings.TrimPrefix(o, "failed: ")
		}
	} else {
		r.Session = ""
	}
	if failure == "" && code != 0 && code != headless.ExitWaiting {
		failure = fmt.Sprintf("exit %d (co schedule logs %s says why)", code, name)
	}
	var waiting int
	if pending, err := st.PendingCalls(sessions.Waiting); err == nil {
		for _, p := range pending {
			if p.SessionID == id {
				waiting++
				r.Waiting = append(r.Waiting, fmt.Sprintf("%d: %s %s", p.ID, p.Tool, present.Args(p.Args)))
			}
		}
	}
	r.Outcome = deliver.Outcome(failure, waiting)
	return r
}

// desktopUID is the user whose /run/user/UID/bus a desktop notification
// falls back to; 0 is this process's (tests set one with no bus).
var desktopUID = 0

// deliverRun sends r where sch.Notify says, through the places the user's
// settings configure (Slack's bot token, the Google account), and says in
// log what it did.
func deliverRun(ctx context.Context, l *config.Loaded, sch config.Schedule, r deliver.Run, tracer trace.Tracer, log io.Writer) {
	if len(sch.Notify) == 0 {
		return
	}
	desktop := deliver.Desktop{Getenv: os.Getenv, UID: desktopUID}
	p := deliver.Places{Tracer: tracer, Desktop: func(ctx context.Context, title, body string) error {
		_, err := desktop.Notify(ctx, title, body)
		return err
	}}
	if sc, ok := app.SlackConfig(l); ok {
		ws := slack.NewWorkspace(sc)
		p.Slack, p.SlackOnlyYou = ws.Deliver, ws.OnlyYou
	} else {
		p.SlackMissing = slack.Unconfigured().Hint
	}
	gc := app.GoogleConfig(l)
	if src := google.Detect(gc); src.Configured() {
		p.Mail = google.NewAccount(gc).DraftToSelf
	} else {
		p.MailMissing = google.Unconfigured(src).Hint
	}
	// A run stopped by a signal still says where its answer went: the
	// deliveries have their own bound (deliver.Timeout each).
	deliver.Deliver(context.WithoutCancel(ctx), r, sch.Notify, p, log)
}

// deliveryStatus is co status's deliveries line: for each kind of place
// the schedules' notify names, whether co could deliver there from here,
// or why not; "" when no schedule has a notify.
func deliveryStatus(l *config.Loaded, getenv func(string) string) string {
	var parts []string
	for _, c := range deliveryChecks(l, l.Settings.Schedules, getenv) {
		parts = append(parts, c.text)
	}
	return strings.Join(parts, "; ")
}

// deliveryCheck is whether one kind of place can be delivered to from
// here (ok), and what co status says of it.
type deliveryCheck struct {
	text string
	ok   bool
}

// deliveryChecks checks each kind of place the notify of schedules names.
func deliveryChecks(l *config.Loaded, schedules []config.Schedule, getenv func(string) string) []deliveryCheck {
	used := map[string]bool{}
	for _, sch := range schedules {
		for _, n := range sch.Notify {
			if kind, _, msg := config.ParseNotify(n); msg == "" {
				used[kind] = true
			}
		}
	}
	var out []deliveryCheck
	if used["desktop"] {
		if addr, err := (deliver.Desktop{Getenv: getenv, UID: desktopUID}).BusAddress(); err != nil {
			out = append(out, deliveryCheck{"desktop: " + err.Error(), false})
		} else {
			out = append(out, deliveryCheck{"desktop: the session bus " + addr, true})
		}
	}
	if used["slack"] {
		if _, ok := app.SlackConfig(l); ok {
			out = append(out, deliveryCheck{"slack: the bot token is set", true})
		} else {
			out = append(out, deliveryCheck{"slack: not configured — " + slack.Unconfigured().Hint, false})
		}
	}
	if used["mail"] {
		if src := google.Detect(app.GoogleConfig(l)); src.Configured() {
			out = append(out, deliveryCheck{"mail: Google, " + src.String(), true})
		} else {
			out = append(out, deliveryCheck{"mail: not configured — " + google.Unconfigured(src).Hint, false})
		}
	}
	return out
}
