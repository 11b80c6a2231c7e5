package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/ui/slash"
)

func newTestInput(t *testing.T, entries ...string) *Input {
	t.Helper()
	h, _ := LoadHistory("")
	for _, e := range entries {
		h.Add(e)
	}
	th := NewTheme("dark", false)
	in := NewInput(&th, DefaultKeyMap(), h)
	in.SetWidth(60)
	return in
}

func press(in *Input, keys ...string) *Submission {
	var last *Submission
	for _, k := range keys {
		if s, _ := in.Update(keyMsg(k)); s != nil {
			last = s
		}
	}
	return last
}

func typeInto(in *Input, s string) {
	for _, r := range s {
		in.Update(keyMsg(string(r)))
	}
}

func TestInputEnterSendsAndNewlineKeysDoNot(t *testing.T) {
	tests := []struct {
		name  string
		keys  []string
		value string
		sent  string
	}{
		{"enter sends", []string{"enter"}, "", "hi"},
		{"shift+enter adds a line", []string{"shift+enter"}, "hi\n", ""},
		{"ctrl+j adds a line", []string{"ctrl+j"}, "hi\n", ""},
		{"alt+enter adds a line", []string{"alt+enter"}, "hi\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := newTestInput(t)
			typeInto(in, "hi")
			sub := press(in, tt.keys...)
			if got := in.Value(); got != tt.value {
				t.Errorf("value %q, want %q", got, tt.value)
			}
			switch {
			case tt.sent == "" && sub != nil:
				t.Errorf("sent %q", sub.Text)
			case tt.sent != "" && (sub == nil || sub.Text != tt.sent):
				t.Errorf("sent %+v, want %q", sub, tt.sent)
			}
		})
	}
	in := newTestInput(t)
	if sub := press(in, "space", "enter"); sub != nil {
		t.Errorf("blank input sent %q", sub.Text)
	}
}

func TestInputHistoryWalk(t *testing.T) {
	in := newTestInput(t, "first", "two\nlines", "third")
	typeInto(in, "draft")
	steps := []struct {
		key  string
		want string
	}{
		{"up", "third"},
		{"up", "two\nlines"},
		{"up", "two\nlines"}, // cursor on the last line: up moves within the entry
		{"up", "first"},
		{"up", "first"}, // oldest
		{"down", "two\nlines"},
		{"down", "two\nlines"}, // cursor on the first line: down moves within the entry
		{"down", "third"},
		{"down", "draft"}, // back to what was being typed
		{"down", "draft"},
	}
	for i, s := range steps {
		press(in, s.key)
		if got := in.Value(); got != s.want {
			t.Fatalf("step %d (%s): %q, want %q", i, s.key, got, s.want)
		}
	}
}

func TestInputHistoryPersists(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "history.txt")
	h, err := LoadHistory(path)
	if err != nil || h.Len() != 0 {
		t.Fatalf("missing file: %v, %d", err, h.Len())
	}
	for _, e := range []string{"one", `back\slash`, "multi\nline", "multi\nline"} {
		if save := h.Add(e); save != nil {
			if err := save(); err != nil {
				t.Fatal(err)
			}
		}
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("history file: %v %v", err, st.Mode())
	}
	h2, err := LoadHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := 0; i < h2.Len(); i++ {
		got = append(got, h2.At(i))
	}
	if strings.Join(got, "|") != "one|back\\slash|multi\nline" {
		t.Fatalf("history read back %q", got)
	}
}

func TestInputCompletesSlashCommands(t *testing.T) {
	tests := []struct {
		typed string
		value string
		hints []string
	}{
		{"/he", "/help ", nil},
		{"/y", "/yolo ", nil},
		{"/", "/", slash.Complete("/")},
		{"/h", "/h", []string{"/help", "/history", "/hooks"}},
		{"/zz", "/zz", nil},
		{"hello", "hello", nil},
		{"/help me", "/help me", nil},
	}
	for _, tt := range tests {
		t.Run(tt.typed, func(t *testing.T) {
			in := newTestInput(t)
			typeInto(in, tt.typed)
			press(in, "tab")
			if got := in.Value(); got != tt.value {
				t.Errorf("value %q, want %q", got, tt.value)
			}
			if strings.Join(in.Hints(), ",") != strings.Join(tt.hints, ",") {
				t.Errorf("hints %q, want %q", in.Hints(), tt.hints)
			}
			if len(tt.hints) > 0 && !strings.Contains(in.View(), tt.hints[0]) {
				t.Errorf("hints not shown:\n%s", in.View())
			}
		})
	}
}

