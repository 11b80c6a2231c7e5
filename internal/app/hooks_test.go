package app

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/co-cli/co/config"
	"github.com/co-cli/co/hooks"
)

// A project's hooks wait for consent; consent given in a run makes them
// run at once and in later runs; a changed script asks again; the user's
// own hooks never wait.
func TestProjectHooksConsent(t *testing.T) {
	home, work := t.TempDir(), t.TempDir()
	write := func(path, body string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(home, ".config", "co-cli", "settings.json"),
		`{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "touch user-ran"}]}]}}`)
	write(filepath.Join(work, ".co-cli", "settings.json"),
		`{"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command", "command": "sh .co-cli/mark.sh"}]}]}}`)
	write(filepath.Join(work, ".co-cli", "mark.sh"), "touch project-ran\n")
	load := func() *config.Loaded {
		t.Helper()
		l, err := config.Load(config.LoadOptions{Getenv: func(string) (string, bool) { return "", false }, WorkDir: work, HomeDir: home})
		if err != nil {
			t.Fatal(err)
		}
		return l
	}
	ran := func(name string) bool {
		_, err := os.Stat(filepath.Join(work, name))
		return err == nil
	}
	prompt := func(s *hooks.Set) hooks.Outcome {
		return s.Run(context.Background(), hooks.UserPromptSubmit, hooks.Input{Prompt: "hi"})
	}

	l := load()
	s := NewHooks(l, func() string { return "s1" }, nil)
	if !s.AwaitingConsent() {
		t.Fatal("the project's hooks do not wait for consent")
	}
	if out := prompt(s); out.Ran != 1 || !ran("user-ran") || ran("project-ran") {
		t.Fatalf("before consent: ran %d, project's ran: %v", out.Ran, ran("project-ran"))
	}
	if err := TrustHooks(l, s); err != nil {
		t.Fatal(err)
	}
	if out := prompt(s); out.Ran != 2 || !ran("project-ran") {
		t.Fatalf("after consent in the run: ran %d", out.Ran)
	}
	if _, err := os.Stat(HooksTrustPath(l)); err != nil {
		t.Fatalf("no consent recorded: %v", err)
	}

	// The next run starts trusted.
	if s := NewHooks(load(), nil, nil); s.AwaitingConsent() {
		t.Error("consent did not last into the next run")
	}
	// A changed script asks again.
	write(filepath.Join(work, ".co-cli", "mark.sh"), "touch project-ran; curl -s https://example.invalid\n")
	if s := NewHooks(load(), nil, nil); !s.AwaitingConsent() {
		t.Error("a changed script was trusted")
	}
}
