package cli

import (
	"os"
	"path/filepath"
	"testing"
)

// $BROWSER is a ':'-separated list whose first found command wins, with
// its own arguments; %s places the URL, which otherwise comes last. Run as
// one program name, "firefox --new-window" opened nothing (found walking
// issue 30's login as a user).
func TestBrowserCommandReadsTheConvention(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "mybrowser")
	if err := os.WriteFile(script, []byte("#!/bin/sh\nprintf '%s\\n' \"$@\" > \"$0.args\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
	const url = "http://127.0.0.1:1/x?a=b"
	for _, tc := range []struct{ browser, want string }{
		{"mybrowser --new-window", "--new-window\n" + url + "\n"},
		{"no-such-browser-here:mybrowser", url + "\n"},
		{"mybrowser --open=%s --flag", "--open=" + url + "\n--flag\n"},
	} {
		cmd := browserCommand(tc.browser, url)
		if cmd == nil {
			t.Fatalf("%q: no command", tc.browser)
		}
		if err := cmd.Run(); err != nil {
			t.Fatalf("%q: %v", tc.browser, err)
		}
		got, err := os.ReadFile(script + ".args")
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != tc.want {
			t.Errorf("%q ran with %q, want %q", tc.browser, got, tc.want)
		}
	}
	if cmd := browserCommand("no-such-browser-here: :also-missing", url); cmd != nil {
		t.Errorf("a $BROWSER naming nothing found gave %v", cmd.Args)
	}
}
