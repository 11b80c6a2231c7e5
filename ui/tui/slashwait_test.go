package tui

import (
	"strings"
	"sync"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/ui/slash"
)

// gate is a command's answer held until the test opens it: a slow store
// or scheduler.
type gate struct {
	c    chan struct{}
	once sync.Once
}

func newGate(t *testing.T) *gate {
	g := &gate{c: make(chan struct{})}
	t.Cleanup(g.openAll)
	return g
}

func (g *gate) openAll() { g.once.Do(func() { close(g.c) }) }

// A slash command whose answer is slow (here /sessions, whose store is
// held) runs off the loop: Update returns, the line shows at once, a line
// says it is running, keys typed meanwhile wait and follow its answer.
func TestSlowSlashCommandDoesNotBlockTheLoop(t *testing.T) {
	f := newFixture(t)
	g := newGate(t)
	env := slash.Env{Agent: f.ag, Sessions: func(string) slash.Result {
		<-g.c
		return slash.Result{Output: "the saved sessions"}
	}}
	d := newDriver(t, Options{Agent: f.ag, Slash: env}, 100, 30)
	d.typeText("/sessions")
	sendNoBlock(d, g, keyMsg("enter"))
	sendNoBlock(d, g, keyMsg("h"))
	sendNoBlock(d, g, keyMsg("i"))
	d.until("the running line", func() bool {
		return strings.Contains(d.screen(), "⏳ /sessions is running…  · ctrl+c stops waiting for it")
	})
	if s := d.screen(); !strings.Contains(s, "❯ /sessions") || d.app.input.Value() != "" {
		t.Fatalf("while it runs: input %q, screen:\n%s", d.app.input.Value(), s)
	}
	g.openAll()
	d.until("the answer and the keys", func() bool {
		return strings.Contains(d.screen(), "the saved sessions") && d.app.input.Value() == "hi"
	})
	if s := d.screen(); strings.Contains(s, "is running") || strings.Index(s, "❯ /sessions") > strings.Index(s, "the saved sessions") {
		t.Fatalf("screen:\n%s", s)
	}
}

// Ctrl+C stops waiting for a slow command: the keys held go on, and its
// answer shows when it comes.
func TestCtrlCStopsWaitingForASlashCommand(t *testing.T) {
	f := newFixture(t)
	g := newGate(t)
	env := slash.Env{Agent: f.ag, Schedule: func(string) slash.Result {
		<-g.c
		return slash.Result{Output: "no schedules"}
	}}
	d := newDriver(t, Options{Agent: f.ag, Slash: env}, 100, 30)
	d.typeText("/schedule")
	sendNoBlock(d, g, keyMsg("enter"))
	sendNoBlock(d, g, keyMsg("x"))
	sendNoBlock(d, g, keyMsg("ctrl+c"))
	d.until("the key", func() bool { return d.app.input.Value() == "x" })
	if tr := d.transcript(); !strings.Contains(tr, "/schedule goes on in the background; its answer shows here when it comes.") {
		t.Fatalf("transcript:\n%s", tr)
	}
	g.openAll()
	d.until("the late answer", func() bool { return strings.Contains(d.screen(), "no schedules") })
	if v := d.app.input.Value(); v != "x" {
		t.Fatalf("input %q", v)
	}
}

// What a question's yes runs (here a memory forgotten) runs off the loop
// too.
func TestConfirmedCommandRunsOffTheLoop(t *testing.T) {
	f := newFixture(t)
	g := newGate(t)
	env := slash.Env{Agent: f.ag, Memory: func(arg string) slash.Result {
		return slash.Result{Confirm: "Forget [m1] cats?", OnConfirm: func() slash.Result {
			<-g.c
			return slash.Result{Output: "Forgot [m1]."}
		}}
	}}
	d := newDriver(t, Options{Agent: f.ag, Slash: env}, 100, 30)
	d.typeText("/memory rm m1")
	d.key("enter")
	d.until("the question", func() bool { return strings.Contains(d.screen(), "Forget [m1] cats? Type y to confirm") })
	d.typeText("y")
	sendNoBlock(d, g, keyMsg("enter"))
	sendNoBlock(d, g, keyMsg("z"))
	if s := d.screen(); strings.Contains(s, "Forgot [m1].") || d.app.input.Value() != "" {
		t.Fatalf("input %q, screen:\n%s", d.app.input.Value(), s)
	}
	g.openAll()
	d.until("the answer and the key", func() bool {
		return strings.Contains(d.screen(), "Forgot [m1].") && d.app.input.Value() == "z"
	})
}