// A second Tab cycles through the candidates the first one showed, and on
// round; any other key ends the cycle.
func TestInputTabCyclesCandidates(t *testing.T) {
	in := newTestInput(t)
	typeInto(in, "/h")
	var got []string
	for range 5 {
		press(in, "tab")
		got = append(got, in.Value())
	}
	want := []string{"/h", "/help", "/history", "/hooks", "/help"}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("tab five times gave %q, want %q", got, want)
	}
	if strings.Join(in.Hints(), ",") != "/help,/history,/hooks" {
		t.Errorf("the candidates are not shown while cycling: %q", in.Hints())
	}
	press(in, "shift+tab")
	if v := in.Value(); v != "/hooks" {
		t.Errorf("shift+tab gave %q, want /hooks", v)
	}
	typeInto(in, " x")
	press(in, "tab")
	if v := in.Value(); v != "/hooks x" || len(in.Hints()) != 0 {
		t.Errorf("after typing, tab gave %q with hints %q", v, in.Hints())
	}
}

// A burst of character keys is gathered and inserted at once; a key that is
// not a character (or a read of the text) inserts what was gathered first,
// so nothing is reordered.
func TestInputBurstKeepsOrder(t *testing.T) {
	in := newTestInput(t)
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	in.now = func() time.Time { return now } // every key at once: a burst
	var flushes int
	send := func(k string) {
		if _, cmd := in.Update(keyMsg(k)); cmd != nil {
			flushes++
		}
	}
	for _, k := range []string{"a", "b", "c"} {
		send(k)
	}
	if !in.Gathering() {
		t.Fatal("a burst is inserted key by key")
	}
	if flushes != 1 {
		t.Errorf("%d flushes scheduled for one burst, want 1", flushes)
	}
	send("backspace")
	for _, k := range []string{"d", "space", "e"} {
		send(k)
	}
	if in.Empty() {
		t.Error("Empty while keys wait")
	}
	in.Flushed()
	if got := in.Value(); got != "abd e" {
		t.Fatalf("value %q, want %q", got, "abd e")
	}
	if !strings.Contains(in.View(), "abd e") {
		t.Errorf("view after the flush:\n%s", in.View())
	}
	send("x")
	send("y")
	if sub := press(in, "enter"); sub == nil || sub.Text != "abd exy" {
		t.Fatalf("enter sent %+v, want the whole burst", sub)
	}
}

// Tab completes /inbox's words, then the number of a waiting call.
func TestInputCompletesInboxArguments(t *testing.T) {
	in := newTestInput(t)
	env := slash.Env{InboxIDs: func() []string { return []string{"12", "3"} }}
	in.args = func(line string) (string, []string, bool) { return slash.CompleteArg(env, line) }
	typeInto(in, "/inbox a")
	press(in, "tab")
	if v := in.Value(); v != "/inbox approve " {
		t.Fatalf("/inbox a + tab = %q", v)
	}
	typeInto(in, "1")
	press(in, "tab")
	if v := in.Value(); v != "/inbox approve 12" {
		t.Fatalf("/inbox approve 1 + tab = %q", v)
	}
	in.SetValue("/inbox deny ")
	press(in, "tab")
	if h := strings.Join(in.Hints(), ","); h != "12,3" {
		t.Errorf("/inbox deny + tab shows %q", h)
	}
	in = newTestInput(t)
	in.args = func(line string) (string, []string, bool) { return slash.CompleteArg(env, line) }
	typeInto(in, "/inbox open x")
	press(in, "tab")
	if v := in.Value(); v != "/inbox open x" || len(in.Hints()) != 0 {
		t.Errorf("a run's id is not completed, nothing changes: %q %q", v, in.Hints())
	}
}
