package app

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/config"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/mcp/mcptest"
	"github.com/co-cli/co/tools/slack/slackfake"
)

// hintSetup is what one decision is made under: the settings (as
// environment variables and user settings), --yes, and what the user
// wrote in the request.
type hintSetup struct {
	env    map[string]string
	mcp    map[string]any // the user file's one MCP server, when the family needs one
	yes    bool
	prompt string
}

func (s hintSetup) clone() hintSetup {
	c := hintSetup{env: map[string]string{}, yes: s.yes, prompt: s.prompt}
	for k, v := range s.env {
		c.env[k] = v
	}
	if s.mcp != nil {
		c.mcp = map[string]any{}
		for k, v := range s.mcp {
			c.mcp[k] = v
		}
	}
	return c
}

// hintFamily is one kind of call that may need approval in co run.
type hintFamily struct {
	name string
	tool string
	args string
	// fix applies the tool's own step (Way.Tool) to the setup, after
	// checking that the step names it (key).
	key string
	fix func(*hintSetup)
	// before prepares the app and returns the call's arguments, when they
	// depend on it (the id of a memory to forget).
	before func(t *testing.T, a *App) string
}

// decide builds the run of co that s describes (as co run does, but only
// reporting: no container, no saved session) and decides the family's call
// as the agent does, returning whether it runs without asking and, if not,
// co run's hint and its ways.
func decide(t *testing.T, home, work string, f hintFamily, s hintSetup) (runs bool, hint string, ways []agent.Way) {
	t.Helper()
	user := map[string]any{}
	if s.mcp != nil {
		user["mcp_servers"] = map[string]any{"everything": s.mcp}
	}
	b, _ := json.Marshal(user)
	file := filepath.Join(home, ".config", "co-cli", "settings.json")
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, b, 0o600); err != nil {
		t.Fatal(err)
	}
	l, err := config.Load(config.LoadOptions{Getenv: func(k string) (string, bool) { v, ok := s.env[k]; return v, ok }, WorkDir: work, HomeDir: home})
	if err != nil {
		t.Fatal(err)
	}
	a, err := New(context.Background(), l, Options{ReportOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if s.mcp != nil {
		m := NewMCP(l, a.Tools, "test")
		defer m.Close()
		m.Start()
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		m.Wait(ctx)
	}
	args := f.args
	if f.before != nil {
		args = f.before(t, a)
	}
	tl, ok := a.Tools.Get(f.tool)
	if !ok {
		t.Fatalf("%s is not registered (tools: %v)", f.tool, a.Tools.Names())
	}
	if s.prompt != "" {
		for _, x := range a.Tools.All() {
			if o, ok := x.(tools.PromptObserver); ok {
				o.ObservePrompt(s.prompt)
			}
		}
	}
	a.Approvals.SetYes(s.yes)
	c := tools.Decide(context.Background(), tl, json.RawMessage(args))
	decided, run, _ := a.Approvals.Decide(c)
	if decided {
		if !run {
			t.Fatalf("%s: denied (%s): no family here is denied", f.name, c.Reason)
		}
		return true, "", nil
	}
	return false, a.Approvals.Hint(c), a.Approvals.Ways(c)
}

// apply makes the setup that follows way w from s.
func apply(t *testing.T, f hintFamily, s hintSetup, w agent.Way) hintSetup {
	n := s.clone()
	if w.Yes {
		n.yes = true
	}
	if w.YoloUnsandboxed {
		n.env["CO_CLI_YOLO_UNSANDBOXED"] = "true"
	}
	if w.Docker {
		n.env["CO_CLI_SANDBOX_BACKEND"] = "docker"
	}
	if w.Tool != "" {
		if f.fix == nil {
			t.Fatalf("%s: the hint names a step of the tool's (%q) the family has none of", f.name, w.Tool)
		}
		if !strings.Contains(w.Tool, f.key) {
			t.Fatalf("%s: the tool's step %q does not name %s", f.name, w.Tool, f.key)
		}
		f.fix(&n)
	}
	return n
}

// Every call co run cannot run says what would let that call run — per
// tool family, isolation and --yes — and each way it names is then taken
// (the setting set, the flag passed, the URL written) and the same call
// decided again: it must run. A call only a person can approve says so,
// and nothing co run has (--yes, yolo_unsandboxed, the Docker sandbox)
// lets it run. Issue 27: "pass --yes" and "a shell_policy rule" were
// printed where neither did anything.
func TestEveryHeadlessHintIsTrue(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the MCP reference server and probes Docker")
	}
	everything := mcptest.Everything(t)
	slack := slackfake.New()
	defer slack.Close()
	slack.AddChannels(slackfake.Channel{ID: "C01GENERAL", Name: "general", Members: 3})
	t.Setenv(EnvSlackAPIURL, slack.URL)

	home := t.TempDir()
	creds := filepath.Join(home, "token.json")
	if err := os.WriteFile(creds, []byte(`{"type":"authorized_user","client_id":"id","client_secret":"s","refresh_token":"r"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	base := map[string]string{"SLACK_BOT_TOKEN": slackfake.Token, "GOOGLE_CREDENTIALS_PATH": creds, "OBSIDIAN_VAULT_PATH": t.TempDir()}

	families := []hintFamily{
		{name: "shell, a command the policy allows", tool: "run_shell_command", args: `{"cmd":"ls"}`},
		{name: "shell, a command that asks", tool: "run_shell_command", args: `{"cmd":"touch made-by-co"}`},
		{name: "file write", tool: "write_file", args: `{"path":"notes.txt","content":"hi\n"}`},
		{name: "file edit", tool: "edit_file", args: `{"path":"seed.txt","old_string":"one","new_string":"two"}`},
		{name: "file write, protected", tool: "write_file", args: `{"path":".envrc","content":"export A=1\n"}`},
		{name: "memory save", tool: "save_memory", args: `{"content":"the user drinks tea"}`,
			key: "memory_auto_save", fix: func(s *hintSetup) { s.env["CO_CLI_MEMORY_AUTO_SAVE"] = "true" }},
		{name: "memory forget", tool: "forget_memory",
			before: func(t *testing.T, a *App) string {
				st, err := a.Memory.Store()
				if err != nil {
					t.Fatal(err)
				}
				m, err := st.Save("the user drinks coffee", nil, "s")
				if err != nil {
					t.Fatal(err)
				}
				return `{"id":"` + m.ID + `"}`
			}},
		{name: "web fetch, a URL the user never gave", tool: "web_fetch", args: `{"url":"https://example.com/page"}`,
			key: "URL", fix: func(s *hintSetup) { s.prompt = "summarise https://example.com/page" }},
		{name: "Slack post", tool: "send_slack_message", args: `{"channel":"#general","text":"hello"}`},
		{name: "Gmail draft", tool: "create_email_draft", args: `{"to":"ada@example.com","subject":"hi","body":"hello"}`},
		{name: "calendar event", tool: "create_calendar_event", args: `{"title":"Sync","start":"2026-12-08T10:00:00Z","end":"2026-12-08T11:00:00Z","attendees":["bob@example.com"]}`},
		{name: "note write", tool: "write_note", args: `{"filename":"Inbox/idea.md","content":"an idea"}`},
		{name: "MCP tool", tool: "mcp__everything__echo", args: `{"message":"hi"}`,
			key: `"approve": "auto"`, fix: func(s *hintSetup) { s.mcp["approve"] = "auto" }},
	}
	// What each family × isolation × --yes must come to: "runs" (no hint
	// needed), "person" (only a person), or the ways the hint must give,
	// by name (tool: the tool's own step).
	type cell struct {
		iso string
		yes bool
	}
	want := func(f hintFamily, c cell) []string {
		docker := c.iso == "docker"
		switch f.name {
		case "shell, a command the policy allows":
			if docker {
				return []string{"runs"}
			}
			if c.yes {
				return []string{"docker", "yolo_unsandboxed"}
			}
			return []string{"docker", "yolo_unsandboxed+yes"}
		case "file write, protected":
			return []string{"person"}
		case "memory save", "web fetch, a URL the user never gave":
			return []string{"tool"}
		case "memory forget":
			return []string{"person"}
		}
		// The ask class: what /yolo would approve.
		var w []string
		if f.fix != nil {
			w = append(w, "tool")
		}
		switch {
		case docker && c.yes:
			return []string{"runs"}
		case docker:
			return append(w, "yes")
		case c.yes: // --yes given already: the hint does not ask for it again
			return append(w, "yolo_unsandboxed", "docker")
		default:
			return append(w, "yolo_unsandboxed+yes", "docker+yes")
		}
	}
	name := func(w agent.Way) string {
		var p []string
		for _, s := range []struct {
			on   bool
			name string
		}{{w.Tool != "", "tool"}, {w.Docker, "docker"}, {w.YoloUnsandboxed, "yolo_unsandboxed"}, {w.Yes, "yes"}} {
			if s.on {
				p = append(p, s.name)
			}
		}
		return strings.Join(p, "+")
	}

	for _, iso := range []string{"docker", "subprocess"} {
		for _, yes := range []bool{false, true} {
			for _, f := range families {
				c := cell{iso, yes}
				label := f.name + " / " + iso + map[bool]string{true: " / --yes", false: ""}[yes]
				t.Run(label, func(t *testing.T) {
					work := t.TempDir()
					if err := os.WriteFile(filepath.Join(work, "seed.txt"), []byte("one\n"), 0o600); err != nil {
						t.Fatal(err)
					}
					s := hintSetup{env: map[string]string{"CO_CLI_SANDBOX_BACKEND": iso}, yes: yes}
					for k, v := range base {
						s.env[k] = v
					}
					if strings.HasPrefix(f.tool, "mcp__") {
						s.mcp = map[string]any{"command": "node", "args": []string{everything}}
					}
					runs, hint, ways := decide(t, home, work, f, s)
					exp := want(f, c)
					if runs {
						if exp[0] != "runs" {
							t.Fatalf("ran without asking; want %v", exp)
						}
						return
					}
					if exp[0] == "runs" {
						t.Fatalf("asked (%s); want it to run", hint)
					}
					if strings.Contains(hint, "shell_policy") {
						t.Errorf("hint names shell_policy, which lets nothing through here: %s", hint)
					}
					var got []string
					for _, w := range ways {
						got = append(got, name(w))
						if !strings.Contains(hint, w.String()) {
							t.Errorf("the hint %q leaves out the way %q", hint, w)
						}
					}
					if exp[0] == "person" {
						if len(ways) != 0 || !strings.Contains(hint, "only a person can approve") {
							t.Fatalf("want only a person; hint %q, ways %v", hint, got)
						}
						// Nothing co run has lets it through.
						all := apply(t, f, s, agent.Way{Yes: true, YoloUnsandboxed: true})
						if runs, _, _ := decide(t, home, work, f, all); runs {
							t.Fatal("the hint says only a person can approve it, but --yes with yolo_unsandboxed ran it")
						}
						all = apply(t, f, s, agent.Way{Yes: true, Docker: true})
						if runs, _, _ := decide(t, home, work, f, all); runs {
							t.Fatal("the hint says only a person can approve it, but --yes in the Docker sandbox ran it")
						}
						return
					}
					if strings.Join(got, " ") != strings.Join(exp, " ") {
						t.Fatalf("ways %v, want %v; hint: %s", got, exp, hint)
					}
					// Each way, taken alone, lets the same call run.
					for _, w := range ways {
						if runs, h, _ := decide(t, home, work, f, apply(t, f, s, w)); !runs {
							t.Errorf("took the way %q and the call still asks: %s", w, h)
						}
					}
				})
			}
		}
	}
}
