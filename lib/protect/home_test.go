package protect

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestHomeRulesApplyWhereTheHomeFolderIs(t *testing.T) {
	root := t.TempDir()
	home := filepath.Join(root, "home", "alice")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "me") // a workspace reached through a link to the home folder
	if err := os.Symlink(home, link); err != nil {
		t.Fatal(err)
	}
	places := Places{Homes: []string{home}, ConfigDir: filepath.Join(home, ".config", "co-cli"), DataDir: filepath.Join(home, ".local", "share", "co-cli")}
	cases := []struct {
		name, ws  string
		protected []string
		not       []string
	}{
		{"workspace is the home folder", home,
			[]string{".bashrc", ".ZSHRC", ".ssh/authorized_keys", ".gitconfig", ".config/git/config", ".config/autostart/x.desktop",
				".local/bin/ls", ".docker/config.json", ".aws/credentials", ".kube/config", ".config/fish/config.fish",
				".local/share/co-cli/memory.db", ".config/co-cli/settings.json", ".npmrc", ".git-credentials", ".config/gh/hosts.yml"},
			[]string{"src/.bashrc", "project/.ssh/x", ".local/share/other", ".docker/other.json", "notes.txt", ".kube/cache/x"}},
		{"workspace holds the home folders", filepath.Join(root, "home"),
			[]string{"alice/.bashrc", "alice/.ssh/id_ed25519", "alice/.local/share/co-cli/sessions.db"},
			[]string{".bashrc", "bob/.bashrc"}},
		{"through a link", link, []string{".profile", ".gnupg/gpg.conf"}, nil},
		{"a project folder", filepath.Join(home, "src"), nil, []string{".bashrc", ".ssh/config", ".gitconfig"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if err := os.MkdirAll(tc.ws, 0o755); err != nil {
				t.Fatal(err)
			}
			s := New(nil).In(tc.ws, places)
			for _, rel := range tc.protected {
				if _, why, ok := s.Match(rel, File); !ok || why == "" {
					t.Errorf("%s is not protected", rel)
				}
			}
			for _, rel := range tc.not {
				if root, why, ok := s.Match(rel, File); ok {
					t.Errorf("%s protected (%s: %s)", rel, root, why)
				}
			}
			if s.Homes() != (len(tc.protected) > 0) {
				t.Errorf("Homes() = %v", s.Homes())
			}
		})
	}
}

func TestTheRootFolderAsWorkspace(t *testing.T) {
	s := New(nil).In("/", Places{Homes: []string{"/home/alice", "/root"}})
	for _, rel := range []string{"home/alice/.bashrc", "root/.ssh/authorized_keys", "var/spool/cron/crontabs/root", "etc/cron.d/x", "etc/profile.d/x.sh"} {
		if _, _, ok := s.Match(rel, File); !ok {
			t.Errorf("%s is not protected", rel)
		}
	}
	if _, _, ok := s.Match("srv/.bashrc", File); ok {
		t.Error("srv/.bashrc protected")
	}
	if rel, ok := HomeIn("/", "/home/alice"); !ok || rel != "home/alice" {
		t.Errorf("HomeIn = %q, %v", rel, ok)
	}
}

func TestOwnFolders(t *testing.T) {
	root := t.TempDir()
	data := filepath.Join(root, "ws", "xdg", "data", "co-cli") // XDG_DATA_HOME inside the workspace
	cfg := filepath.Join(root, "elsewhere", "co-cli")
	s := New(nil).In(filepath.Join(root, "ws"), Places{ConfigDir: cfg, DataDir: data})
	if o, ok := s.OwnAt("xdg/data/co-cli/memory.db"); !ok || o.Rel != "xdg/data/co-cli" || !strings.Contains(o.Reason, "data folder") {
		t.Errorf("OwnAt = %+v, %v", o, ok)
	}
	if _, ok := s.OwnAt("xdg/data/co-cli"); !ok {
		t.Error("the folder itself is not co's")
	}
	if _, ok := s.OwnAt("xdg/data/co-clix/a"); ok {
		t.Error("a sibling is co's")
	}
	if _, _, ok := s.Match("XDG/Data/co-cli/sessions.db", File); !ok {
		t.Error("co's data folder is not protected")
	}
	// The workspace is co's data folder itself: everything in it is co's.
	s = New(nil).In(data, Places{DataDir: data})
	if o, ok := s.OwnAt("memory.db"); !ok || o.Rel != "" {
		t.Errorf("OwnAt in the data folder = %+v, %v", o, ok)
	}
	if len(New(nil).In(filepath.Join(root, "elsewhere2"), Places{ConfigDir: cfg, DataDir: data}).Owns()) != 0 {
		t.Error("folders outside the workspace are owned")
	}
}

func TestHomeRulesHaveReasons(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range append(HomeRules(), SystemRules()...) {
		if r.Pattern == "" || r.Reason == "" || seen[r.Pattern] {
			t.Errorf("rule %+v", r)
		}
		seen[r.Pattern] = true
	}
}
