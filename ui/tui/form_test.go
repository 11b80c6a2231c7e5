package tui

import (
	"charm.land/lipgloss/v2"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/tools"
)

func newTestForm(fields ...tools.Field) *FormModal {
	th := NewTheme("dark", false)
	return NewFormModal(agent.FormRequested{Form: tools.Form{Server: "srv", Message: "hi", Fields: fields}}, &th, 100, 40, t0)
}

// The form's keys: defaults filled in, a choice moved with →, a multi-
// select ticked with space, yes/no set with n, a required field refused
// until typed, then sent; keys in the grace period answer nothing.
func TestFormModalKeys(t *testing.T) {
	m := newTestForm(
		tools.Field{Name: "name", Required: true},
		tools.Field{Name: "colour", Kind: tools.FieldChoice, Options: []tools.Option{{Value: "r"}, {Value: "g"}}, Default: "r"},
		tools.Field{Name: "tags", Kind: tools.FieldMulti, Options: []tools.Option{{Value: "a"}, {Value: "b"}}, Default: []string{"a"}},
		tools.Field{Name: "ok", Kind: tools.FieldBoolean, Default: true},
		tools.Field{Name: "age", Kind: tools.FieldInteger, Default: int64(30)},
	)
	if res, _ := m.HandleKey(keyMsg("ctrl+s"), t0); res != FormSwallowed {
		t.Fatalf("a key in the grace period: %v", res)
	}
	now := t0.Add(2 * ApprovalGrace)
	press := func(keys ...string) (FormResult, tools.FormAnswer) {
		var res FormResult
		var ans tools.FormAnswer
		for _, k := range keys {
			res, ans = m.HandleKey(keyMsg(k), now)
		}
		return res, ans
	}
	if res, _ := press("ctrl+s"); res != FormPending || !strings.Contains(m.note, "name is required") || m.idx != 0 {
		t.Fatalf("sent without the required name: %v %q", res, m.note)
	}
	press("A", "d", "a", "tab", "right", "tab", "right", "space", "tab", "n")
	res, ans := press("tab", "enter") // enter on the last field sends
	if res != FormAnswered || ans.Action != tools.FormAccept {
		t.Fatalf("%v %+v", res, ans)
	}
	if got := fmt.Sprint(ans.Content); got != "map[age:30 colour:g name:Ada ok:false tags:[a b]]" {
		t.Errorf("content: %s", got)
	}
	if res, ans := press("ctrl+d"); res != FormAnswered || ans.Action != tools.FormDecline {
		t.Errorf("ctrl+d: %v %+v", res, ans)
	}
	if res, ans := press("esc"); res != FormAnswered || ans.Action != tools.FormCancel {
		t.Errorf("esc: %v %+v", res, ans)
	}
	if res, _ := press("ctrl+c"); res != FormCancelTurn {
		t.Errorf("ctrl+c: %v", res)
	}
}

// A secret field's value is masked, its default too; the server's text
// is shown with its escape sequences made visible.
func TestFormModalMasksSecrets(t *testing.T) {
	th := NewTheme("dark", false)
	m := NewFormModal(agent.FormRequested{Form: tools.Form{Server: "srv", Project: true, Message: "key\x1b[2J please",
		Fields: []tools.Field{{Name: "api_key", Secret: true, Default: "sk-default-123"}}}}, &th, 100, 40, t0)
	now := t0.Add(2 * ApprovalGrace)
	for _, k := range []string{"x", "y", "z"} {
		m.HandleKey(keyMsg(k), now)
	}
	v := m.View()
	if strings.Contains(v, "sk-default-123") || strings.Contains(v, "xyz") || strings.Contains(v, "\x1b[2J") {
		t.Errorf("the secret or the escape sequence shows:\n%s", v)
	}
	for _, want := range []string{"key␛[2J please", "asks for what looks like a secret (api_key)", "(looks like a secret: hidden)"} {
		if !strings.Contains(v, want) {
			t.Errorf("the form lacks %q:\n%s", want, v)
		}
	}
	_, ans := m.HandleKey(keyMsg("ctrl+s"), now)
	if ans.Content["api_key"] != "sk-default-123xyz" {
		t.Errorf("content: %+v", ans.Content)
	}
}

