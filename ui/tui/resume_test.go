package tui

import (
	"strings"
	"testing"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

func TestResumedSessionShowsItsTranscript(t *testing.T) {
	f := newFixture(t)
	f.ag.Restore([]message.Message{
		{Role: message.RoleUser, Content: "list the files"},
		{Role: message.RoleAssistant, Content: "Let me **look**.", ToolCalls: []message.ToolCall{{ID: "c1", Name: "run_shell_command", Args: `{"cmd":"ls"}`}}},
		{Role: message.RoleTool, ToolCallID: "c1", ToolName: "run_shell_command", Content: `{"display":"a.txt\nb.txt","exit_code":0}`},
		{Role: message.RoleAssistant, Content: "Two files."},
		{Role: message.RoleUser, Content: "delete them"},
		{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: "c2", Name: "run_shell_command", Args: `{"cmd":"rm a.txt b.txt"}`}}},
		{Role: message.RoleTool, ToolCallID: "c2", ToolName: "run_shell_command", Content: `{"status":"denied","denied_by":"user"}`},
		{Role: message.RoleAssistant, Content: "OK, I was saying that", Interrupted: true},
	}, message.Usage{InputTokens: 100}, 2)
	f.ag.Restore(append([]message.Message{{Role: message.RoleUser, Content: agent.SummaryIntro + "the user greeted"}, {Role: message.RoleAssistant, Content: "Understood."}}, f.ag.History()...), message.Usage{InputTokens: 100}, 2)
	f.ag.SetRecorder(savedAs("0a1b2c3d"))
	d := newDriver(t, Options{Agent: f.ag}, 100, 50)
	s := d.screen()
	if strings.Contains(s, "the user greeted") {
		t.Errorf("the summary for the model is shown as if the user wrote it:\n%s", s)
	}
	for _, want := range []string{"Summarised older messages", "Resumed session 0a1b2c3d", "list the files", "Let me look.", "run_shell_command(cmd='ls')", "a.txt", "Two files.", "delete them", "denied by the user", "OK, I was saying that"} {
		if !strings.Contains(s, want) {
			t.Errorf("resumed transcript lacks %q:\n%s", want, s)
		}
	}
}

func TestCompactRunsOffTheUIAndReports(t *testing.T) {
	f := newFixture(t)
	f.ag.Restore([]message.Message{
		{Role: message.RoleUser, Content: "one"}, {Role: message.RoleAssistant, Content: "1"},
		{Role: message.RoleUser, Content: "two"}, {Role: message.RoleAssistant, Content: "2"},
	}, message.Usage{}, 2)
	f.srv.Script(llmtest.Reply{Text: "- two questions"})
	d := newDriver(t, Options{Agent: f.ag}, 100, 40)
	d.typeText("/compact")
	d.key("enter")
	d.until("the summary", func() bool { return strings.Contains(d.screen(), "Compacted 4 messages") })
	if h := f.ag.History(); len(h) != 2 || !strings.Contains(h[0].Content, "two questions") {
		t.Fatalf("history after /compact = %+v", h)
	}
}

// savedAs is a recorder of a saved session with that id that saves nothing.
type savedAs string

func (s savedAs) ID() string                                   { return string(s) }
func (savedAs) Append(message.Message) error                   { return nil }
func (savedAs) Draft(string) error                             { return nil }
func (savedAs) Aside(message.Aside) error                      { return nil }
func (savedAs) Decision(string, string, message.Verdict) error { return nil }
func (savedAs) Usage(message.Usage) error                      { return nil }

