package cli

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/config"
	"github.com/co-cli/co/sessions"
)

// closedAddr is a loopback address nothing listens on (a port the kernel
// gave, closed again): connecting is refused.
func closedAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

// fakeClock is a scheduled run's clock in tests: it starts at a fixed time
// and a sleep moves it on at once; each wait is recorded, and onSleep, when
// set, runs at each (with the number of the wait, from 1).
type fakeClock struct {
	at      time.Time
	waits   []time.Duration
	onSleep func(n int)
}

func (c *fakeClock) clock() runClock {
	return runClock{now: func() time.Time { return c.at }, sleep: func(ctx context.Context, d time.Duration) error {
		c.waits = append(c.waits, d)
		c.at = c.at.Add(d)
		if c.onSleep != nil {
			c.onSleep(len(c.waits))
		}
		return ctx.Err()
	}}
}

// scheduleRetryEnv points co at a provider at addr, with a schedule named
// brief (a once SPEC, so no next run bounds the attempts) in the user
// settings, working in the test's home.
func scheduleRetryEnv(t *testing.T, addr, at string) *config.Loaded {
	t.Helper()
	isolatedHome(t)
	t.Setenv("LLM_PROVIDER", "openai")
	t.Setenv("OPENAI_BASE_URL", "http://"+addr+"/v1")
	t.Setenv("OPENAI_MODEL", "test-model")
	t.Setenv("OPENAI_API_KEY", "sk-test")
	t.Setenv("CO_CLI_SANDBOX_BACKEND", "subprocess")
	t.Setenv("TZ", "") // the scheduler's zone is time.Local, the fake clock's
	l, err := loadSettings()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(l.Paths.UserFile), 0o700); err != nil {
		t.Fatal(err)
	}
	wd, _ := os.Getwd()
	if err := config.EditFile(l.Paths.UserFile, config.SchedulesChange([]config.Schedule{{Name: "brief", At: at, Prompt: "brief me", Workspace: wd}})); err != nil {
		t.Fatal(err)
	}
	if l, err = loadSettings(); err != nil {
		t.Fatal(err)
	}
	return l
}

