package shell

import (
	"fmt"
	"slices"
	"strings"
)

// safeProg is a program on the built-in safe list.
type safeProg struct {
	// options: some options are dangerous, so an unquoted glob (which could
	// expand to one, from a file named -o or --output=x) asks.
	options bool
	// findLike: -- does not end what is checked (find's expression).
	findLike bool
	// check returns why the arguments are not safe, or "". extended is true
	// when a user rule or shell_safe_commands entry allows this argv prefix.
	check func(args []arg, extended bool) string
}

// checkArgs returns why the arguments of a safe program ask, or "".
func (p *Policy) checkArgs(base string, args []arg, extended bool) string {
	sp, ok := p.safe[base]
	if !ok {
		return ""
	}
	if sp.options {
		for _, a := range args {
			if a.val == "--" && !sp.findLike {
				break
			}
			if a.glob {
				return "an unquoted glob in the arguments of " + base + " could expand to an option"
			}
		}
	}
	if sp.check != nil {
		return sp.check(args, extended)
	}
	return ""
}

type dangerOpt struct{ name, why string }

// getopt checks GNU-style options: dangerous short options anywhere in a
// group (-ro contains -o), and dangerous long options in full, as --opt=x,
// or abbreviated (--outp is --output).
type getopt struct {
	prog     string
	short    map[byte]string // dangerous short option -> why
	argShort string          // short options whose value is the rest of the word
	long     []dangerOpt
	safeLong []string // known options that are prefixes of a dangerous one
}

func (g getopt) check(args []arg) string {
	for _, a := range args {
		v := a.val
		if v == "--" {
			return ""
		}
		if len(v) < 2 || v[0] != '-' {
			continue
		}
		if name, ok := strings.CutPrefix(v, "--"); ok {
			name, _, _ = strings.Cut(name, "=")
			if slices.Contains(g.safeLong, name) {
				continue
			}
			for _, d := range g.long {
				if !strings.HasPrefix(d.name, name) {
					continue
				}
				if name == d.name {
					return fmt.Sprintf("%s --%s %s", g.prog, d.name, d.why)
				}
				return fmt.Sprintf("%s --%s (read as --%s) %s", g.prog, name, d.name, d.why)
			}
			continue
		}
		for j := 1; j < len(v); j++ {
			if why, ok := g.short[v[j]]; ok {
				return fmt.Sprintf("%s -%c %s", g.prog, v[j], why)
			}
			if strings.IndexByte(g.argShort, v[j]) >= 0 {
				break
			}
		}
	}
	return ""
}

func (g getopt) checker() func([]arg, bool) string {
	return func(args []arg, _ bool) string { return g.check(args) }
}

var gitDanger = getopt{
	prog:  "git",
	short: map[byte]string{'O': "opens a pager or reads an order file"},
	long: []dangerOpt{
		{"output", "writes to a file"},
		{"ext-diff", "runs an external diff program"},
		{"textconv", "runs text conversion programs"},
		{"open-files-in-pager", "runs a pager"},
		{"upload-pack", "runs a program"},
		{"receive-pack", "runs a program"},
		{"exec", "runs a program"},
		{"filters", "runs filter programs"},
		{"config", "sets configuration, which can run programs"},
		{"template", "installs hooks"},
	},
	safeLong: []string{"text", "filter"},
}

var gitGlobalWhy = map[string]string{
	"-c":           "sets configuration, which can run programs",
	"--config-env": "sets configuration, which can run programs",
	"-C":           "runs git in another directory",
	"--git-dir":    "points git at another repository",
	"--work-tree":  "points git at another work tree",
	"--exec-path":  "changes where git finds its programs",
	"-p":           "runs a pager",
	"--paginate":   "runs a pager",
}

