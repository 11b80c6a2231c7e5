// Package shell runs the shell commands the model asks for and owns the
// command policy that decides, before anything runs, whether a command runs
// at once (allow), stops for the user (ask) or is refused (deny).
//
// # The command policy
//
// Policy.Evaluate decides from the syntax tree of the command, never from
// string prefixes. It parses the command twice (mvdan.cc/sh/v3/syntax), as
// bash and as POSIX sh, because commands run under sh -c, which is dash on
// Debian and bash elsewhere, and the two read a few things differently
// ($'...', ((...)), &>); the stricter verdict wins. What the parsers cannot
// read asks; Evaluate never allows it and never panics.
//
// A command is allowed only when every simple command in it — through
// pipes, &&, ||, ;, ( ), { }, and the conditions and bodies of if and while
// — is on the safe list with safe arguments, and the command has none of:
// redirection that writes a file (>, >>, >| or <> to anything but
// /dev/null, /dev/stdout or /dev/stderr; fd dups such as 2>&1 are fine, <
// from a file is fine because the allowed programs read files anyway, and
// &> and |& ask because sh reads them as a background job and a syntax
// error), here-documents and here-strings, $(..) and backticks, <(..) and
// >(..), parameter or arithmetic expansion, variable assignments, for loops,
// case, [[ ]], (( )), function definitions, background jobs (&), coproc,
// brace expansion, a wrapper that runs another command (sudo, env, xargs,
// timeout, sh -c, eval, ...), a program name that is quoted, escaped,
// path-qualified, non-ASCII or a glob, and control characters. A $, a
// backtick or a > may appear in an allowed command only inside single
// quotes (or, for >, double quotes) or a comment.
//
// Safe programs are checked by their arguments, not their names alone:
// find without -exec, -delete, -fprint, ...; git read-only subcommands only
// and none of the options that run programs or write files (-c, -C,
// --output, --ext-diff, ...); sed only as sed -n with a print-only script;
// sort without -o; rg without --pre or -z; and so on. Long options are
// matched in their abbreviated forms too (GNU getopt accepts unambiguous
// prefixes), and for these programs an unquoted glob, which could expand to
// an option, asks.
//
// User rules (shell_policy) come before the built-in list. A rule matches a
// simple command by argv prefix; deny and ask rules also match a
// path-qualified program by its base name, commands run through wrappers
// and command strings, and commands with global options before the
// subcommand (git -C x push). The strictest matching rule wins (deny over
// ask over allow), and a command in which a deny or ask rule's words appear
// out of prefix position is never allowed. An allow rule, or a
// shell_safe_commands entry, makes a program allowed but never lifts a
// structural ask (redirection, substitution, wrappers), never lifts the
// built-in argument checks of the programs that have them, and never beats
// a built-in deny. shell_safe_commands entries naming wrappers, shells or
// interpreters are ignored.
//
// Built-in denies cannot be approved by anything — no rule, grant or yolo:
// recursive deletion of /, /*, ~ or $HOME, or of a path made only of ..
// (../../..), or of ., * or .* after a cd to one of those (cd ~ && rm -rf
// .; the evaluator follows cd through a command, not into subshells); find
// from one of those deleting what it finds (-delete, -exec rm, | xargs
// rm); fork bombs, downloads piped into a shell or interpreter, mkfs, dd to
// a block device, writes to a block device, recursive chmod/chown of /,
// shutdown and reboot. They are looked
// for through wrappers, substitutions, subshells, function bodies, the
// strings given to sh -c, eval, su -c and the like (parsed recursively),
// and the part of an unparseable command before the syntax error, which
// the shell runs before it fails. Command strings nested too deep or too
// many to check are denied too, so that no deny can hide behind them.
//
// A Policy is immutable after NewPolicy and safe for concurrent use.
package shell

import (
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/co-cli/co/tools"
)

const (
	// maxDepth bounds how deep command strings (sh -c, eval, ...) are
	// parsed for denies.
	maxDepth = 3
	// maxScripts bounds how many command strings one Evaluate parses.
	maxScripts = 64
	// maxUnwrap bounds how many wrappers (sudo env timeout ...) are looked
	// through.
	maxUnwrap = 8
	// maxBraceWords bounds the words a brace expansion is expanded to for
	// the deny checks.
	maxBraceWords = 256
	// unknown stands for the value of an expansion in a word's value; it
	// may be empty.
	unknown = "\x00"
	// opaque stands for the value of an expansion that is never empty
	// (${X:?}, $((...)), a variable set earlier in the command).
	opaque = "\x01"
)

// hasUnknown reports whether s has the value of an expansion in it.
func hasUnknown(s string) bool { return strings.ContainsAny(s, unknown+opaque) }

// asScript turns a value into a command string to parse: expansions that
// may be empty are dropped, the others become _.
func asScript(s string) string {
	return strings.NewReplacer(unknown, "", opaque, "_").Replace(s)
}

// Rule is one user rule from the shell_policy setting.
type Rule struct {
	// Match is an argv prefix: "git push" matches git push origin main;
	// "rm" matches every rm.
	Match    string
	Decision tools.Decision
	Reason   string
}

