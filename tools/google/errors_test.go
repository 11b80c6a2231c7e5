package google_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/google"
	"github.com/co-cli/co/tools/google/googlefake"
)

func TestServiceErrorsSayWhatToDo(t *testing.T) {
	cases := []struct {
		name               string
		match              string
		status             int
		reason, retryAfter string
		times              int
		tool, args         string
		want               []string
		retry              bool
		slept              []time.Duration // the rate-limit waits, on an injected clock
	}{
		{name: "401", match: "/drive/v3/files", status: 401, reason: "authError", times: 1,
			tool: google.NameSearchDriveFiles, args: `{"query":"x"}`,
			want: []string{"Google Drive rejected co's credentials (401", "run `co google auth` to sign in again"}},
		{name: "403 scope", match: "/gmail/v1/users/me/messages", status: 403, reason: "insufficientPermissions", times: 1,
			tool: google.NameListEmails, args: `{}`,
			want: []string{"does not grant the Gmail read and compose scope", "run `co google auth`", "grant every permission"}},
		{name: "403 API disabled", match: "/calendar/v3/calendars", status: 403, reason: "accessNotConfigured", times: 1,
			tool: google.NameListCalendarEvents, args: `{}`,
			want: []string{"the Calendar API is not enabled", "https://console.cloud.google.com/apis/library/calendar-json.googleapis.com"}},
		{name: "403 quota", match: "/drive/v3/files", status: 403, reason: "userRateLimitExceeded", times: 1,
			tool: google.NameSearchDriveFiles, args: `{"query":"x"}`,
			want: []string{"Google Drive is rate-limiting co or its quota is used up", "try again in a minute"}},
		{name: "404", match: "/drive/v3/files/nope", status: 404, reason: "notFound", times: 1,
			tool: google.NameReadDriveFile, args: `{"file_id":"nope"}`, retry: true,
			want: []string{"file nope was not found in Google Drive (404)", "not be shared with this Google account"}},
		{name: "429 beyond the bound", match: "/drive/v3/files", status: 429, reason: "rateLimitExceeded", retryAfter: "60", times: 5,
			tool: google.NameSearchDriveFiles, args: `{"query":"x"}`, slept: nil, // 60 s is past the bound: reported at once
			want: []string{"Google Drive is rate-limiting co", "HTTP 429", "for longer than co waits (3s)"}},
		{name: "429 without Retry-After backs off then reports", match: "/drive/v3/files", status: 429, reason: "rateLimitExceeded", times: 10,
			tool: google.NameSearchDriveFiles, args: `{"query":"x"}`, slept: []time.Duration{time.Second, 2 * time.Second}, // 4 s more would pass the 3 s bound
			want: []string{"HTTP 429"}},
		{name: "500", match: "/gmail/v1/users/me/messages", status: 503, reason: "backendError", times: 1,
			tool: google.NameSearchEmails, args: `{"query":"x"}`,
			want: []string{"Google Gmail failed (HTTP 503", "try again later"}},
		{name: "400", match: "/gmail/v1/users/me/messages", status: 400, reason: "invalidArgument", times: 1,
			tool: google.NameSearchEmails, args: `{"query":"x"}`, retry: true,
			want: []string{"Google Gmail rejected the request", "fix the arguments"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var slept []time.Duration
			f := newFixture(t, func(c *google.Config) { c.Sleep = recordSleep(&slept) })
			f.srv.Fail(tc.match, tc.status, tc.reason, tc.retryAfter, tc.times)
			_, err := f.run(t, tc.tool, tc.args)
			if err == nil {
				t.Fatal("no error")
			}
			if tools.IsRetry(err) != tc.retry {
				t.Errorf("retry = %v, want %v: %v", tools.IsRetry(err), tc.retry, err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
			if !slices.Equal(slept, tc.slept) {
				t.Errorf("waited %v, want %v", slept, tc.slept)
			}
		})
	}
}

func Test429IsWaitedOut(t *testing.T) {
	var slept []time.Duration
	f := newFixture(t, func(c *google.Config) { c.Sleep = recordSleep(&slept) })
	f.srv.AddFiles(googlefake.File{ID: "a", Name: "alpha", MimeType: "text/plain"})
	f.srv.Fail("/drive/v3/files", 429, "rateLimitExceeded", "1", 1)
	res := f.mustRun(t, google.NameSearchDriveFiles, `{"query":"alpha"}`)
	if res.Meta["count"] != 1 {
		t.Errorf("after the wait: %v", res.Meta)
	}
	if want := []time.Duration{time.Second}; !slices.Equal(slept, want) {
		t.Errorf("waited %v before retrying, want Retry-After's %v", slept, want)
	}
	// The draft's POST body is sent again after a 429.
	f.srv.Fail("/gmail/v1/users/me/drafts", 429, "rateLimitExceeded", "0", 1)
	f.mustRun(t, google.NameCreateEmailDraft, `{"to":"bob@example.com","subject":"s","body":"b"}`)
	if d := f.srv.Drafts(); len(d) != 1 || !strings.Contains(string(d[0].Raw), "To: <bob@example.com>") {
		t.Errorf("drafts after a 429 = %+v", d)
	}
}

func TestRejectedCredentialsAreReadAgain(t *testing.T) {
	f := newFixture(t, nil)
	f.mustRun(t, google.NameListEmails, `{}`)
	refreshes := len(f.srv.TokenRequests())
	f.srv.Fail("/gmail/v1/users/me/messages", 401, "authError", "", 1)
	if _, err := f.run(t, google.NameListEmails, `{}`); err == nil || !strings.Contains(err.Error(), "co google auth") {
		t.Fatalf("401: %v", err)
	}
	f.mustRun(t, google.NameListEmails, `{}`)
	if got := len(f.srv.TokenRequests()); got != refreshes+1 {
		t.Errorf("token requests after a 401: %d, want %d (the credentials are read again)", got, refreshes+1)
	}
}

func TestUnusableCredentialsSayWhatToDo(t *testing.T) {
	f := newFixture(t, nil)
	if err := os.WriteFile(f.tokenPath, []byte(`{"type":"authorized_user","client_id":"c"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := f.run(t, google.NameListEmails, `{}`)
	if err == nil || strings.Contains(err.Error(), "could not reach") || !strings.Contains(err.Error(), "no refresh token") ||
		!strings.Contains(err.Error(), "run `co google auth`") {
		t.Errorf("err = %v", err)
	}
	os.Remove(f.tokenPath)
	_, err = f.run(t, google.NameListEmails, `{}`)
	if err == nil || !strings.Contains(err.Error(), "Google is not configured: run `co google auth") {
		t.Errorf("token gone: %v", err)
	}
}

// recordSleep is a Config.Sleep that records each wait and returns at
// once: rate limits are asserted by the waits asked for, not by a clock.
func recordSleep(slept *[]time.Duration) func(context.Context, time.Duration) error {
	var mu sync.Mutex
	return func(_ context.Context, d time.Duration) error {
		mu.Lock()
		defer mu.Unlock()
		*slept = append(*slept, d)
		return nil
	}
}
