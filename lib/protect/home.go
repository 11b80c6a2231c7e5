package protect

import (
	"path"
	"path/filepath"
	"strings"
)

// homeRules apply where a home folder stands inside the workspace (co started in ~, in /home or
// in /): what a shell, a desktop session, ssh, git, cron or a package tool reads and runs later,
// or trusts as your credentials. Patterns are relative to the home folder; a trailing slash marks
// a folder rule. Where each program reads them: docs/SOURCES.md#the-home-folder-what-runs-later.
var homeRules = []Rule{
	{".bashrc", "bash reads .bashrc into every interactive shell"},
	{".bash_profile", "bash reads .bash_profile into every login shell"},
	{".bash_login", "bash reads .bash_login into a login shell when there is no .bash_profile"},
	{".profile", "sh, dash and bash read .profile into login shells, and desktop sessions read it at login"},
	{".bash_logout", "bash runs .bash_logout when a login shell exits"},
	{".bash_aliases", "the default .bashrc of Debian and Ubuntu reads .bash_aliases into every interactive shell"},
	{".zshenv", "zsh reads .zshenv into every shell, scripts included"},
	{".zprofile", "zsh reads .zprofile into every login shell"},
	{".zshrc", "zsh reads .zshrc into every interactive shell"},
	{".zlogin", "zsh reads .zlogin into every login shell"},
	{".zlogout", "zsh runs .zlogout when a login shell exits"},
	{".config/fish/", ".config/fish/ holds fish's config.fish, conf.d and functions, run by every fish shell"},
	{".inputrc", "readline reads .inputrc in every bash and other readline program: a key binding can type a command for you"},
	{".xprofile", "display managers (GDM, LightDM, SDDM) run .xprofile at graphical login"},
	{".xsessionrc", "Debian's Xsession runs .xsessionrc at graphical login"},
	{".xsession", "Xsession runs .xsession as the session itself"},
	{".xinitrc", "startx runs .xinitrc as the session itself"},
	{".config/environment.d/", ".config/environment.d/ sets the environment of every program systemd starts for you (LD_PRELOAD, PATH)"},
	{".config/autostart/", ".config/autostart/ holds programs the desktop starts at every login"},
	{".local/bin/", ".local/bin/ is on PATH: a program there runs in place of the one you meant"},
	{".ssh/", ".ssh/ holds authorized_keys (who may log in as you), your ssh config (ProxyCommand runs programs) and keys"},
	{".gnupg/", ".gnupg/ holds your GnuPG keys, what they trust, and gpg's and gpg-agent's config (which names programs to run)"},
	{".gitconfig", ".gitconfig is git's global config: core.fsmonitor, core.hooksPath, aliases and credential helpers run programs in every repository"},
	{".config/git/", ".config/git/ holds git's global config, attributes and ignore: core.fsmonitor and friends run programs in every repository"},
	{".git-credentials", ".git-credentials holds the passwords and tokens git's store helper sends"},
	{".netrc", ".netrc holds logins that curl, ftp and git send to hosts"},
	{".npmrc", ".npmrc holds npm's registry tokens and which registry (and scripts) npm trusts"},
	{".yarnrc", ".yarnrc holds yarn's registry settings and tokens"},
	{".yarnrc.yml", ".yarnrc.yml holds yarn's registry settings, tokens and plugins"},
	{".pypirc", ".pypirc holds PyPI upload credentials"},
	{".config/pip/", ".config/pip/ says which package index pip installs from"},
	{".pip/", ".pip/ says which package index pip installs from"},
	{".cargo/credentials", ".cargo/credentials holds crates.io tokens"},
	{".cargo/credentials.toml", ".cargo/credentials.toml holds crates.io tokens"},
	{".cargo/config.toml", ".cargo/config.toml sets cargo's registries, credential providers and build commands"},
	{".docker/config.json", ".docker/config.json holds registry logins and names credential helpers, programs docker runs"},
	{".aws/", ".aws/ holds AWS credentials, and config whose credential_process runs a program"},
	{".kube/config", ".kube/config holds cluster credentials, and exec plugins that kubectl runs"},
	{".config/gh/", ".config/gh/ holds the GitHub CLI's token and aliases (which can run shell commands)"},
	{".config/gcloud/", ".config/gcloud/ holds Google Cloud credentials"},
	{".azure/", ".azure/ holds Azure CLI credentials"},
	{".pgpass", ".pgpass holds PostgreSQL passwords"},
	{".my.cnf", ".my.cnf holds MySQL logins"},
}

// systemRules apply when the workspace is the root folder /: crontabs and what every login shell
// reads. Under / a command can write whatever the workspace's owner can (root: all of /etc): these
// are only the places that most directly run code later.
var systemRules = []Rule{
	{"var/spool/cron/", "var/spool/cron/ holds every user's crontab: cron runs what is there"},
	{"etc/crontab", "cron runs the commands in etc/crontab"},
	{"etc/cron.d/", "etc/cron.d/ holds crontabs cron runs"},
	{"etc/cron.hourly/", "cron runs the scripts in etc/cron.hourly/"},
	{"etc/cron.daily/", "cron runs the scripts in etc/cron.daily/"},
	{"etc/cron.weekly/", "cron runs the scripts in etc/cron.weekly/"},
	{"etc/cron.monthly/", "cron runs the scripts in etc/cron.monthly/"},
	{"etc/profile", "every login shell reads etc/profile"},
	{"etc/profile.d/", "etc/profile reads every script in etc/profile.d/"},
	{"etc/bash.bashrc", "bash reads etc/bash.bashrc into every interactive shell"},
	{"etc/environment", "pam_env sets etc/environment at every login"},
	{"etc/ld.so.preload", "the dynamic linker loads the libraries named in etc/ld.so.preload into every program"},
	{"etc/sudoers", "etc/sudoers says who may run what as root"},
	{"etc/sudoers.d/", "etc/sudoers.d/ says who may run what as root"},
	{"etc/systemd/", "etc/systemd/ holds system units and timers, which run programs"},
}

