package config

import (
	"os"
	"strings"
	"testing"
)

func TestSchedulesFromTheUserFile(t *testing.T) {
	f := newFixture(t)
	writeFile(t, f.userFile(), `{"schedules": {"brief": {"at": "weekdays 08:00", "prompt": "Summarise today's mail",
		"workspace": "/home/me/notes", "tools": ["search_emails"], "approve": ["create_email_draft"], "notify": ["desktop", "slack:U0123ABC", "slack:#me", "slack:C0123ABC", "mail"]}}}`)
	l := f.load(t)
	want := []Schedule{{Name: "brief", At: "weekdays 08:00", Prompt: "Summarise today's mail", Workspace: "/home/me/notes",
		Tools: []string{"search_emails"}, Approve: []string{"create_email_draft"}, Notify: []string{"desktop", "slack:U0123ABC", "slack:#me", "slack:C0123ABC", "mail"}}}
	wantValue(t, l.Settings.Schedules, want)
	if s, ok := l.Settings.FindSchedule("brief"); !ok || s.At != "weekdays 08:00" {
		t.Errorf("FindSchedule = %+v, %v", s, ok)
	}
	for _, e := range l.Entries() {
		if e.Key == "schedules" && !strings.Contains(e.Value, `"brief":{"at":"weekdays 08:00"`) {
			t.Errorf("co config shows %s", e.Value)
		}
	}
}

// A bad schedule names schedules.NAME.FIELD and says what to write.
func TestScheduleErrors(t *testing.T) {
	for _, tc := range []struct{ body, want string }{
		{`{"brief": {"at": "weekdays 25:00", "prompt": "p", "workspace": "/w"}}`, `"schedules".brief.at: cannot read the schedule "weekdays 25:00": understood the days "weekdays", but not the time "25:00"`},
		{`{"brief": {"prompt": "p", "workspace": "/w"}}`, `"schedules".brief.at is missing`},
		{`{"brief": {"at": "hourly", "workspace": "/w"}}`, `"schedules".brief.prompt is missing`},
		{`{"brief": {"at": "hourly", "prompt": "p", "workspace": "notes"}}`, `"schedules".brief.workspace must be an absolute directory`},
		{`{"brief": {"at": "hourly", "prompt": "p", "workspace": "/w", "notify": ["pager"]}}`, `"schedules".brief.notify holds "pager": each must be desktop, slack:MEMBER_ID, slack:#channel or mail`},
		{`{"brief": {"at": "hourly", "prompt": "p", "workspace": "/w", "notify": ["slack"]}}`, `"schedules".brief.notify holds "slack": say where on Slack: write slack:MEMBER_ID for a direct message from co's bot (your member ID: in Slack, your profile → ⋮ → "Copy member ID"`},
		{`{"brief": {"at": "hourly", "prompt": "p", "workspace": "/w", "notify": ["slack:me"]}}`, `"schedules".brief.notify holds "slack:me": not a Slack member or channel: write slack:MEMBER_ID`},
		{`{"brief": {"at": "hourly", "prompt": "p", "workspace": "/w", "tools": "all"}}`, `"schedules".brief.tools must be a list of strings`},
		{`{"brief": {"at": "hourly", "prompt": "p", "workspace": "/w", "when": 1}}`, `"schedules".brief has an unknown field "when"`},
		{`{"Brief": {"at": "hourly", "prompt": "p", "workspace": "/w"}}`, `"schedules".Brief is not a schedule name`},
		{`["brief"]`, `"schedules" must be an object from a schedule name`},
	} {
		f := newFixture(t)
		writeFile(t, f.userFile(), `{"schedules": `+tc.body+`}`)
		_, err := Load(f.opts())
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s:\n got %v\nwant %s", tc.body, err, tc.want)
		}
	}
}

// No environment variable sets schedules: a variable of the name the
// pattern would give is not read.
func TestSchedulesNotFromTheEnvironment(t *testing.T) {
	f := newFixture(t)
	f.env["CO_CLI_SCHEDULES"] = `{"x": {"at": "hourly", "prompt": "p", "workspace": "/"}}`
	l := f.load(t)
	if len(l.Settings.Schedules) != 0 {
		t.Errorf("schedules from the environment: %+v", l.Settings.Schedules)
	}
	if lookupField("schedules").env != "" {
		t.Error("schedules has an environment variable")
	}
}

// co schedule add saves through EditFile: the other keys stay as written.
func TestSchedulesChange(t *testing.T) {
	f := newFixture(t)
	writeFile(t, f.userFile(), "{\n  \"theme\":   \"dark\"\n}\n")
	v := []Schedule{{Name: "b", At: "hourly", Prompt: "p", Workspace: "/w"}, {Name: "a", At: "daily 07:30", Prompt: "q", Workspace: "/w"}}
	if err := EditFile(f.userFile(), SchedulesChange(v)); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(f.userFile())
	if !strings.HasPrefix(string(b), "{\n  \"theme\":   \"dark\",\n  \"schedules\": {\n    \"a\": {") {
		t.Errorf("file:\n%s", b)
	}
	l := f.load(t)
	if len(l.Settings.Schedules) != 2 || l.Settings.Schedules[0].Name != "a" {
		t.Errorf("%+v", l.Settings.Schedules)
	}
	if err := EditFile(f.userFile(), SchedulesChange(nil)); err != nil {
		t.Fatal(err)
	}
	if l := f.load(t); len(l.Settings.Schedules) != 0 {
		t.Errorf("%+v", l.Settings.Schedules)
	}
}
