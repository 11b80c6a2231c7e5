package e2e

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/tools/slack/slackfake"
)

// jsonEvents parses co run --json output into its events.
func jsonEvents(t *testing.T, out string) []map[string]any {
	t.Helper()
	var evs []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("not a JSON line: %q", line)
		}
		evs = append(evs, m)
	}
	return evs
}

func eventOf(evs []map[string]any, typ string) map[string]any {
	for _, e := range evs {
		if e["type"] == typ {
			return e
		}
	}
	return nil
}

// toolNames are the tools co offered the model in request i.
func toolNames(srv *llmtest.Server, i int) []string {
	var names []string
	for _, tl := range srv.Requests()[i].Body.Tools {
		names = append(names, tl.Function.Name)
	}
	return names
}

func TestCloudSlackPostAsksAndShowsUpOnlyWhenApproved(t *testing.T) {
	ws := slackfake.New()
	defer ws.Close()
	ws.AddChannels(slackfake.Channel{ID: "C01GENERAL", Name: "general"})
	srv := llmtest.NewServer()
	defer srv.Close()
	call := llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "send_slack_message", Args: `{"channel":"#general","text":"hello from co"}`}}}
	srv.Script(call, llmtest.Reply{Text: "Not sent."}, call, llmtest.Reply{Text: "Sent."})
	environ := env(t, srv, "SLACK_BOT_TOKEN="+slackfake.Token, "SLACK_API_URL="+ws.URL)

	out, errOut, code := runCo(t, t.TempDir(), environ, "", "run", "--json", "post hello to #general")
	evs := jsonEvents(t, out)
	if a := eventOf(evs, "approval"); a == nil || a["answer"] != "needs approval" || a["name"] != "send_slack_message" {
		t.Fatalf("approval without --yes = %v (exit %d, stderr %s)", a, code, errOut)
	}
	if r := eventOf(evs, "tool_result"); r["status"] != "denied" {
		t.Errorf("tool_result = %v", r)
	}
	if n := ws.CallsTo("chat.postMessage"); n != 0 || len(ws.Messages("C01GENERAL")) != 0 {
		t.Fatalf("a denied post reached Slack: %d calls", n)
	}
	if names := strings.Join(toolNames(srv, 0), ","); !strings.Contains(names, "send_slack_message") || !strings.Contains(names, "list_slack_users") {
		t.Errorf("tools offered = %s", names)
	}

	out, errOut, code = runCo(t, t.TempDir(), append(environ, "CO_CLI_YOLO_UNSANDBOXED=true"), "", "run", "--json", "--yes", "post hello to #general")
	evs = jsonEvents(t, out)
	r := eventOf(evs, "tool_result")
	if code != 0 || r["status"] != "done" || !strings.HasPrefix(r["display"].(string), "Posted to #general (C01GENERAL)") {
		t.Fatalf("with --yes: exit %d, %v, stderr %s", code, r, errOut)
	}
	posted := ws.Messages("C01GENERAL")
	if len(posted) != 1 || posted[0].Text != "hello from co" || r["meta"].(map[string]any)["ts"] != posted[0].TS {
		t.Errorf("on the server: %+v, result meta %v", posted, r["meta"])
	}
}

func TestCloudToolsNotConfiguredAreListedNotOffered(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "hi"})
	environ := env(t, srv)
	out, _, code := runCo(t, t.TempDir(), environ, "", "status")
	if code != 0 {
		t.Fatalf("co status: exit %d\n%s", code, out)
	}
	for _, want := range []string{
		"Slack (send_slack_message, list_slack_channels, list_slack_messages, list_slack_replies, list_slack_users): not configured — set SLACK_BOT_TOKEN",
		"Google (search_drive_files, read_drive_file, list_emails, search_emails, read_email_attachment, create_email_draft, list_calendar_events, search_calendar_events, create_calendar_event): not configured — run `co google auth --client-secret FILE`",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("co status lacks %q:\n%s", want, out)
		}
	}
	if _, _, code := runCo(t, t.TempDir(), environ, "", "run", "hi"); code != 0 {
		t.Fatalf("co run: exit %d", code)
	}
	for _, n := range toolNames(srv, 0) {
		if strings.Contains(n, "slack") || strings.Contains(n, "drive") || strings.Contains(n, "email") || strings.Contains(n, "calendar") {
			t.Errorf("unconfigured tool offered: %s", n)
		}
	}
	out, _, _ = runCo(t, t.TempDir(), append(environ, "SLACK_BOT_TOKEN=xoxb-1"), "", "status")
	if strings.Contains(out, "Slack (") || !strings.Contains(out, "Google (") {
		t.Errorf("with a Slack token:\n%s", out)
	}
}