// HomeRules are the rules that apply where a home folder stands inside the workspace, relative
// to it, in the order the documentation gives them.
func HomeRules() []Rule { return append([]Rule(nil), homeRules...) }

// SystemRules are the rules that apply when the workspace is the root folder, relative to it.
func SystemRules() []Rule { return append([]Rule(nil), systemRules...) }

// Places are where, on this machine, the rules tied to one position apply: the home folders and
// co's own folders. [Set.In] places them in a workspace.
type Places struct {
	// Homes are home folders (absolute): the user's ($HOME) and root's (/root).
	Homes []string
	// ConfigDir and DataDir are co's own folders (absolute; config.Paths): nothing co runs may
	// write in them.
	ConfigDir, DataDir string
}

const (
	configReason = "it is co's config folder: its settings (the shell policy, the schedules and what they may do), the Google token, your own skills and instructions"
	dataReason   = "it is co's data folder: memories, saved sessions, consent to MCP servers and telemetry, which co reads back as its own"
)

// Own is one of co's own folders as it stands in a workspace.
type Own struct {
	// Rel is where it is, relative to the workspace, slash-separated; "" when the workspace is
	// inside it (or is it).
	Rel string
	// Dir is its absolute path as co resolves it.
	Dir string
	// Reason says what it holds.
	Reason string
}

// In returns s with the rules of p placed in the workspace ws (absolute): the home rules
// wherever a home folder is inside ws (ws itself, home/alice when ws is /), the system rules
// when ws is the root folder, and co's own folders wherever they are inside ws. Paths are
// compared as given and with their symlinks resolved. Nothing is read but the links on the way.
func (s Set) In(ws string, p Places) Set {
	s.at = nil
	s.own = nil
	wss := variants(ws)
	s.homes = false
	for _, h := range p.Homes {
		for _, rel := range inside(wss, h) {
			s.homes = true
			for _, r := range homeRules {
				s.anchor(path.Join(rel, r.Pattern), r.Reason)
			}
		}
	}
	for _, w := range wss {
		if w == "/" {
			for _, r := range systemRules {
				s.anchor(r.Pattern, r.Reason)
			}
			break
		}
	}
	for _, o := range []Own{{Dir: p.ConfigDir, Reason: configReason}, {Dir: p.DataDir, Reason: dataReason}} {
		if o.Dir == "" {
			continue
		}
		for _, rel := range inside(wss, o.Dir) {
			o.Rel = rel
			s.own = append(s.own, o)
			if rel != "" {
				s.anchor(rel, o.Reason)
			}
		}
	}
	return s
}

// HomeIn says where a home folder is inside the workspace ws: "" when ws is the home folder,
// "home/alice" when ws is /. ok is false when the home folder is not inside ws.
func HomeIn(ws, home string) (rel string, ok bool) {
	if home == "" {
		return "", false
	}
	rels := inside(variants(ws), home)
	if len(rels) == 0 {
		return "", false
	}
	return rels[0], true
}

// Homes says whether s has home rules: the workspace holds a home folder.
func (s Set) Homes() bool { return s.homes }

// Owns are co's own folders inside the workspace.
func (s Set) Owns() []Own { return append([]Own(nil), s.own...) }

// OwnAt says whether rel (slash-separated, relative to the workspace) is in one of co's own
// folders, and which: nothing co runs may write there, asked or not.
func (s Set) OwnAt(rel string) (Own, bool) {
	rel = strings.Trim(rel, "/")
	if rel == "." {
		rel = ""
	}
	for _, o := range s.own {
		if o.Rel == "" || strings.EqualFold(rel, o.Rel) || (len(rel) > len(o.Rel) && rel[len(o.Rel)] == '/' && strings.EqualFold(rel[:len(o.Rel)], o.Rel)) {
			return o, true
		}
	}
	return Own{}, false
}

// anchor protects the path rel (relative to the workspace) at that exact place.
func (s *Set) anchor(rel, why string) {
	rel = strings.ToLower(strings.Trim(rel, "/"))
	dir, name := path.Split(rel)
	dir = strings.TrimSuffix(dir, "/")
	if s.at == nil {
		s.at = map[string]map[string]string{}
	}
	if s.at[dir] == nil {
		s.at[dir] = map[string]string{}
	}
	if _, ok := s.at[dir][name]; !ok {
		s.at[dir][name] = why
	}
}

// variants are p cleaned and p with its symlinks resolved (when that differs and works).
func variants(p string) []string {
	if p == "" {
		return nil
	}
	out := []string{filepath.Clean(p)}
	if r, err := filepath.EvalSymlinks(p); err == nil && r != out[0] {
		out = append(out, r)
	}
	return out
}

// inside gives where p is inside any of the workspace's forms wss, relative and slash-separated,
// each once.
func inside(wss []string, p string) []string {
	var out []string
	for _, w := range wss {
		for _, v := range variants(p) {
			rel, err := filepath.Rel(w, v)
			if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
				continue
			}
			rel = filepath.ToSlash(rel)
			if rel == "." {
				rel = ""
			}
			dup := false
			for _, o := range out {
				dup = dup || strings.EqualFold(o, rel)
			}
			if !dup {
				out = append(out, rel)
			}
		}
	}
	return out
}