// checkGit allows read-only subcommands (and, when extended, the subcommand
// the user allowed), never the global options or subcommand options that
// run programs or write files.
func (p *Policy) checkGit(args []arg, extended bool) string {
	i := 0
	for ; i < len(args); i++ {
		v := args[i].val
		if len(v) == 0 || v[0] != '-' {
			break
		}
		switch v {
		case "--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--glob-pathspecs",
			"--noglob-pathspecs", "--icase-pathspecs", "--no-replace-objects", "--version", "-v",
			"--no-lazy-fetch", "--no-advice", "--bare":
			continue
		}
		name, _, _ := strings.Cut(v, "=")
		why, ok := gitGlobalWhy[name]
		if !ok {
			why = "is not an allowed git option"
		}
		return "git " + v + " " + why
	}
	if i == len(args) {
		return ""
	}
	sub, rest := args[i].val, args[i+1:]
	if why := gitDanger.check(rest); why != "" {
		return why
	}
	if why := gitSubmoduleCheck(rest); why != "" {
		return why
	}
	if fn, ok := p.gitRead[sub]; ok {
		if fn != nil {
			return fn(rest)
		}
		return ""
	}
	if extended {
		return ""
	}
	return "git " + sub + notReadOnly
}

// gitSubmoduleCheck asks for the options that make git run in submodules,
// whose own configuration the git guard (gitguard.go) does not read:
// --ignore-submodules=none or =untracked (git status in each submodule)
// and --submodule=diff (git diff in each). Long options count in their
// abbreviated forms, down to the shortest that git reads as these.
func gitSubmoduleCheck(args []arg) string {
	for _, a := range args {
		if a.val == "--" {
			return ""
		}
		name, ok := strings.CutPrefix(a.val, "--")
		if !ok {
			continue
		}
		name, val, _ := strings.Cut(name, "=")
		switch {
		case len(name) >= len("ignore-su") && strings.HasPrefix("ignore-submodules", name) && (val == "none" || val == "untracked"):
			return "git --ignore-submodules=" + val + " runs git in each submodule, with that submodule's configuration"
		case len(name) >= len("subm") && strings.HasPrefix("submodule", name) && val == "diff":
			return "git --submodule=diff runs git diff in each submodule, with that submodule's configuration"
		}
	}
	return ""
}

// notReadOnly ends the reason for a git subcommand that is not on the safe
// list: like a program that is not, it leaves the command grantable.
const notReadOnly = " is not a read-only git command"

// gitListing checks git branch / git tag: listing only. Positional
// arguments (patterns) need --list; any option outside allowed changes
// something.
func gitListing(cmd, shortOK string, longOK, withValue []string) func(args []arg) string {
	return func(args []arg) string {
		list, positional := false, 0
		for i := 0; i < len(args); i++ {
			v := args[i].val
			if v == "--" {
				positional += len(args) - i - 1
				break
			}
			if name, ok := strings.CutPrefix(v, "--"); ok {
				name, _, eq := strings.Cut(name, "=")
				switch {
				case name == "list":
					list = true
				case slices.Contains(withValue, name):
					if !eq && i+1 < len(args) && !strings.HasPrefix(args[i+1].val, "-") {
						i++
					}
				case slices.Contains(longOK, name):
				default:
					return "git " + cmd + " " + v + " changes " + cmd + "es"
				}
				continue
			}
			if len(v) > 1 && v[0] == '-' {
				for j := 1; j < len(v); j++ {
					c := v[j]
					if c == 'l' {
						list = true
					}
					if c >= '0' && c <= '9' && cmd == "tag" {
						continue
					}
					if strings.IndexByte(shortOK, c) < 0 {
						return fmt.Sprintf("git %s -%c changes %ses", cmd, c, cmd)
					}
				}
				continue
			}
			positional++
		}
		if positional > 0 && !list {
			return "git " + cmd + " with a name creates a " + cmd
		}
		return ""
	}
}

