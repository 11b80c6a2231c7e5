package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestSaveRoundTrip(t *testing.T) {
	tests := []struct {
		name   string
		edit   func(s *Settings)
		wantOn string // the exact file written
	}{
		{
			name:   "defaults write an empty object",
			edit:   func(s *Settings) {},
			wantOn: "{}\n",
		},
		{
			name: "only values that differ from the defaults",
			edit: func(s *Settings) {
				s.Theme = "dark"
				s.ToolRetries = 0
				s.SandboxCPUs = 2.5
				s.AutoConfirm = true
				s.DockerImage = "co-cli-sandbox" // the default: not written
				s.ShellSafeCommands = []string{"ls", "git status"}
				s.ShellPolicy = []PolicyRule{{Match: "git push", Decision: "deny", Reason: "CI pushes & <tags>"}}
			},
			wantOn: `{
  "auto_confirm": true,
  "sandbox_cpus": 2.5,
  "shell_policy": [
    {
      "match": "git push",
      "decision": "deny",
      "reason": "CI pushes & <tags>"
    }
  ],
  "shell_safe_commands": [
    "ls",
    "git status"
  ],
  "theme": "dark",
  "tool_retries": 0
}
`,
		},
		{
			name:   "an emptied list is written as []",
			edit:   func(s *Settings) { s.ShellSafeCommands = nil },
			wantOn: "{\n  \"shell_safe_commands\": []\n}\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t)
			s := Defaults()
			tc.edit(&s)
			if err := Save(f.userFile(), &s); err != nil {
				t.Fatal(err)
			}
			data, err := os.ReadFile(f.userFile())
			if err != nil {
				t.Fatal(err)
			}
			if string(data) != tc.wantOn {
				t.Errorf("file =\n%s\nwant\n%s", data, tc.wantOn)
			}
			fi, err := os.Stat(f.userFile())
			if err != nil {
				t.Fatal(err)
			}
			if fi.Mode().Perm() != 0o600 {
				t.Errorf("file mode = %v, want 0600", fi.Mode().Perm())
			}
			di, err := os.Stat(filepath.Dir(f.userFile()))
			if err != nil {
				t.Fatal(err)
			}
			if di.Mode().Perm() != 0o700 {
				t.Errorf("dir mode = %v, want 0700", di.Mode().Perm())
			}
			noTempFiles(t, filepath.Dir(f.userFile()))

			l := f.load(t)
			want := s
			if want.ShellSafeCommands == nil {
				want.ShellSafeCommands = []string{}
			}
			if !reflect.DeepEqual(l.Settings, want) {
				t.Errorf("Load after Save = %+v\nwant %+v", l.Settings, want)
			}
			back, warns, err := LoadFile(f.userFile())
			if err != nil || len(warns) != 0 || !reflect.DeepEqual(*back, want) {
				t.Errorf("LoadFile = %+v, %v, %v", back, warns, err)
			}
		})
	}
}

// Save replaces an existing file and leaves nothing else behind.
func TestSaveReplaces(t *testing.T) {
	f := newFixture(t)
	writeFile(t, f.userFile(), `{"theme": "dark", "tool_retries": 9}`)
	s, _, err := LoadFile(f.userFile())
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Set("tool_retries", "4"); err != nil {
		t.Fatal(err)
	}
	if err := Save(f.userFile(), s); err != nil {
		t.Fatal(err)
	}
	l := f.load(t)
	wantValue(t, l.Settings.Theme, "dark")
	wantValue(t, l.Settings.ToolRetries, 4)
	noTempFiles(t, filepath.Dir(f.userFile()))
}

// Invalid settings are refused and the file on disk is untouched.
func TestSaveInvalid(t *testing.T) {
	f := newFixture(t)
	const before = `{"theme": "dark"}`
	writeFile(t, f.userFile(), before)
	s := Defaults()
	s.Theme = "blue"
	err := Save(f.userFile(), &s)
	var ce *Error
	if !errors.As(err, &ce) || ce.Key != "theme" {
		t.Fatalf("Save error = %v, want a *config.Error for theme", err)
	}
	if data, _ := os.ReadFile(f.userFile()); string(data) != before {
		t.Errorf("file changed to %q", data)
	}
}

// When the final rename fails, the temporary file is removed and what was
// at the path is untouched: never a partial file.
func TestSaveFailureLeavesNoPartialFile(t *testing.T) {
	f := newFixture(t)
	target := f.userFile()
	writeFile(t, filepath.Join(target, "keep"), "x") // a non-empty directory where the file should go: rename fails
	s := Defaults()
	s.Theme = "dark"
	err := Save(target, &s)
	var ce *Error
	if !errors.As(err, &ce) || ce.Source != target || !strings.Contains(err.Error(), "cannot save settings") {
		t.Fatalf("Save error = %v, want a *config.Error naming %s", err, target)
	}
	noTempFiles(t, filepath.Dir(target))
	if data, err := os.ReadFile(filepath.Join(target, "keep")); err != nil || string(data) != "x" {
		t.Errorf("what was at the path changed: %q, %v", data, err)
	}
}

// A symlinked settings file (dotfiles) stays a symlink; its target is
// replaced.
func TestSaveThroughSymlink(t *testing.T) {
	f := newFixture(t)
	target := filepath.Join(f.home, "dotfiles", "co-settings.json")
	writeFile(t, target, `{}`)
	if err := os.MkdirAll(filepath.Dir(f.userFile()), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, f.userFile()); err != nil {
		t.Fatal(err)
	}
	s := Defaults()
	s.Theme = "dark"
	if err := Save(f.userFile(), &s); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(f.userFile()); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced: %v, %v", fi, err)
	}
	wantValue(t, f.load(t).Settings.Theme, "dark")
}

func noTempFiles(t *testing.T, dir string) {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left behind: %s", e.Name())
		}
	}
}