// A command that switches the conversation (/sessions ID) and is no
// longer waited for (ctrl+c) still switches it when it answers: a message
// sent meanwhile waits for the switch and goes to the conversation
// switched to, not to the old one while the switch replaces its history.
func TestMessageWaitsForASessionSwitchNoLongerWaitedFor(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(llmtest.Reply{Text: "welcome back"})
	g := newGate(t)
	env := slash.Env{Agent: f.ag, Sessions: func(arg string) slash.Result {
		<-g.c // the store is slow
		// What internal/app's SwitchTo does to the agent.
		f.ag.Restore([]message.Message{
			{Role: message.RoleUser, Content: "the earlier question"},
			{Role: message.RoleAssistant, Content: "the earlier answer"},
		}, message.Usage{}, 1)
		return slash.Result{Output: "Switched to session " + arg + ".", Action: slash.Switched}
	}}
	d := newDriver(t, Options{Agent: f.ag, Slash: env}, 100, 30)
	d.typeText("/sessions abc")
	sendNoBlock(d, g, keyMsg("enter"))
	sendNoBlock(d, g, keyMsg("ctrl+c"))
	d.until("ctrl+c", func() bool {
		return strings.Contains(d.transcript(), "/sessions goes on in the background")
	})
	d.typeText("hello")
	sendNoBlock(d, g, keyMsg("enter"))
	d.until("the message queued or sent", func() bool { return d.app.running || len(d.app.queue) > 0 })
	if s := d.screen(); d.app.running || !strings.Contains(s, "⏳ sends once /sessions has answered: hello") {
		t.Fatalf("the turn began during the switch (running %v); screen:\n%s", d.app.running, s)
	}
	g.openAll()
	d.until("the reply", func() bool { return strings.Contains(d.screen(), "welcome back") })
	reqs := f.srv.Requests()
	if len(reqs) != 1 || len(reqs[0].Body.Messages) < 3 || reqs[0].Body.Messages[len(reqs[0].Body.Messages)-3].Content != "the earlier question" {
		t.Fatalf("the message did not go to the switched-to conversation: %+v", reqs)
	}
	if s := d.screen(); strings.Index(s, "Switched to session abc.") > strings.Index(s, "hello") {
		t.Fatalf("the message shows before the switch:\n%s", s)
	}
}

// A key typed while a command runs, before an approval modal appeared,
// is held; handled after the command's answer, when the modal has long
// been up, it is still a key typed before the user could read the modal:
// it goes to the prompt and approves nothing (as in the grace period).
func TestKeyHeldBeforeAModalOpenedDoesNotAnswerIt(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c1", "make deploy")}},
		llmtest.Reply{Text: "ok"},
	)
	g := newGate(t)
	env := slash.Env{Agent: f.ag, Status: func() string {
		<-g.c
		return "the status"
	}}
	d := newDriver(t, Options{Agent: f.ag, Slash: env}, 100, 40)
	d.typeText("deploy")
	d.key("enter")
	d.typeText("/status")
	sendNoBlock(d, g, keyMsg("enter"))
	sendNoBlock(d, g, keyMsg("y")) // held: /status runs; no modal yet
	if d.app.modal != nil || len(d.app.held) != 1 {
		t.Fatalf("modal %v, held %d", d.app.modal != nil, len(d.app.held))
	}
	d.until("the modal", func() bool { return d.app.modal != nil })
	d.clock.Advance(2 * ApprovalGrace) // the modal has been up a while
	g.openAll()
	d.until("the status", func() bool { return d.app.slashWait == nil && strings.Contains(d.transcript(), "the status") })
	if d.app.modal == nil || len(f.shell.ran()) != 0 {
		t.Fatalf("a key typed before the modal showed answered it (shell ran %v)", f.shell.ran())
	}
	if v := d.app.input.Value(); v != "y" {
		t.Errorf("the key should reach the prompt, input %q", v)
	}
	d.key("n") // typed now, the modal on screen: it answers
	d.until("the turn to end", d.idle)
	if len(f.shell.ran()) != 0 {
		t.Fatalf("denied call ran")
	}
}

