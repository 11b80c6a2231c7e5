package shell

import (
	"path"
	"slices"
	"strings"

	"github.com/co-cli/co/tools"
)

// matchRules returns the strictest rule of rs matching argv, or nil. Allow
// rules match only when self is true (the command itself, not one run
// through a wrapper), only the program as written and only words without
// expansions; deny and ask rules also match a path-qualified program by its
// base name, words whose value is known despite quoting tricks ($'git',
// {git,push}), and commands with options before the subcommand.
func (p *Policy) matchRules(rs []rule, argv []arg, self bool) *rule {
	var best *rule
	for i := range rs {
		r := &rs[i]
		if r.decision == tools.Allow && !self {
			continue
		}
		if best != nil && r.decision <= best.decision {
			continue
		}
		if ruleMatches(r, argv) || (r.decision != tools.Allow && ruleMatches(r, p.normalize(argv))) {
			best = r
		}
	}
	return best
}

// nearRule returns a deny or ask rule whose words all appear in argv, in
// order, though not as a prefix (kubectl --request-timeout 5s delete
// against "kubectl delete"): such a command must not be allowed.
func (p *Policy) nearRule(argv []arg) *rule {
	for i := range p.rules {
		r := &p.rules[i]
		if r.decision == tools.Allow || !ruleMatches(&rule{words: r.words[:1], decision: r.decision}, argv) {
			continue
		}
		j := 1
		for _, a := range argv[1:] {
			if j < len(r.words) && a.val == r.words[j] {
				j++
			}
		}
		if j == len(r.words) {
			return r
		}
	}
	return nil
}

func ruleMatches(r *rule, argv []arg) bool {
	if len(argv) < len(r.words) {
		return false
	}
	usable := func(a arg) bool {
		if r.decision == tools.Allow {
			return a.exact
		}
		return !hasUnknown(a.val)
	}
	prog, want := argv[0].val, r.words[0]
	if !usable(argv[0]) || prog != want && (strings.Contains(want, "/") || r.decision == tools.Allow || path.Base(prog) != want) {
		return false
	}
	for i, w := range r.words[1:] {
		if a := argv[i+1]; !usable(a) || a.val != w {
			return false
		}
	}
	return true
}

// normalize drops the options before the subcommand of programs that have
// subcommands (git -C dir push -> git push, kubectl -n x delete -> kubectl
// delete) so deny and ask rules still match.
func (p *Policy) normalize(argv []arg) []arg {
	if len(argv) < 2 {
		return nil
	}
	withArg, ok := p.subcmd[progBase(argv[0])]
	if !ok {
		return nil
	}
	i := skipOptions(argv, 1, withArg)
	if i == 1 || i >= len(argv) {
		return nil
	}
	return append([]arg{argv[0]}, argv[i:]...)
}

var gitGlobalArgOpts = []string{"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env", "--super-prefix", "--list-cmds", "--attr-source"}

// skipOptions returns the index of the first argument from i that is not an
// option; options in withArg take the next word as their value.
func skipOptions(argv []arg, i int, withArg []string) int {
	for i < len(argv) {
		v := argv[i].val
		if v == "--" {
			return i + 1
		}
		if len(v) < 2 || (v[0] != '-' && v[0] != '+') {
			return i
		}
		if !strings.Contains(v, "=") && slices.Contains(withArg, v) {
			i++
		}
		i++
	}
	return i
}

// scopeName is the program, plus the subcommand for programs that have
// them: "git status", "npm run build", "make test", "ls".
func (p *Policy) scopeName(argv []arg) string {
	if len(argv) == 0 || !argv[0].exact || argv[0].val == "" {
		return ""
	}
	prog := argv[0].val
	base := path.Base(prog)
	withArg, ok := p.subcmd[base]
	if !ok {
		return prog
	}
	name, take := prog, 1
	npmLike := base == "npm" || base == "yarn" || base == "pnpm" || base == "bun"
	for i := 1; i < len(argv) && take > 0; i++ {
		v := argv[i].val
		if v == "--" {
			break
		}
		if (len(v) > 1 && v[0] == '-') || (base == "cargo" && strings.HasPrefix(v, "+")) {
			if !strings.Contains(v, "=") && slices.Contains(withArg, v) {
				i++
			}
			continue
		}
		if base == "make" && strings.Contains(v, "=") {
			continue
		}
		if !argv[i].exact {
			return ""
		}
		name += " " + v
		take--
		if take == 0 && npmLike && (v == "run" || v == "run-script" || v == "exec" || v == "x" || v == "dlx") {
			take = 1
		}
	}
	return name
}