// A resumed session shows its !cmd runs and the summarising notice, with
// its count, where they happened.
func TestResumedSessionShowsBangsAndNotices(t *testing.T) {
	f := newFixture(t)
	f.ag.Restore([]message.Message{
		{Role: message.RoleUser, Content: "first question"},
		{Role: message.RoleAssistant, Content: "first answer"},
		{Role: message.RoleUser, Content: "second question"},
	}, message.Usage{}, 2)
	f.ag.RestoreAsides([]message.Aside{
		{After: 0, Bang: &message.BangRun{Args: `{"cmd":"echo before"}`, Finished: message.ToolCallFinished{CallID: "bang", Name: message.BangTool, Status: message.CallDone, Result: tools.Text("marker-before"), Decision: message.ByPolicy, Bang: true}}},
		{After: 2, Notice: "Summarised 9 older messages to stay within the context."},
		{After: 2, Bang: &message.BangRun{Args: `{"cmd":"rm -rf x"}`, Finished: message.ToolCallFinished{CallID: "bang", Name: message.BangTool, Status: message.CallDenied, Err: "denied", Decision: message.ByUserDenied, Bang: true}}},
	})
	f.ag.SetRecorder(savedAs("0a1b2c3d"))
	d := newDriver(t, Options{Agent: f.ag}, 100, 50)
	s := d.screen()
	order := []string{"! echo before", "marker-before", "first question", "first answer", "Summarised 9 older messages", "! rm -rf x", "denied by the user", "second question", "Resumed session 0a1b2c3d"}
	at := 0
	for _, want := range order {
		i := strings.Index(s[at:], want)
		if i < 0 {
			t.Fatalf("resumed transcript lacks %q after position %d (in order %q):\n%s", want, at, order, s)
		}
		at += i + len(want)
	}
}

// A co run session resumed in the chat shows the data piped to it as one
// line, its size and that it is untrusted, never its text.
func TestResumedSessionShowsPipedData(t *testing.T) {
	f := newFixture(t)
	p := message.Piped{Text: "diff --git a/x b/x\n+hidden-marker\n", Lines: 2}
	f.ag.Restore([]message.Message{
		{Role: message.RoleUser, Content: p.Attach("review this"), Sources: []tools.Origin{message.PipedOrigin()}},
		{Role: message.RoleAssistant, Content: "Looks fine."},
	}, message.Usage{}, 1)
	f.ag.SetRecorder(savedAs("0a1b2c3d"))
	d := newDriver(t, Options{Agent: f.ag}, 100, 40)
	s := d.screen()
	for _, want := range []string{"review this", "attached standard input (2 lines, 34 B, untrusted)", "Looks fine.", "untrusted content from standard input"} {
		if !strings.Contains(s, want) {
			t.Errorf("resumed transcript lacks %q:\n%s", want, s)
		}
	}
	if strings.Contains(s, "hidden-marker") || strings.Contains(s, "piped-input") {
		t.Errorf("the piped text is shown:\n%s", s)
	}
}

// A session resumed from a saved compaction shows every saved message
// (agent.Shown), also those the summary replaced for the model, and the
// notice where the summary happened; the model's history is the summary.
func TestResumedCompactedSessionShowsEveryMessage(t *testing.T) {
	f := newFixture(t)
	all := []message.Message{
		{Role: message.RoleUser, Content: "first question"}, {Role: message.RoleAssistant, Content: "first answer"},
		{Role: message.RoleUser, Content: "summarised question"}, {Role: message.RoleAssistant, Content: "summarised answer"},
		{Role: message.RoleUser, Content: "recent question"}, {Role: message.RoleAssistant, Content: "recent answer"},
	}
	view := []message.Message{
		{Role: message.RoleUser, Content: agent.SummaryIntro + "the user asked things"}, {Role: message.RoleAssistant, Content: "Understood."},
		all[4], all[5],
	}
	f.ag.Restore(view, message.Usage{}, 3)
	f.ag.RestoreShown(all, []message.Aside{{After: 4, Notice: "Summarised 4 older messages to stay within the context."}})
	f.ag.SetRecorder(savedAs("0a1b2c3d"))
	d := newDriver(t, Options{Agent: f.ag}, 100, 50)
	s := d.screen()
	order := []string{"first question", "first answer", "summarised question", "summarised answer", "Summarised 4 older messages", "recent question", "recent answer", "Resumed session 0a1b2c3d"}
	at := 0
	for _, want := range order {
		i := strings.Index(s[at:], want)
		if i < 0 {
			t.Fatalf("resumed transcript lacks %q after position %d (in order %q):\n%s", want, at, order, s)
		}
		at += i + len(want)
	}
	if strings.Contains(s, "the user asked things") {
		t.Errorf("the summary for the model is shown:\n%s", s)
	}
}
