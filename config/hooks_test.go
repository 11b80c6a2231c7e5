package config

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/hooks"
)

// The user's hooks are Settings.Hooks; a project file's are kept apart in
// Loaded.ProjectHooks with their file, never merged into the user's.
func TestProjectHooksKeptApart(t *testing.T) {
	f := newFixture(t)
	writeFile(t, f.userFile(), `{"hooks": {"PreToolUse": [{"matcher": "run_shell_command",
		"hooks": [{"type": "command", "command": "~/bin/guard", "on_failure": "block"}]}]}}`)
	writeFile(t, f.projectFile(), `{"hooks": {"PostToolUse": [{"matcher": "write_file",
		"hooks": [{"type": "command", "command": ".co-cli/fmt.sh"}]}]}}`)
	l := f.load(t)
	user := l.Settings.Hooks
	if len(user) != 1 || len(user[hooks.PreToolUse]) != 1 || user[hooks.PreToolUse][0].Hooks[0].OnFailure != "block" {
		t.Fatalf("the user's hooks: %+v", user)
	}
	if _, merged := user[hooks.PostToolUse]; merged {
		t.Fatal("the project's hooks were merged into the user's")
	}
	wantSource(t, l, "hooks", Source{LayerUser, f.userFile()})
	if l.ProjectHooksFile != f.projectFile() || len(l.ProjectHooks[hooks.PostToolUse]) != 1 ||
		l.ProjectHooks[hooks.PostToolUse][0].Hooks[0].Command != ".co-cli/fmt.sh" {
		t.Fatalf("the project's hooks: %q %+v", l.ProjectHooksFile, l.ProjectHooks)
	}
	if len(l.Warnings) != 0 || len(l.Ignored) != 0 {
		t.Errorf("warnings %v, ignored %v", l.Warnings, l.Ignored)
	}

	// A project file alone: the user has no hooks.
	if err := os.Remove(f.userFile()); err != nil {
		t.Fatal(err)
	}
	l = f.load(t)
	if !l.Settings.Hooks.Empty() || l.ProjectHooks.Empty() {
		t.Errorf("user %v, project %v", l.Settings.Hooks, l.ProjectHooks)
	}
	wantSource(t, l, "hooks", Source{Layer: LayerDefault})
}

// hooks.Decode's warnings are the settings' warnings, naming the file; its
// errors stop the load, naming the file and the place in the key.
func TestHooksWarningsAndErrors(t *testing.T) {
	f := newFixture(t)
	writeFile(t, f.userFile(), `{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "true"}]}],
		"Stop": [{"hooks": [{"type": "command", "command": "true"}]}]}}`)
	l := f.load(t)
	if len(l.Warnings) != 1 || l.Warnings[0].Key != "hooks" || !strings.Contains(l.Warnings[0].Msg, "co has no SessionEnd event") ||
		!strings.Contains(l.Warnings[0].Msg, f.userFile()) {
		t.Fatalf("warnings: %v", l.Warnings)
	}
	if len(l.Settings.Hooks[hooks.Stop]) != 1 {
		t.Errorf("the other hooks did not load: %v", l.Settings.Hooks)
	}

	for _, file := range []string{f.userFile(), f.projectFile()} {
		_ = os.Remove(f.userFile())
		writeFile(t, file, `{"hooks": {"PreToolUse": [{"hooks": [{"type": "command", "command": "x", "on_failure": "crash"}]}]}}`)
		_, err := Load(f.opts())
		var ce *Error
		if !errors.As(err, &ce) || ce.Source != file || ce.Key != "hooks" ||
			!strings.Contains(err.Error(), file+`: hooks.PreToolUse[0].hooks[0]: "on_failure" is "crash"`) {
			t.Errorf("%s: error %v", filepath.Base(filepath.Dir(file)), err)
		}
		_ = os.Remove(file)
	}
}

// co config set hooks takes the JSON, checked as the loader checks it,
// and writes it as a settings file holds it; unset takes it out.
func TestHooksSetAndUnset(t *testing.T) {
	f := newFixture(t)
	writeFile(t, f.userFile(), `{"theme": "dark"}`)
	if err := EditFile(f.userFile(), Change{Key: "hooks", Value: `{"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": -1}]}]}`}); err == nil ||
		!strings.Contains(err.Error(), `"timeout" is -1`) {
		t.Fatalf("a bad timeout: %v", err)
	}
	if err := EditFile(f.userFile(), Change{Key: "hooks", Value: `{"Notification": [{"hooks": [{"type": "command", "command": "printf '\\a'"}]}]}`}); err != nil {
		t.Fatal(err)
	}
	l := f.load(t)
	if got := l.Settings.Hooks[hooks.Notification]; len(got) != 1 || got[0].Hooks[0].Command != `printf '\a'` {
		t.Fatalf("hooks after set: %+v", l.Settings.Hooks)
	}
	for _, e := range l.Entries() {
		if e.Key == "hooks" && !strings.Contains(e.Value, `"Notification"`) {
			t.Errorf("co config shows %s", e.Value)
		}
	}
	if err := EditFile(f.userFile(), Change{Key: "hooks", Unset: true}); err != nil {
		t.Fatal(err)
	}
	if l := f.load(t); !l.Settings.Hooks.Empty() || l.Settings.Theme != "dark" {
		t.Errorf("after unset: %+v %s", l.Settings.Hooks, l.Settings.Theme)
	}
}