// briefSessions are the saved sessions of the schedule brief.
func briefSessions(t *testing.T, l *config.Loaded) []sessions.Info {
	t.Helper()
	st, err := sessions.Open(filepath.Join(l.Paths.DataDir, sessions.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	infos, err := st.ListKind("", sessions.Scheduled, 0)
	if err != nil {
		t.Fatal(err)
	}
	return infos
}

// co schedule run against a model server that is not up yet (nothing
// listens at its address: connection refused), which comes up after the
// second wait: the run tries again after 30 s and 1 min, the third
// attempt answers, the log says so, the record and co schedule list count
// the attempts, and one session is left, whole.
func TestScheduledRunTriesAgainUntilTheModelAnswers(t *testing.T) {
	addr := closedAddr(t)
	l := scheduleRetryEnv(t, addr, "2099-12-01 08:00")
	var srv *llmtest.Server
	c := &fakeClock{at: time.Date(2026, 12, 7, 8, 0, 0, 0, time.Local), onSleep: func(n int) {
		if n != 2 {
			return
		}
		var err error
		if srv, err = llmtest.NewServerAt(addr); err != nil {
			t.Fatalf("the model's server cannot listen at %s again: %v", addr, err)
		}
		srv.Script(llmtest.Reply{Text: "Nothing urgent today."})
	}}
	t.Cleanup(func() {
		if srv != nil {
			srv.Close()
		}
	})
	var out, errb bytes.Buffer
	err := scheduleRun(env{Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, "v"}, "brief", c.clock())
	b, _ := os.ReadFile(scheduleLogPath(l.Paths.DataDir, "brief"))
	log := string(b)
	if err != nil {
		t.Fatalf("co schedule run: %v\n%s\nlog:\n%s", err, errb.String(), log)
	}
	if want := []time.Duration{30 * time.Second, time.Minute}; !slices.Equal(c.waits, want) {
		t.Errorf("waited %v, want %v", c.waits, want)
	}
	for _, want := range []string{
		"connection refused",
		"co: attempt 1 of at most 5 could not reach the model; trying again in 30s, at 08:00:30",
		"co: attempt 2 of at most 5 could not reach the model; trying again in 1m0s, at 08:01:30",
		"co: attempt 3 reached the model (the first 2 attempts could not)",
		"Nothing urgent today.",
	} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("the server got %d requests, want 1", n)
	}
	last := readScheduleState(l.Paths.DataDir, "brief").Last
	if last == nil || last.Code != 0 || last.Attempts != 3 || !strings.HasSuffix(lastRunText(last), " ok after 3 attempts") {
		t.Errorf("the record: %+v (%s)", last, lastRunText(last))
	}
	// One run, one session: the attempts that failed left none.
	infos := briefSessions(t, l)
	if len(infos) != 1 || infos[0].ID != last.SessionID || infos[0].Outcome != "done" {
		t.Fatalf("sessions of the schedule: %+v", infos)
	}
	st, err := sessions.Open(filepath.Join(l.Paths.DataDir, sessions.FileName))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if _, h, err := st.Load(last.SessionID); err != nil || len(h) != 2 || h[0].Content != "brief me" || h[1].Content != "Nothing urgent today." {
		t.Errorf("the session holds %d messages (%v): %+v", len(h), err, h)
	}
}

// A daily run whose model never comes up: five attempts (30 s, 1, 2,
// 4 min apart), then the run fails, its outcome saying so and when the
// next run tries again, and one session is left.
func TestScheduledRunGivesUpAfterFiveAttempts(t *testing.T) {
	l := scheduleRetryEnv(t, closedAddr(t), "daily 07:00")
	c := &fakeClock{at: time.Date(2026, 12, 7, 8, 0, 0, 0, time.Local)}
	var log bytes.Buffer
	r := runScheduledWith(context.Background(), env{Streams{In: strings.NewReader(""), Out: &log, Err: &log}, "v"},
		config.Schedule{Name: "brief", At: "daily 07:00", Prompt: "brief me"}, &log, c.clock())
	if r.code != exitError || r.attempts != 5 {
		t.Fatalf("code %d after %d attempts, want 1 after 5\n%s", r.code, r.attempts, log.String())
	}
	if want := []time.Duration{30 * time.Second, time.Minute, 2 * time.Minute, 4 * time.Minute}; !slices.Equal(c.waits, want) {
		t.Errorf("waited %v, want %v", c.waits, want)
	}
	if !strings.Contains(log.String(), "co: the model could not be reached in 5 attempts over 7m30s; the next run, at 2026-12-08 07:00, tries again\n") {
		t.Errorf("the log does not say it gave up:\n%s", log.String())
	}
	infos := briefSessions(t, l)
	if len(infos) != 1 || infos[0].ID != r.id ||
		!strings.HasPrefix(infos[0].Outcome, "failed: the model could not be reached (in 5 attempts over 7m30s; the next run, at 2026-12-08 07:00, tries again): cannot connect to openai at ") {
		t.Errorf("sessions of the schedule: %+v", infos)
	}
	_, o, _ := run(t, "v", "inbox")
	if strings.Count(o, "brief") != 1 || !strings.Contains(o, "failed: the model could not be reached") {
		t.Errorf("co inbox:\n%s", o)
	}
}

// retryTestStart is when the runs of TestScheduledRunIsNotTriedAgain start.
var retryTestStart = time.Date(2026, 12, 7, 8, 0, 5, 0, time.Local)

// What is not tried again: a run scheduled every minute (its next run is
// the next try, and the outcome says when), a failure asking again cannot
// change (a refused key), and a run that failed after the model had
// answered and a call had run (trying again would repeat it).
func TestScheduledRunIsNotTriedAgain(t *testing.T) {
	unavailable := llmtest.Reply{Status: 503, Header: map[string]string{"Retry-After": "3600"}} // longer than co's client waits
	for _, tc := range []struct {
		name    string
		at      string
		closed  bool
		replies []llmtest.Reply
		want    string
	}{
		{"every minute", "* * * * *", true, nil, "the next run, at " + nextRunAfter(config.Schedule{At: "* * * * *"}, retryTestStart).Format("2006-01-02 15:04") + ", tries again"},
		{"a refused key", "2099-12-01 08:00", false, []llmtest.Reply{{Status: 401}}, "rejected the request (HTTP 401"},
		{"after a call ran", "2099-12-01 08:00", false, []llmtest.Reply{
			{ToolCalls: []llmtest.ToolCall{{ID: "c1", Name: "list_directory", Args: `{"path":"."}`}}}, unavailable}, "HTTP 503"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := closedAddr(t)
			if !tc.closed {
				srv, err := llmtest.NewServerAt(addr)
				if err != nil {
					t.Fatal(err)
				}
				defer srv.Close()
				srv.Script(tc.replies...)
			}
			l := scheduleRetryEnv(t, addr, tc.at)
			c := &fakeClock{at: retryTestStart}
			var log bytes.Buffer
			r := runScheduledWith(context.Background(), env{Streams{In: strings.NewReader(""), Out: &log, Err: &log}, "v"},
				config.Schedule{Name: "brief", At: tc.at, Prompt: "brief me"}, &log, c.clock())
			if r.code != exitError || r.attempts != 1 || len(c.waits) != 0 {
				t.Fatalf("code %d after %d attempts, waits %v; want 1 after 1, none\n%s", r.code, r.attempts, c.waits, log.String())
			}
			if infos := briefSessions(t, l); len(infos) != 1 || !strings.Contains(infos[0].Outcome, tc.want) {
				t.Errorf("sessions of the schedule: %+v; want one whose outcome says %q\n%s", infos, tc.want, log.String())
			}
		})
	}
}
