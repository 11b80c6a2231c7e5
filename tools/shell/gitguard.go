package shell

import (
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/co-cli/co/tools"
)

// A repository's configuration names programs that git runs by itself:
// core.fsmonitor on every git status (the attack behind git's
// safe.directory, CVE-2022-24765), filter.<driver>.clean, .smudge and
// .process on the files .gitattributes gives that driver, diff.external,
// diff.<driver>.command and .textconv for diffs, a pager, hooks, a gpg
// program for signatures, an ssh command for a lazy fetch. A .git/config
// cannot be cloned, but a tarball, a folder someone gave you or an earlier
// approved command can carry one, so the read-only git commands the policy
// runs without asking run guarded: gitGuard defines a shell function git
// that runs each of them with overrides no repository can undo.
//
// Overrides come as GIT_CONFIG_COUNT, GIT_CONFIG_KEY_n and
// GIT_CONFIG_VALUE_n, which git-config(1) says "will override values in
// configuration files" (only git -c beats them, and the policy asks for
// -c); see docs/SOURCES.md#git-configuration-that-runs-programs.

// gitOverrides are the settings fixed by name.
var gitOverrides = [][2]string{
	{"core.fsmonitor", ""},                  // empty: no fsmonitor (git 2.35 and later alike)
	{"core.hooksPath", "/dev/null"},         // no hook (post-index-change runs when status writes the index)
	{"core.pager", "cat"},                   // also GIT_PAGER, which beats pager.<cmd>
	{"core.sshCommand", "ssh"},              // a lazy fetch of a partial clone
	{"credential.helper", ""},               // empty resets the list
	{"gpg.program", "gpg"},                  // log.showSignature runs it
	{"gpg.openpgp.program", "gpg"},          //
	{"gpg.x509.program", "gpgsm"},           //
	{"gpg.ssh.program", "ssh-keygen"},       //
	{"diff.submodule", "short"},             // "diff" runs git diff in each submodule, with its own config
	{"status.submoduleSummary", "false"},    // runs git log in each submodule
	{"protocol.allow", "never"},             // no transport at all (GIT_ALLOW_PROTOCOL too)
	{"uploadpack.packObjectsHook", "false"}, // never read from a repository, but cheap to pin
}

// gitFlags are the options put right after a guarded subcommand:
// diff.external and diff.<driver>.command run unless --no-ext-diff, and a
// textconv unless --no-textconv (no value of the setting turns either off);
// git status and git diff run git status in each submodule, whose own
// filters the guard has not seen, unless --ignore-submodules=dirty. The
// policy asks for a later --ignore-submodules=none or untracked.
var gitFlags = map[string]string{
	"status":      "--ignore-submodules=dirty",
	"diff":        "--no-ext-diff --no-textconv --ignore-submodules=dirty",
	"diff-files":  "--no-ext-diff --no-textconv --ignore-submodules=dirty",
	"diff-index":  "--no-ext-diff --no-textconv --ignore-submodules=dirty",
	"log":         "--no-ext-diff --no-textconv",
	"show":        "--no-ext-diff --no-textconv",
	"whatchanged": "--no-ext-diff --no-textconv",
	"diff-tree":   "--no-ext-diff --no-textconv",
	"blame":       "--no-textconv",
	"annotate":    "--no-textconv",
}

// gitDriverKeys matches the settings of filter drivers, named by the
// repository (filter.<driver>.clean ...): they cannot be fixed by name, so
// the guard lists them (git config --get-regexp, which runs nothing) and
// empties each, which leaves the driver without a program.
const gitDriverKeys = `^filter\..*\.(clean|smudge|process)$`

// gitGuard returns the shell text that goes before a command the policy
// allowed: a function git that runs the subcommands on the built-in
// read-only list (sub) guarded and any other (one a user rule allowed) as
// it is. untrustedGlobal: the global configuration is not the user's own
// (the sandbox's HOME is /tmp, which commands write), so its drivers are
// emptied as well as the repository's.
func gitGuard(sub []string, untrustedGlobal bool) string {
	var b strings.Builder
	b.WriteString(`git() ( s=; for a do case $a in -*) ;; *) s=$a; break;; esac; done; case $s in `)
	b.WriteString(strings.Join(sub, "|"))
	b.WriteString(`) ;; *) exec git "$@";; esac; set -f; export GIT_PAGER=cat PAGER=cat GIT_OPTIONAL_LOCKS=0 GIT_TERMINAL_PROMPT=0 GIT_ALLOW_PROTOCOL= GIT_NO_LAZY_FETCH=1`)
	for i, kv := range gitOverrides {
		n := strconv.Itoa(i)
		b.WriteString(" GIT_CONFIG_KEY_" + n + "=" + kv[0] + " GIT_CONFIG_VALUE_" + n + "=" + shellWord(kv[1]))
	}
	b.WriteString(`; unset GIT_EXTERNAL_DIFF GIT_CONFIG_PARAMETERS; n=` + strconv.Itoa(len(gitOverrides)))
	scopes := "local|worktree"
	if untrustedGlobal {
		scopes += "|global"
	}
	b.WriteString(`; t=$(printf '\t'); nl=$(printf '\n.'); nl=${nl%.}; IFS=$nl; for k in $(GIT_CONFIG_COUNT=$n command git config --show-scope --name-only --get-regexp '` + gitDriverKeys + `' 2>/dev/null); do case $k in `)
	for i, sc := range strings.Split(scopes, "|") {
		if i > 0 {
			b.WriteString("|")
		}
		b.WriteString(sc + `"$t"*`)
	}
	b.WriteString(`) k=${k#*"$t"}; eval "export GIT_CONFIG_KEY_$n=\"\$k\" GIT_CONFIG_VALUE_$n="; n=$((n+1));; esac; done; unset IFS; export GIT_CONFIG_COUNT=$n; f=; case $s in `)
	for _, name := range slices.Sorted(maps.Keys(gitFlags)) {
		b.WriteString(name + ") f='" + gitFlags[name] + "';; ")
	}
	b.WriteString(`esac; if [ -n "$f" ]; then d=; for a do shift; set -- "$@" "$a"; if [ -z "$d" ] && [ "$a" = "$s" ]; then set -- "$@" $f; d=1; fi; done; fi; exec git "$@" ); `)
	return b.String()
}

// shellWord quotes a value for sh, single quotes for all but the plain.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// runsGit says whether a command read as v runs git.
func runsGit(v Verdict) bool {
	for _, p := range v.Programs {
		if name, _, _ := strings.Cut(p, " "); name == "git" {
			return true
		}
	}
	return false
}

// GitGuarded returns cmd as it runs when the policy allowed it: behind
// the git guard when it runs git, else as it is.
func (p *Policy) GitGuarded(cmd string, v Verdict, untrustedGlobal bool) string {
	if v.Decision != tools.Allow || !runsGit(v) {
		return cmd
	}
	return gitGuard(slices.Sorted(maps.Keys(p.gitRead)), untrustedGlobal) + cmd
}
