package slash

import (
	"strings"
	"testing"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/provider"
)

func customEnv() Env {
	return Env{Custom: func() []Custom {
		return []Custom{
			{Name: "/fix", Help: "Fix an issue", Message: func(a string) (string, error) { return "Fix " + a, nil }},
			{Name: "/help", Help: "a custom help that must lose", Message: func(string) (string, error) { return "CUSTOM HELP", nil }},
			{Name: "/release", Help: "Cut a release\x1b[31m", Skill: true, Message: func(a string) (string, error) { return "use release: " + a, nil }},
		}
	}}
}

func TestCustomCommands(t *testing.T) {
	env := customEnv()
	r := Dispatch(env, "/fix  #42 ")
	if r.Action != Send || r.Prompt != "Fix #42" {
		t.Fatalf("/fix = %+v", r)
	}
	// A built-in wins over a custom command of the same name.
	if r := Dispatch(env, "/help"); r.Action == Send || !strings.Contains(r.Output, "Commands:") {
		t.Fatalf("/help = %+v", r)
	}
	h := Dispatch(env, "/help").Output
	for _, want := range []string{"Custom commands (/NAME ARGS sends the file's text):\n  /fix       Fix an issue", "Skills (/NAME ARGS asks the model to use the skill):\n  /release   Cut a release"} {
		if !strings.Contains(h, want) {
			t.Errorf("/help lacks %q:\n%s", want, h)
		}
	}
	if strings.Contains(h, "a custom help that must lose") || strings.ContainsRune(h, 0x1b) {
		t.Errorf("/help shows the shadowed command or a raw escape:\n%q", h)
	}
	if got := strings.Join(CompleteIn(env, "/"), " "); !strings.Contains(got, "/fix") || !strings.Contains(got, "/release") || strings.Count(got, "/help") != 1 {
		t.Errorf("CompleteIn(/) = %s", got)
	}
	if got := CompleteIn(env, "/rel"); len(got) != 1 || got[0] != "/release" {
		t.Errorf("CompleteIn(/rel) = %v", got)
	}
	if r := Dispatch(env, "/fi"); !r.Err || !strings.Contains(r.Output, "did you mean /fix?") {
		t.Errorf("/fi = %+v", r)
	}
}

// /compact on a conversation too short to compact says so at once, not
// "Summarising…" first and then that it is too short (issue 27).
func TestCompactTooShortSaysSoAtOnce(t *testing.T) {
	ag := agent.New(agent.Config{Provider: provider.Provider{Name: "openai", BaseURL: "http://127.0.0.1:1/v1", Model: "m"}})
	r := Dispatch(Env{Agent: ag}, "/compact")
	if !r.Err || r.Action == Compact || strings.Contains(r.Output, "Summarising") || !strings.Contains(r.Output, "nothing to compact yet") {
		t.Fatalf("/compact = %+v", r)
	}
}

// /inbox without a store says why; with one, its words reach it as typed.
func TestInboxCommand(t *testing.T) {
	ag := agent.New(agent.Config{Provider: provider.Provider{Name: "openai", Model: "m"}})
	if r := Dispatch(Env{Agent: ag}, "/inbox"); !r.Err || !strings.Contains(r.Output, "not available") {
		t.Fatalf("/inbox without a store = %+v", r)
	}
	var got []string
	env := Env{Agent: ag, Inbox: func(arg string) Result { got = append(got, arg); return Result{Output: "ok"} }}
	for _, line := range []string{"/inbox", "/inbox  approve 3 ", "/inbox deny 2"} {
		if r := Dispatch(env, line); r.Err {
			t.Fatalf("%s = %+v", line, r)
		}
	}
	if strings.Join(got, "|") != "|approve 3|deny 2" {
		t.Errorf("args = %q", got)
	}
	if _, c, _ := CompleteArg(env, "/inbox approve "); len(c) != 0 {
		t.Errorf("ids without InboxIDs: %q", c)
	}
	if _, _, ok := CompleteArg(env, "/model x"); ok {
		t.Error("CompleteArg took another command's argument")
	}
}
