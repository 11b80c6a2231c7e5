package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/config"
	"github.com/co-cli/co/deliver/dbustest"
	"github.com/co-cli/co/telemetry"
	"github.com/co-cli/co/tools/google"
	"github.com/co-cli/co/tools/google/googlefake"
	"github.com/co-cli/co/tools/slack/slackfake"
	"github.com/co-cli/co/ui/headless"
)

// co schedule run NAME, as the timer runs it, with notify [desktop,
// slack:#me, mail]: the run's summary reaches a Notifications server on a
// real session bus (found at $XDG_RUNTIME_DIR/bus, as under cron, with no
// DBUS_SESSION_BUS_ADDRESS), the Slack channel (slackfake) and a Gmail
// draft to the account's own address (googlefake); the log says each; the
// exit code is the run's.
func TestScheduleRunDeliversWhereNotifySays(t *testing.T) {
	isolatedHome(t)
	home, _ := os.Getwd()
	bus := dbustest.Start(t)
	notes := bus.Serve(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", bus.Dir)

	ws := slackfake.New()
	defer ws.Close()
	ws.AddChannels(slackfake.Channel{ID: "C0MEMEME", Name: "me"})
	t.Setenv("SLACK_API_URL", ws.URL)
	t.Setenv("SLACK_BOT_TOKEN", "")

	g := googlefake.New()
	defer g.Close()
	t.Setenv("CO_GOOGLE_API_ENDPOINT", g.URL)
	t.Setenv("GOOGLE_CREDENTIALS_PATH", "")
	cfgDir := filepath.Join(home, ".config", "co-cli")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfgDir, google.TokenFile), g.AuthorizedUserJSON("client-1", "secret-1"), 0o600); err != nil {
		t.Fatal(err)
	}
	settings, _ := json.Marshal(map[string]any{
		"slack_bot_token": slackfake.Token,
		"schedules": map[string]any{"todos": map[string]any{
			"at": "weekdays 08:00", "prompt": "list my todos", "workspace": home,
			"notify": []string{"desktop", "slack:#me", "mail"},
		}},
	})
	if err := os.WriteFile(filepath.Join(cfgDir, "settings.json"), settings, 0o600); err != nil {
		t.Fatal(err)
	}

	srv := llmtest.NewServer()
	defer srv.Close()
	t.Setenv("LLM_PROVIDER", "openai")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_MODEL", "test-model")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("CO_CLI_SANDBOX_BACKEND", "subprocess")
	answer := "One todo: send the report.\x1b]52;c;aGk=\x07 " + strings.Repeat("More. ", 80) + "THE END"
	srv.Script(
		llmtest.Reply{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "write_file", Args: `{"path":"done.txt","content":"sent"}`}}},
		llmtest.Reply{Text: answer},
	)

	code, _, errOut := run(t, "v", "schedule", "run", "todos")
	_, log, _ := run(t, "v", "schedule", "logs", "todos")
	if code != headless.ExitWaiting {
		t.Fatalf("co schedule run = %d, want %d (the run's own code)\nstderr: %s\nlog: %s", code, headless.ExitWaiting, errOut, log)
	}

	n := notes.Next(t)
	if n.AppName != "co" || n.Summary != "co: todos" ||
		!strings.HasPrefix(n.Body, "done; 1 call waiting for your approval: co inbox\n\nOne todo: send the report.␛]52;c;aGk=␇ More.") ||
		strings.Contains(n.Body, "THE END") || strings.ContainsRune(n.Body, 0x1b) {
		t.Errorf("desktop notification: %+v", n)
	}

	msgs := ws.Messages("C0MEMEME")
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0].Text, "*co: todos*\ndone; 1 call waiting for your approval: co inbox\n\nOne todo") ||
		strings.Contains(msgs[0].Text, "THE END") {
		t.Errorf("Slack #me: %+v", msgs)
	}

	drafts := g.Drafts()
	if len(drafts) != 1 {
		t.Fatalf("%d Gmail drafts, want 1\nlog: %s", len(drafts), log)
	}
	raw := string(drafts[0].Raw)
	for _, want := range []string{"To: <ada@example.com>", "Subject: =?utf-8?q?co:_todos_=E2=80=94_", "THE END", "write_file", "done.txt", "co inbox show "} {
		if !strings.Contains(raw, want) {
			t.Errorf("the draft lacks %q:\n%s", want, raw)
		}
	}

	for _, want := range []string{
		"co: delivered to the desktop (a notification)\n",
		"co: delivered to Slack: #me (C0MEMEME)\n",
		"co: delivered as a Gmail draft to yourself (not sent): https://mail.google.com/mail/?authuser=ada%40example.com#drafts?compose=",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	if _, err := os.Stat(filepath.Join(home, "done.txt")); !os.IsNotExist(err) {
		t.Errorf("the waiting call ran: %v", err)
	}

	// Each delivery is a span of the run's telemetry.
	st := telemetry.OpenStore(telemetry.DBPath(filepath.Join(home, ".local", "share", "co-cli")))
	defer st.Close()
	spans, err := st.Last(context.Background(), 200, telemetry.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	var to []string
	for _, sp := range spans {
		if sp.Name == "deliver" && sp.Attributes["co.schedule.name"] == "todos" && sp.StatusCode != "ERROR" {
			to = append(to, fmt.Sprint(sp.Attributes["co.deliver.to"]))
		}
	}
	if strings.Join(to, ",") != "desktop,slack:#me,mail" {
		t.Errorf("deliver spans to %q, want desktop, slack:#me, mail", to)
	}
}

// Places that are not configured (no Slack token, no Google account, no
// session bus) are said in the log with how to fix each; the run's code
// is unchanged.
func TestScheduleRunSaysWhereItCouldNotDeliver(t *testing.T) {
	isolatedHome(t)
	home, _ := os.Getwd()
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	desktopUID = 99999 // no /run/user/99999/bus, even on a desktop
	t.Cleanup(func() { desktopUID = 0 })
	t.Setenv("SLACK_BOT_TOKEN", "")
	t.Setenv("GOOGLE_CREDENTIALS_PATH", "")
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "")
	t.Setenv("CLOUDSDK_CONFIG", t.TempDir())
	cfgDir := filepath.Join(home, ".config", "co-cli")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	settings, _ := json.Marshal(map[string]any{"schedules": map[string]any{"todos": map[string]any{
		"at": "weekdays 08:00", "prompt": "hello", "workspace": home, "notify": []string{"desktop", "slack:U0123ABC", "mail"},
	}}})
	if err := os.WriteFile(filepath.Join(cfgDir, "settings.json"), settings, 0o600); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer()
	defer srv.Close()
	t.Setenv("LLM_PROVIDER", "openai")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_MODEL", "test-model")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("CO_CLI_SANDBOX_BACKEND", "subprocess")
	srv.Script(llmtest.Reply{Text: "Hello."})

	code, _, errOut := run(t, "v", "schedule", "run", "todos")
	_, log, _ := run(t, "v", "schedule", "logs", "todos")
	if code != 0 {
		t.Fatalf("co schedule run = %d: a delivery changed the code?\n%s\n%s", code, errOut, log)
	}
	for _, want := range []string{
		"co: not delivered to desktop: no session bus: DBUS_SESSION_BUS_ADDRESS is not set",
		"co: not delivered to slack:U0123ABC: Slack is not configured: set SLACK_BOT_TOKEN",
		"co: not delivered to mail: Google is not configured: run `co google auth",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
}

// A run that fails says so where notify points: the provider refusing
// mid-run, and a run that cannot start (no provider usable); the code is
// the run's.
func TestScheduledRunThatFailsIsDelivered(t *testing.T) {
	isolatedHome(t)
	bus := dbustest.Start(t)
	notes := bus.Serve(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", bus.Address)
	t.Setenv("CO_CLI_SANDBOX_BACKEND", "subprocess")
	srv := llmtest.NewServer()
	defer srv.Close()
	t.Setenv("LLM_PROVIDER", "openai")
	t.Setenv("OPENAI_BASE_URL", srv.URL)
	t.Setenv("OPENAI_MODEL", "test-model")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	srv.Script(llmtest.Reply{Status: 401, ErrorMessage: "Incorrect API key provided"})
	sch := config.Schedule{Name: "brief", Prompt: "brief me", Notify: []string{"desktop"}}
	var log bytes.Buffer
	_, code := runScheduled(context.Background(), env{Streams{In: strings.NewReader(""), Out: &log, Err: &log}, "v"}, sch, &log)
	if code == 0 || code == headless.ExitWaiting {
		t.Fatalf("runScheduled = %d\n%s", code, log.String())
	}
	if n := notes.Next(t); n.Summary != "co: brief" || !strings.HasPrefix(n.Body, "failed: ") || !strings.Contains(n.Body, "401") {
		t.Errorf("notification of a failed run: %+v\nlog: %s", n, log.String())
	}

	t.Setenv("OPENAI_API_KEY", "") // no provider is usable: the run cannot start
	t.Setenv("OPENAI_BASE_URL", "")
	log.Reset()
	_, code = runScheduled(context.Background(), env{Streams{In: strings.NewReader(""), Out: &log, Err: &log}, "v"}, sch, &log)
	if code != headless.ExitError {
		t.Fatalf("runScheduled = %d\n%s", code, log.String())
	}
	if n := notes.Next(t); !strings.HasPrefix(n.Body, "failed: no model provider is configured in co's settings") || !strings.Contains(log.String(), "co: delivered to the desktop (a notification)") {
		t.Errorf("notification of a run that could not start: %+v\nlog: %s", n, log.String())
	}
}

// co status says, when a schedule has a notify, whether each place can be
// reached from here, or how to set it up.
func TestStatusSaysWhereRunsCanBeDelivered(t *testing.T) {
	isolatedHome(t)
	home, _ := os.Getwd()
	bus := dbustest.Start(t)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "")
	t.Setenv("XDG_RUNTIME_DIR", bus.Dir)
	t.Setenv("SLACK_BOT_TOKEN", "")
	t.Setenv("GOOGLE_CREDENTIALS_PATH", "")
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", "")
	t.Setenv("CLOUDSDK_CONFIG", t.TempDir())
	t.Setenv("CO_CLI_SANDBOX_BACKEND", "subprocess")
	cfgDir := filepath.Join(home, ".config", "co-cli")
	if err := os.MkdirAll(cfgDir, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(notify ...string) {
		settings, _ := json.Marshal(map[string]any{"schedules": map[string]any{"todos": map[string]any{
			"at": "weekdays 08:00", "prompt": "hello", "workspace": home, "notify": notify,
		}}})
		if err := os.WriteFile(filepath.Join(cfgDir, "settings.json"), settings, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("desktop", "slack:#me", "mail")
	_, out, _ := run(t, "v", "status")
	want := "desktop: the session bus unix:path=" + filepath.Join(bus.Dir, "bus") +
		"; slack: not configured — set SLACK_BOT_TOKEN (or slack_bot_token in settings.json) to the app's bot token, xoxb-…" +
		"; mail: not configured — run `co google auth"
	if !regexp.MustCompile(`(?m)^deliveries +` + regexp.QuoteMeta(want)).MatchString(out) {
		t.Errorf("co status lacks deliveries %q:\n%s", want, out)
	}
	write()
	if _, out, _ = run(t, "v", "status"); strings.Contains(out, "deliveries") {
		t.Errorf("a deliveries line with no notify:\n%s", out)
	}
}