// Verdict is the policy's decision on one command string.
type Verdict struct {
	Decision tools.Decision
	// Reason is human-readable and always set.
	Reason string
	// Scope is the key a session grant applies to: the program and, for
	// programs with subcommands, the subcommand ("git status", "npm test",
	// "ls"). In a compound command it is the scope shared by the commands
	// that are not allowed on their own (or by all of them, when all are).
	// It is "" when the command cannot be scoped: a deny, a structural ask
	// (redirection, substitution, wrapper, dangerous option, ...), or
	// commands with different scopes.
	Scope string
	// Programs lists every program (with its subcommand) in the command,
	// including those run through wrappers and substitutions.
	Programs []string
	// Unresolved: some program's name is known only when the command runs
	// (a variable or a substitution: $c x), so Programs cannot name it.
	Unresolved bool
}

// Policy decides allow / ask / deny for shell commands. Build it once with
// NewPolicy.
type Policy struct {
	rules    []rule                        // shell_policy, in order
	extra    []rule                        // shell_safe_commands, as allow rules
	ignored  map[string]bool               // shell_safe_commands entries that are never allowed
	safe     map[string]safeProg           // the built-in safe list
	gitRead  map[string]func([]arg) string // read-only git subcommands, with their own check or nil
	wrappers map[string]wrapper            // programs that run another command
	never    map[string]string             // other programs that can never be safe, and why
	subcmd   map[string][]string           // programs with subcommands, and their options that take a value
	denyHint map[string]bool               // programs a wrapper's arguments are scanned for
	bash     sync.Pool                     // *syntax.Parser for bash
	posix    sync.Pool                     // *syntax.Parser for POSIX sh (dash)
}

type rule struct {
	words    []string
	decision tools.Decision
	match    string
	reason   string
}

// NewPolicy builds a policy from the user's shell_policy rules and
// shell_safe_commands entries ("ls", "git status", "npm test"). An empty or
// unparseable rule or entry is an error.
func NewPolicy(rules []Rule, safeCommands []string) (*Policy, error) {
	p := &Policy{ignored: map[string]bool{}}
	p.builtins()
	for i, r := range rules {
		words, err := parseMatch(r.Match)
		if err != nil {
			return nil, fmt.Errorf("shell_policy rule %d (%q): %w", i+1, r.Match, err)
		}
		if r.Decision < tools.Allow || r.Decision > tools.Deny {
			return nil, fmt.Errorf("shell_policy rule %d (%q): unknown decision %d", i+1, r.Match, int(r.Decision))
		}
		p.rules = append(p.rules, rule{words: words, decision: r.Decision, match: strings.Join(words, " "), reason: strings.TrimSpace(r.Reason)})
	}
	for i, s := range safeCommands {
		words, err := parseMatch(s)
		if err != nil {
			return nil, fmt.Errorf("shell_safe_commands entry %d (%q): %w", i+1, s, err)
		}
		if _, never := p.neverWhy(path.Base(words[0])); never {
			p.ignored[path.Base(words[0])] = true
			continue
		}
		p.extra = append(p.extra, rule{words: words, decision: tools.Allow, match: strings.Join(words, " ")})
	}
	p.bash.New = func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }
	p.posix.New = func() any { return syntax.NewParser(syntax.Variant(syntax.LangPOSIX)) }
	return p, nil
}

// parseMatch splits a rule or safe-command entry into plain words.
func parseMatch(s string) ([]string, error) {
	words := strings.Fields(s)
	if len(words) == 0 {
		return nil, errors.New("empty match: give a program, optionally followed by arguments (e.g. \"git push\")")
	}
	for i, w := range words {
		if !utf8.ValidString(w) || strings.ContainsAny(w, "'\"\\$`;|&<>(){}*?[]#~\x00") || (i == 0 && strings.Contains(w, "=")) {
			return nil, fmt.Errorf("%q is not a plain word: a match is a program and arguments without quotes, globs or shell syntax", w)
		}
	}
	return words, nil
}

// Evaluate decides on cmd. It never panics: an internal error asks.
func (p *Policy) Evaluate(cmd string) (v Verdict) {
	defer func() {
		if r := recover(); r != nil {
			v = Verdict{Decision: tools.Ask, Reason: fmt.Sprintf("internal error while checking the command: %v", r)}
		}
	}()
	return p.evaluate(cmd)
}

// evaluate reads cmd twice, as bash and as POSIX sh, because the shell that
// runs it may be either (sh -c is dash on Debian): what one of them reads as
// quoted text or arithmetic the other may run as commands ($'\” and
// ((cmd)) differ). The stricter verdict wins.
func (p *Policy) evaluate(cmd string) Verdict {
	b := &evaluator{p: p, shared: &shared{}}
	b.source(cmd)
	vb := b.verdict()
	if vb.Decision == tools.Deny {
		return vb
	}
	x := &evaluator{p: p, shared: &shared{}, posix: true}
	x.source(cmd)
	vx := x.verdict()
	for _, name := range vx.Programs {
		if !slices.Contains(vb.Programs, name) {
			vb.Programs = append(vb.Programs, name)
		}
	}
	switch {
	case vx.Decision == tools.Deny:
		vb.Decision, vb.Reason, vb.Scope = vx.Decision, vx.Reason, ""
	case vx.Decision > vb.Decision:
		vb.Decision, vb.Reason, vb.Scope = vx.Decision, "as POSIX sh reads it: "+vx.Reason, ""
	case vx.Scope != vb.Scope:
		vb.Scope = ""
	}
	return vb
}

func (p *Policy) parse(src string, posix bool) (*syntax.File, error) {
	pool := &p.bash
	if posix {
		pool = &p.posix
	}
	parser := pool.Get().(*syntax.Parser)
	defer pool.Put(parser)
	return parser.Parse(strings.NewReader(src), "")
}
