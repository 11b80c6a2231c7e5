package tui

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	xansi "github.com/charmbracelet/x/ansi"
	"go.opentelemetry.io/otel/trace"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/telemetry"
	"github.com/co-cli/co/tools"
)

// fakeShell stands in for run_shell_command: every call asks, scoped by
// the command's first word; "rm" must always ask.
type fakeShell struct {
	mu   sync.Mutex
	runs []string
}

func (*fakeShell) Name() string        { return message.BangTool }
func (*fakeShell) Description() string { return "Run a shell command." }
func (*fakeShell) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"cmd":{"type":"string"}},"required":["cmd"]}`)
}
func (*fakeShell) Class() tools.Class { return tools.SideEffect }
func (*fakeShell) Check(_ context.Context, args json.RawMessage) tools.Check {
	var a struct{ Cmd string }
	_ = json.Unmarshal(args, &a)
	word := strings.Fields(a.Cmd + " x")[0]
	return tools.Check{Decision: tools.Ask, Reason: "commands run without a sandbox", Scope: "shell:" + word,
		ScopeLabel: word, AlwaysAsk: word == "rm", Preview: a.Cmd}
}
func (s *fakeShell) Run(_ context.Context, args json.RawMessage) (tools.Result, error) {
	var a struct{ Cmd string }
	if err := json.Unmarshal(args, &a); err != nil {
		return tools.Result{}, err
	}
	s.mu.Lock()
	s.runs = append(s.runs, a.Cmd)
	s.mu.Unlock()
	out := "ran: " + a.Cmd
	if a.Cmd == "long" {
		out = strings.Repeat("line\n", 40) + "end"
	}
	return tools.Text(out), nil
}

func (s *fakeShell) ran() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.runs...)
}

// fakeClock is the App's clock in tests.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: time.Date(2025, 3, 4, 5, 6, 7, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type fixture struct {
	srv   *llmtest.Server
	ag    *agent.Agent
	shell *fakeShell
	feed  *telemetry.Feed // the session's span feed; nil without telemetry
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	return newFixtureTraced(t, nil)
}

// newTracedFixture is newFixture with telemetry set up the way co sets it
// up for a session (telemetry_wiring.go, tui_wiring.go): the agent traces
// through telemetry.Setup's tracer and f.feed is that Tracing's feed, for
// Options.Feed. Spans go to a store in a temporary directory.
func newTracedFixture(t *testing.T) *fixture {
	t.Helper()
	tr, err := telemetry.Setup(telemetry.Options{
		DBPath:    filepath.Join(t.TempDir(), "telemetry.db"),
		SessionID: "test",
		Getenv:    func(string) string { return "" }, // no OTLP export
		NoPrune:   true,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = tr.Shutdown(ctx)
	})
	f := newFixtureTraced(t, tr.Tracer())
	f.feed = tr.Feed()
	return f
}

// newFixtureTraced builds the fixture's agent with tracer (nil: none).
func newFixtureTraced(t *testing.T, tracer trace.Tracer) *fixture {
	t.Helper()
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	sh := &fakeShell{}
	reg, err := tools.NewRegistry(sh)
	if err != nil {
		t.Fatal(err)
	}
	ag := agent.New(agent.Config{
		Provider:     provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "k", Model: "test-model"},
		Tools:        reg,
		Approvals:    agent.NewApprovals(agent.ApprovalOptions{}),
		ToolRetries:  2,
		StallTimeout: 10 * time.Second,
		Tracer:       tracer,
	})
	return &fixture{srv: srv, ag: ag, shell: sh}
}

// driver runs an App the way Bubble Tea does (one goroutine updates; each
// command runs in its own goroutine and its message comes back) but with
// the test in charge of the loop.
//
// It counts the commands in flight that the test's own messages caused,
// directly or through the messages they brought back, so that drain can
// wait for exactly those. Two kinds are not counted: timers (tea.Tick: the
// spinner, a flash, the modal's grace), which a test that needs one waits
// for with until (what a timer brings back is counted, and drain waits for
// a typed burst's flush through Input.flushing); and the App's background
// streams (Init's commands, and the span feed, background notes and todo
// watcher they re-arm), which block until the session ends.
type driver struct {
	t         *testing.T
	app       *App
	clock     *fakeClock
	msgs      chan queuedMsg
	quit      bool
	clipboard []string
	raw       []string // what tea.Raw would have written to the terminal

	mu       sync.Mutex
	inFlight int // counted commands not yet back

	handled []tea.Msg // every message Update was given, in order
}

// queuedMsg is a command's message and whether that command was counted.
type queuedMsg struct {
	msg     tea.Msg
	counted bool
}

func newDriver(t *testing.T, o Options, w, h int) *driver {
	t.Helper()
	clock := newClock()
	o.Now = clock.Now
	if o.Environ == nil {
		o.Environ = []string{}
	}
	if o.Welcome.Version == "" {
		o.Welcome = Welcome{Version: "1.2.3", DataDir: "/home/u/.local/share/co-cli", Isolation: "full", Tools: 1}
	}
	ctx, cancel := context.WithCancel(context.Background())
	app := New(ctx, o)
	t.Cleanup(func() { cancel(); app.close() })
	d := &driver{t: t, app: app, clock: clock, msgs: make(chan queuedMsg, 4096)}
	d.run(app.Init(), false)
	d.send(tea.WindowSizeMsg{Width: w, Height: h})
	return d
}

// send hands msg to Update as the test's own message: what it causes is
// counted.
func (d *driver) send(msg tea.Msg) {
	d.update(msg, true)
}

func (d *driver) update(msg tea.Msg, counted bool) {
	d.handled = append(d.handled, msg)
	_, cmd := d.app.Update(msg)
	switch msg.(type) {
	case spanMsg, backgroundMsg, todosChangedMsg:
		counted = false // a background stream re-arming itself
	}
	d.run(cmd, counted)
}

func (d *driver) run(cmd tea.Cmd, counted bool) {
	if cmd == nil {
		return
	}
	if isTick(cmd) {
		// Not waited for; what it brings back (a burst's flush, the
		// modal's arming) is handled like the test's own message.
		go func() { d.deliver(cmd(), true) }()
		return
	}
	if counted {
		d.mu.Lock()
		d.inFlight++
		d.mu.Unlock()
	}
	go func() {
		d.deliver(cmd(), counted)
		if counted {
			// After deliver: what the command brought back is queued (or
			// its batch's commands are counted) before it stops counting.
			d.mu.Lock()
			d.inFlight--
			d.mu.Unlock()
		}
	}()
}

func (d *driver) deliver(msg tea.Msg, counted bool) {
	if b, ok := msg.(tea.BatchMsg); ok {
		for _, c := range b {
			d.run(c, counted)
		}
		return
	}
	if msg != nil {
		d.msgs <- queuedMsg{msg, counted}
	}
}

// tickCode is the code of the command tea.Tick returns (every one shares
// it; a closure's code pointer does not depend on what it captured).
var tickCode = reflect.ValueOf(tea.Tick(0, func(time.Time) tea.Msg { return nil })).Pointer()

// isTick reports whether cmd is a tea.Tick timer. TestDriverTellsTimersApart
// keeps it true if Bubble Tea changes how Tick is built.
func isTick(cmd tea.Cmd) bool { return reflect.ValueOf(cmd).Pointer() == tickCode }

// process handles one queued message; false when none came within wait.
func (d *driver) process(wait time.Duration) bool {
	select {
	case q := <-d.msgs:
		if os.Getenv("TUI_DEBUG") != "" {
			d.t.Logf("msg %T", q.msg)
		}
		switch m := q.msg.(type) {
		case tea.QuitMsg:
			d.quit = true
			return true
		case tea.RawMsg:
			d.raw = append(d.raw, fmt.Sprint(m.Msg))
			return true
		}
		if reflect.TypeOf(q.msg).String() == "tea.setClipboardMsg" {
			d.clipboard = append(d.clipboard, reflect.ValueOf(q.msg).String())
			return true
		}
		d.update(q.msg, q.counted)
		return true
	case <-time.After(wait):
		return false
	}
}

// seen reports whether Update was given a message for which match holds.
func (d *driver) seen(match func(tea.Msg) bool) bool {
	for _, m := range d.handled {
		if match(m) {
			return true
		}
	}
	return false
}

// until processes messages until cond holds.
func (d *driver) until(what string, cond func() bool) {
	d.t.Helper()
	deadline := time.Now().Add(time.Minute) // a hang detector, not a measure
	for !cond() {
		if time.Now().After(deadline) {
			d.t.Fatalf("timed out waiting for %s; screen:\n%s", what, d.screen())
		}
		d.process(20 * time.Millisecond)
	}
}

// drain processes messages until everything the test's messages so far
// caused has come back and been handled: every counted command has
// returned, the keys typed are in the prompt, and the queue is empty.
// Other timers and the background streams are not waited for (see driver),
// nor can drain be used while a turn waits on something the test holds
// (a modal, a gated file, a held request): it would wait for the turn. It is a point in the order of events, not a
// quiet spell: after drain, a key's effects that are not timers have all
// happened, however slow the machine.
func (d *driver) drain() {
	d.t.Helper()
	deadline := time.Now().Add(time.Minute) // a hang detector, not a measure
	for {
		d.mu.Lock()
		n := d.inFlight
		d.mu.Unlock()
		// A burst of typed keys waits for its flush timer (see Input): the
		// keys are the test's, so their insertion is waited for too.
		if n == 0 && len(d.msgs) == 0 && !d.app.input.flushing {
			return
		}
		if time.Now().After(deadline) {
			d.t.Fatalf("timed out draining %d commands in flight; screen:\n%s", n, d.screen())
		}
		d.process(20 * time.Millisecond)
	}
}

func (d *driver) key(keys ...string) {
	for _, k := range keys {
		d.send(keyMsg(k))
	}
}

func (d *driver) typeText(s string) {
	for _, r := range s {
		d.send(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

// screen is the view without styles.
func (d *driver) screen() string {
	return xansi.Strip(d.app.View().Content)
}

func (d *driver) idle() bool { return !d.app.running }

var namedKeys = map[string]rune{
	"enter": tea.KeyEnter, "esc": tea.KeyEscape, "up": tea.KeyUp, "down": tea.KeyDown, "tab": tea.KeyTab,
	"pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown, "home": tea.KeyHome, "end": tea.KeyEnd, "f2": tea.KeyF2,
	"backspace": tea.KeyBackspace, "space": tea.KeySpace, "left": tea.KeyLeft, "right": tea.KeyRight,
}

func keyMsg(s string) tea.KeyPressMsg {
	var mod tea.KeyMod
	for {
		switch {
		case strings.HasPrefix(s, "ctrl+") && len(s) > 5:
			mod |= tea.ModCtrl
			s = s[5:]
			continue
		case strings.HasPrefix(s, "alt+") && len(s) > 4:
			mod |= tea.ModAlt
			s = s[4:]
			continue
		case strings.HasPrefix(s, "shift+") && len(s) > 6:
			mod |= tea.ModShift
			s = s[6:]
			continue
		}
		break
	}
	if r, ok := namedKeys[s]; ok {
		if r == tea.KeySpace && mod == 0 {
			return tea.KeyPressMsg{Code: r, Text: " "}
		}
		return tea.KeyPressMsg{Code: r, Mod: mod}
	}
	r := []rune(s)
	if len(r) != 1 {
		panic(fmt.Sprintf("unknown key %q", s))
	}
	if mod != 0 {
		return tea.KeyPressMsg{Code: r[0], Mod: mod}
	}
	return tea.KeyPressMsg{Code: r[0], Text: s}
}

// shellCall scripts a run_shell_command call.
func shellCall(id, cmd string) llmtest.ToolCall {
	b, _ := json.Marshal(map[string]string{"cmd": cmd})
	return llmtest.ToolCall{ID: id, Name: message.BangTool, Args: string(b)}
}

type tea_Msg = tea.Msg

func mouseWheel(up bool) tea.MouseWheelMsg {
	b := tea.MouseWheelDown
	if up {
		b = tea.MouseWheelUp
	}
	return tea.MouseWheelMsg{Button: b}
}

func windowSize(w, h int) tea.WindowSizeMsg { return tea.WindowSizeMsg{Width: w, Height: h} }

func lineWidth(l string) int { return xansi.StringWidth(l) }

// The driver's drain leaves timers alone by recognising tea.Tick's
// commands; if Bubble Tea built them differently, drain would wait out
// every flash and spinner (or hang) instead.
func TestDriverTellsTimersApart(t *testing.T) {
	if !isTick(tea.Tick(time.Hour, func(time.Time) tea.Msg { return nil })) {
		t.Fatal("a tea.Tick command is not recognised as a timer")
	}
	for _, cmd := range []tea.Cmd{tea.Quit, tea.Batch(tea.Quit, tea.Suspend), func() tea.Msg { return nil }} {
		if isTick(cmd) {
			t.Fatal("a command that is not a timer is taken for one")
		}
	}
}