// A message waiting for its image to be read does not go while a switch
// of the conversation is under way (waited for): it goes after it, to the
// conversation switched to.
func TestMessageWaitingForAnImageWaitsForASessionSwitch(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(llmtest.Reply{Text: "A grey square."})
	g := newGatedMedia(t, "read pic.png")
	pic, _ := g.image(t, "pic.png", 6, 4)
	sw := newGate(t)
	env := slash.Env{Agent: f.ag, Sessions: func(arg string) slash.Result {
		<-sw.c
		f.ag.Restore([]message.Message{
			{Role: message.RoleUser, Content: "the earlier question"},
			{Role: message.RoleAssistant, Content: "the earlier answer"},
		}, message.Usage{}, 1)
		return slash.Result{Output: "Switched to session " + arg + ".", Action: slash.Switched}
	}}
	d := newDriver(t, Options{Agent: f.ag, Mentions: g, Slash: env}, 100, 30)
	sendNoBlock(d, g, tea.PasteMsg{Content: pic})
	d.until("the reading line", func() bool { return strings.Contains(d.screen(), "📎 pic.png (reading…)") })
	d.typeText("what is it")
	sendNoBlock(d, g, keyMsg("enter"))
	d.until("the message to wait", func() bool { return strings.Contains(d.screen(), "⏳ sends once pic.png is read: what is it") })
	d.typeText("/sessions abc")
	sendNoBlock(d, sw, keyMsg("enter"))
	g.open("read pic.png")
	d.until("the image read", func() bool { return d.seen(isMediaRead) })
	if d.app.running || len(f.srv.Requests()) != 0 {
		t.Fatalf("the message went during the switch: running %v", d.app.running)
	}
	sw.openAll()
	d.until("the reply", func() bool { return strings.Contains(d.screen(), "A grey square.") })
	reqs := f.srv.Requests()
	if len(reqs) != 1 || len(reqs[0].Body.Messages) < 3 || reqs[0].Body.Messages[len(reqs[0].Body.Messages)-3].Content != "the earlier question" {
		t.Fatalf("the message did not go to the switched-to conversation: %+v", reqs)
	}
}

// While a message's @files are read its turn counts as running, though
// the agent has not begun it: /sessions ID and /clear are refused then, as
// during the turn, instead of changing the conversation under the message.
func TestSessionSwitchIsRefusedWhileAMessagesFilesAreRead(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(llmtest.Reply{Text: "read it"})
	src := newGatedSource(t, "main.go")
	called := make(chan string, 1)
	env := slash.Env{Agent: f.ag, Sessions: func(arg string) slash.Result {
		called <- arg
		return slash.Result{Output: "Switched to session " + arg + ".", Action: slash.Switched}
	}}
	d := newDriver(t, Options{Agent: f.ag, Mentions: src, Slash: env}, 100, 30)
	d.typeText("see @main.go")
	sendNoBlock(d, src, keyMsg("enter"))
	src.waitCalled(t, "main.go")
	d.typeText("/sessions abc")
	sendNoBlock(d, src, keyMsg("enter"))
	d.until("an answer to /sessions", func() bool {
		return len(called) > 0 || strings.Contains(d.transcript(), "a turn is running; cancel it first")
	})
	if len(called) > 0 {
		t.Fatal("/sessions abc switched the conversation while the message's files were read")
	}
	d.typeText("/clear")
	sendNoBlock(d, src, keyMsg("enter"))
	d.until("an answer to /clear", func() bool {
		tr := d.transcript()
		return strings.Count(tr, "a turn is running; cancel it first") == 2 || strings.Contains(tr, "Started a new conversation")
	})
	if strings.Contains(d.transcript(), "Started a new conversation") {
		t.Fatal("/clear reset the conversation while the message's files were read")
	}
	src.open("main.go")
	d.until("the turn to end", func() bool { return d.idle() && strings.Contains(d.screen(), "read it") })
}