// Unticking every option of a multi-select sends an empty list, not
// nothing (which would bring the default back).
func TestFormModalEmptyMultiSelect(t *testing.T) {
	m := newTestForm(tools.Field{Name: "tags", Kind: tools.FieldMulti, Options: []tools.Option{{Value: "a"}, {Value: "b"}}, Default: []string{"a"}})
	now := t0.Add(2 * ApprovalGrace)
	m.HandleKey(keyMsg("space"), now)
	_, ans := m.HandleKey(keyMsg("ctrl+s"), now)
	if got := fmt.Sprint(ans.Content); got != "map[tags:[]]" {
		t.Errorf("content: %s", got)
	}
}

// The chat opens the form on FormRequested and closes it when the server
// withdraws it (with a notice) or the turn ends.
func TestFormModalWithdrawnAndTurnEnd(t *testing.T) {
	a := goldenApp(t, "dark", 100, agent.Config{})
	streamReasoning(a, "thinking")
	withdrawn := make(chan struct{})
	req := agent.FormRequested{CallID: "c1", Form: tools.Form{Server: "srv", Message: "hello"}, Withdrawn: withdrawn}
	a.handleAgentEvent(agentEventMsg{Turn: a.turn, Event: req})
	if a.form == nil || !strings.Contains(a.View().Content, "Form from MCP server srv") {
		t.Fatal("the form did not open")
	}
	close(withdrawn)
	a.Update(formWithdrawn(req)())
	if a.form != nil {
		t.Fatal("the withdrawn form stays open")
	}
	if !strings.Contains(a.View().Content, "The MCP server withdrew its form.") {
		t.Error("no notice of the withdrawal")
	}
	a.handleAgentEvent(agentEventMsg{Turn: a.turn, Event: agent.FormRequested{Form: tools.Form{Server: "srv"}, Withdrawn: make(chan struct{})}})
	a.handleAgentEvent(agentEventMsg{Turn: a.turn, Event: agent.TurnFailed{Message: "boom"}})
	if a.form != nil {
		t.Error("the form outlived its turn")
	}
}

// A server's very long message cannot push the fields, the keys or the
// secret warning off an 80×24 screen: the message is cut, saying so.
func TestFormModalLongMessageKeepsFieldsAndKeys(t *testing.T) {
	th := NewTheme("dark", false)
	long := strings.Repeat("This message goes on and on. ", 300)
	m := NewFormModal(agent.FormRequested{Form: tools.Form{Server: "srv", Project: true, Message: long,
		Fields: []tools.Field{{Name: "api_key", Secret: true}, {Name: "ok", Kind: tools.FieldBoolean}}}}, &th, 80, 24, t0)
	m.HandleKey(keyMsg("x"), t0.Add(2*ApprovalGrace)) // arms the form
	v := m.View()
	if n := strings.Count(v, "\n") + 1; n > 24 {
		t.Errorf("the form is %d lines on a 24-line screen:\n%s", n, v)
	}
	if w := lipgloss.Width(v); w > 80 {
		t.Errorf("the form is %d columns wide on an 80-column screen:\n%s", w, v)
	}
	narrow := NewFormModal(agent.FormRequested{Form: tools.Form{Server: "srv", Message: long}}, &th, 40, 14, t0)
	if w := lipgloss.Width(narrow.View()); w > 40 {
		t.Errorf("the form is %d columns wide on a 40-column screen:\n%s", w, narrow.View())
	}
	for _, want := range []string{"Form from MCP server srv", "asks for what looks like", "api_key", "ctrl+s send", "more lines of the message"} {
		if !strings.Contains(v, want) {
			t.Errorf("the form lacks %q:\n%s", want, v)
		}
	}
}

// A key held since before the form opened does not shorten its grace.
func TestFormKeyFromBeforeTheFormKeepsItsGrace(t *testing.T) {
	m := newTestForm(tools.Field{Name: "name"})
	if res, _ := m.HandleKey(keyMsg("ctrl+s"), t0.Add(-time.Second)); res != FormSwallowed {
		t.Fatalf("a key from before the form: %v", res)
	}
	if res, _ := m.HandleKey(keyMsg("ctrl+s"), t0.Add(ApprovalGrace/2)); res != FormSwallowed {
		t.Fatalf("a key in the grace period after a held one: %v", res)
	}
}