func gitRemote(args []arg) string {
	i := 0
	for i < len(args) && (args[i].val == "-v" || args[i].val == "--verbose") {
		i++
	}
	if i == len(args) {
		return ""
	}
	switch sub := args[i].val; sub {
	case "show", "get-url":
		for _, a := range args[i+1:] {
			switch v := a.val; {
			case v == "-n" || v == "--push" || v == "--all":
			case strings.HasPrefix(v, "-"):
				return "git remote " + sub + " " + v + " is not allowed"
			case strings.ContainsAny(v, ":/\\"):
				// A URL rather than a remote name: transports such as
				// ext:: run commands.
				return "git remote " + sub + " with a URL (" + v + ") contacts it directly"
			}
		}
		return ""
	default:
		return "git remote " + sub + " changes remotes"
	}
}

func gitConfig(args []arg) string {
	action, first := false, true
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if name, ok := strings.CutPrefix(v, "--"); ok && v != "--" {
			name, _, eq := strings.Cut(name, "=")
			switch name {
			case "get", "get-all", "get-regexp", "get-urlmatch", "list", "get-color", "get-colorbool":
				action = true
			case "global", "system", "local", "worktree", "show-origin", "show-scope", "name-only", "null",
				"bool", "int", "bool-or-int", "path", "expiry-date", "includes", "no-includes", "fixed-value", "all", "regexp":
			case "file", "blob", "type", "default", "value", "url":
				if !eq && i+1 < len(args) && !strings.HasPrefix(args[i+1].val, "-") {
					i++
				}
			default:
				return "git config " + v + " changes configuration"
			}
			continue
		}
		if len(v) > 1 && v[0] == '-' {
			for j := 1; j < len(v); j++ {
				switch v[j] {
				case 'l':
					action = true
				case 'z':
				case 'f':
					if j+1 == len(v) && i+1 < len(args) && !strings.HasPrefix(args[i+1].val, "-") {
						i++
					}
					j = len(v)
				default:
					return fmt.Sprintf("git config -%c changes configuration", v[j])
				}
			}
			continue
		}
		if first && (v == "get" || v == "list") {
			action = true
		}
		first = false
	}
	if !action {
		return "git config without --get or --list can change configuration"
	}
	return ""
}

// gitSub allows only the given first arguments (git stash list, git
// worktree list).
func gitSub(cmd string, ok ...string) func(args []arg) string {
	return func(args []arg) string {
		if len(args) > 0 && slices.Contains(ok, args[0].val) {
			return ""
		}
		what := "git " + cmd
		if len(args) > 0 {
			what += " " + args[0].val
		}
		return what + " is not a read-only git command"
	}
}

func gitReflog(args []arg) string {
	for _, a := range args {
		if strings.HasPrefix(a.val, "-") {
			continue
		}
		switch a.val {
		case "expire", "delete", "drop", "write":
			return "git reflog " + a.val + " changes the reflog"
		}
		break
	}
	return ""
}

func checkFind(args []arg, _ bool) string {
	for _, a := range args {
		switch a.val {
		case "-exec", "-execdir", "-ok", "-okdir":
			return "find " + a.val + " runs commands"
		case "-delete":
			return "find -delete deletes files"
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			return "find " + a.val + " writes a file"
		}
	}
	return ""
}

func checkTest(args []arg, _ bool) string {
	for _, a := range args {
		if a.val == "-v" || a.val == "-R" {
			return "test " + a.val + " evaluates an array subscript, which can run commands"
		}
	}
	return ""
}

func checkPrintf(args []arg, _ bool) string {
	if len(args) > 0 && args[0].glob {
		return "an unquoted glob as the first argument of printf could expand to -v"
	}
	for _, a := range args {
		v := a.val
		if v == "--" || !strings.HasPrefix(v, "-") {
			break
		}
		if strings.HasPrefix(v, "-v") {
			return "printf -v assigns a variable"
		}
	}
	return ""
}

func checkUniq(args []arg, _ bool) string {
	positional := 0
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if v == "--" {
			positional += len(args) - i - 1
			break
		}
		if len(v) > 1 && v[0] == '-' {
			switch v {
			case "-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars":
				i++
			}
			continue
		}
		positional++
	}
	if positional > 1 {
		return "uniq with two file names writes to the second"
	}
	return ""
}