// A paste held while a command runs, before an approval modal appeared,
// is the prompt's: released once the modal is up, it goes to the input,
// not into the modal (which drops pastes) nor lost.
func TestPasteHeldBeforeAModalOpenedGoesToThePrompt(t *testing.T) {
	f := newFixture(t)
	f.srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{shellCall("c1", "make deploy")}},
		llmtest.Reply{Text: "ok"},
	)
	g := newGate(t)
	env := slash.Env{Agent: f.ag, Status: func() string {
		<-g.c
		return "the status"
	}}
	d := newDriver(t, Options{Agent: f.ag, Slash: env}, 100, 40)
	d.typeText("deploy")
	d.key("enter")
	d.typeText("/status")
	sendNoBlock(d, g, keyMsg("enter"))
	sendNoBlock(d, g, tea.PasteMsg{Content: "the notes I pasted"}) // held: /status runs; no modal yet
	d.until("the modal", func() bool { return d.app.modal != nil })
	d.clock.Advance(2 * ApprovalGrace)
	g.openAll()
	d.until("the status", func() bool { return d.app.slashWait == nil && strings.Contains(d.transcript(), "the status") })
	if v := d.app.input.Value(); v != "the notes I pasted" {
		t.Fatalf("the paste made before the modal is lost: input %q", v)
	}
	d.key("n")
	d.until("the turn to end", d.idle)
}

// So with an MCP server's form: a key held from before it opened goes to
// the prompt, not into the form's field.
func TestKeyHeldBeforeAFormOpenedGoesToThePrompt(t *testing.T) {
	f := newFixture(t)
	g := newGate(t)
	env := slash.Env{Agent: f.ag, Status: func() string {
		<-g.c
		return "the status"
	}}
	// A turn that goes on (its reply stalls), as one calling the server's tool.
	f.srv.Script(llmtest.Reply{Chunks: []string{"Calling it", " now."}, StallAfter: 1})
	d := newDriver(t, Options{Agent: f.ag, Slash: env}, 100, 40)
	d.typeText("ask me")
	d.key("enter")
	d.until("the turn", func() bool { return strings.Contains(d.screen(), "Calling it") })
	d.typeText("/status")
	sendNoBlock(d, g, keyMsg("enter"))
	sendNoBlock(d, g, keyMsg("x")) // held: /status runs; no form yet
	d.send(agentEventMsg{Turn: d.app.turn, Event: agent.FormRequested{CallID: "c1",
		Form: tools.Form{Server: "srv", Message: "your name?", Fields: []tools.Field{{Name: "name"}}}, Withdrawn: make(chan struct{})}})
	if d.app.form == nil {
		t.Fatal("the form did not open")
	}
	d.clock.Advance(2 * ApprovalGrace)
	g.openAll()
	d.until("the status", func() bool { return d.app.slashWait == nil && strings.Contains(d.transcript(), "the status") })
	if v := d.app.input.Value(); v != "x" {
		t.Fatalf("a key typed before the form showed went into it: input %q", v)
	}
}

// A line that answers a question with neither yes nor no (a message typed
// as the question came) cancels it and comes back to the input; n cancels
// it and leaves the input empty.
func TestLineThatIsNoAnswerComesBackToTheInput(t *testing.T) {
	f := newFixture(t)
	done := 0
	env := slash.Env{Agent: f.ag, Memory: func(arg string) slash.Result {
		return slash.Result{Confirm: "Forget [m1] cats?", OnConfirm: func() slash.Result {
			done++
			return slash.Result{Output: "Forgot [m1]."}
		}}
	}}
	d := newDriver(t, Options{Agent: f.ag, Slash: env}, 100, 30)
	ask := func() {
		d.typeText("/memory rm m1")
		d.key("enter")
		d.until("the question", func() bool { return strings.Contains(d.screen(), "Forget [m1] cats? Type y to confirm") })
	}
	ask()
	d.typeText("what is on my calendar today?")
	d.key("enter")
	d.until("the line back", func() bool {
		return strings.Contains(d.screen(), "Your line is back in the input") && d.app.input.Value() == "what is on my calendar today?"
	})
	if done != 0 || len(f.srv.Requests()) != 0 {
		t.Fatalf("the question was answered (%d) or the line sent (%d requests)", done, len(f.srv.Requests()))
	}
	d.app.input.SetValue("")
	ask()
	d.typeText("n")
	d.key("enter")
	d.until("not done", func() bool { return strings.Count(d.screen(), "Not done.") == 2 })
	if v := d.app.input.Value(); v != "" || done != 0 {
		t.Fatalf("after n: input %q, done %d", v, done)
	}
}
