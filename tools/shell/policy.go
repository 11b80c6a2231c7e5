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
// recursive deletion of /, /*, ~ or $HOME, fork bombs, downloads piped into
// a shell or interpreter, mkfs, dd to a block device, writes to a block
// device, recursive chmod/chown of /, shutdown and reboot. They are looked
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

	"mvdan.cc/sh/v3/expand"
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

// evaluator collects the findings for one command string (or, at depth > 0,
// for a command string found inside it).
type evaluator struct {
	p        *Policy
	shared   *shared
	posix    bool // read as POSIX sh, not bash
	depth    int  // > 0 for strings run by sh -c, eval, ...
	nested   int  // > 0 inside substitutions and function bodies
	denies   []string
	asks     []string
	asked    int  // ask findings, counted with repeats
	unscoped bool // a structural ask: no grant may approve the command
	allows   []allowed
	cmds     []scoped
	programs []string
	set      map[string]bool // variables assigned a non-empty value so far
}

// shared is the state of one Evaluate call, shared by the evaluators of the
// command strings found in it.
type shared struct {
	scripts int             // command strings parsed so far
	seen    map[string]bool // command strings already parsed
}

type allowed struct{ name, by string }

type scoped struct {
	name    string
	allowed bool
}

func (e *evaluator) deny(why string) {
	if !slices.Contains(e.denies, why) {
		e.denies = append(e.denies, why)
	}
}

// ask records a reason to ask. scoped asks are about the program itself (not
// on the safe list, an ask rule) and leave the command grantable.
func (e *evaluator) ask(why string, scoped bool) {
	e.asked++
	if !scoped {
		e.unscoped = true
	}
	if !slices.Contains(e.asks, why) {
		e.asks = append(e.asks, why)
	}
}

func (e *evaluator) addProgram(name string) {
	if name != "" && !slices.Contains(e.programs, name) {
		e.programs = append(e.programs, name)
	}
}

func (e *evaluator) source(src string) {
	if strings.TrimSpace(src) == "" {
		e.ask("empty command", false)
		return
	}
	if strings.IndexFunc(src, isControl) >= 0 {
		e.ask("control character in the command", false)
	}
	f, err := e.p.parse(src, e.posix)
	if err != nil {
		e.ask("could not parse the command: "+err.Error(), false)
		if f != nil {
			// bash runs what precedes a syntax error: still look for denies.
			e.stmts(f.Stmts)
		}
		return
	}
	if len(f.Stmts) == 0 {
		e.ask("empty command (only comments)", false)
		return
	}
	e.stmts(f.Stmts)
}

func isControl(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n') || r == 0x7f
}

// sub evaluates a command string run by sh -c, eval, ... for denies. What
// cannot be checked (strings nested too deep, or too many of them) is
// denied: otherwise a deny could hide behind it and be approved as an ask.
func (e *evaluator) sub(src string) {
	if strings.TrimSpace(src) == "" || e.shared.seen[src] {
		return
	}
	if e.depth >= maxDepth {
		e.deny("denied: command strings nested too deep to check (sh -c inside sh -c ...)")
		return
	}
	if e.shared.scripts++; e.shared.scripts > maxScripts {
		e.deny(fmt.Sprintf("denied: too many command strings to check (more than %d)", maxScripts))
		return
	}
	if e.shared.seen == nil {
		e.shared.seen = map[string]bool{}
	}
	e.shared.seen[src] = true
	s := &evaluator{p: e.p, shared: e.shared, posix: e.posix, depth: e.depth + 1, nested: 1}
	s.source(asScript(src))
	for _, d := range s.denies {
		e.deny(d)
	}
	for _, name := range s.programs {
		if name != "_" && !strings.HasPrefix(name, "_ ") {
			e.addProgram(name)
		}
	}
}

func (e *evaluator) verdict() Verdict {
	v := Verdict{Programs: e.programs}
	switch {
	case len(e.denies) > 0:
		v.Decision = tools.Deny
		v.Reason = joinReasons(e.denies)
		return v
	case len(e.asks) > 0:
		v.Decision = tools.Ask
		v.Reason = joinReasons(e.asks)
	default:
		v.Decision = tools.Allow
		v.Reason = e.allowReason()
	}
	if !e.unscoped {
		v.Scope = e.scope()
	}
	return v
}

func joinReasons(rs []string) string {
	if len(rs) > 3 {
		return strings.Join(rs[:3], "; ") + fmt.Sprintf("; and %d more", len(rs)-3)
	}
	return strings.Join(rs, "; ")
}

func (e *evaluator) allowReason() string {
	var safe, other []string
	for _, a := range e.allows {
		if a.by == "" {
			if !slices.Contains(safe, a.name) {
				safe = append(safe, a.name)
			}
		} else if s := a.name + " is allowed by " + a.by; !slices.Contains(other, s) {
			other = append(other, s)
		}
	}
	switch len(safe) {
	case 0:
	case 1:
		other = append([]string{safe[0] + " is on the safe list"}, other...)
	default:
		other = append([]string{strings.Join(safe, ", ") + " are on the safe list"}, other...)
	}
	if len(other) == 0 {
		return "nothing to run"
	}
	return strings.Join(other, "; ")
}

// scope is the grant scope: shared by the commands that ask, or by all.
func (e *evaluator) scope() string {
	var names []string
	for _, c := range e.cmds {
		if !c.allowed {
			names = append(names, c.name)
		}
	}
	if len(names) == 0 {
		for _, c := range e.cmds {
			names = append(names, c.name)
		}
	}
	if len(names) == 0 || names[0] == "" {
		return ""
	}
	for _, n := range names[1:] {
		if n != names[0] {
			return ""
		}
	}
	return names[0]
}

func (e *evaluator) stmts(list []*syntax.Stmt) {
	for _, s := range list {
		e.stmt(s)
	}
}

func (e *evaluator) stmt(s *syntax.Stmt) {
	if s == nil {
		return
	}
	if s.Background || s.Disown {
		e.ask("runs in the background (&)", false)
	}
	if s.Coprocess {
		e.ask("coprocess (|&)", false)
	}
	for _, r := range s.Redirs {
		e.redirect(r)
	}
	switch c := s.Cmd.(type) {
	case nil:
		if len(s.Redirs) > 0 {
			e.ask("redirection without a command", false)
		}
	case *syntax.CallExpr:
		e.call(c, s)
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			e.pipeline(s)
			return
		}
		e.stmt(c.X)
		e.stmt(c.Y)
	case *syntax.Subshell:
		e.stmts(c.Stmts)
	case *syntax.Block:
		e.stmts(c.Stmts)
	case *syntax.IfClause:
		for ic := c; ic != nil; ic = ic.Else {
			e.stmts(ic.Cond)
			e.stmts(ic.Then)
		}
	case *syntax.WhileClause:
		e.stmts(c.Cond)
		e.stmts(c.Do)
	case *syntax.ForClause:
		if c.Select {
			e.ask("select loop", false)
		} else {
			e.ask("for loop (assigns a variable)", false)
		}
		switch l := c.Loop.(type) {
		case *syntax.WordIter:
			nonEmpty := len(l.Items) > 0
			for _, w := range l.Items {
				if a := e.word(w); strings.Trim(a.val, unknown) == "" {
					nonEmpty = false
				}
			}
			if l.Name != nil {
				e.assigned(l.Name.Value, nonEmpty)
			}
		case *syntax.CStyleLoop:
			e.nestedIn(l)
		}
		e.stmts(c.Do)
	case *syntax.CaseClause:
		e.ask("case statement", false)
		if c.Word != nil {
			e.word(c.Word)
		}
		for _, it := range c.Items {
			for _, w := range it.Patterns {
				e.word(w)
			}
			e.stmts(it.Stmts)
		}
	case *syntax.FuncDecl:
		e.ask("function definition", false)
		if forkBomb(c) {
			e.deny("denied: fork bomb (a function that runs itself in a pipeline or in the background)")
		}
		e.nested++
		e.stmt(c.Body)
		e.nested--
	case *syntax.ArithmCmd:
		e.ask("arithmetic command (( ))", false)
		e.nestedIn(c)
	case *syntax.TestClause:
		e.ask("[[ ]] test (it evaluates arithmetic)", false)
		e.nestedIn(c)
	case *syntax.DeclClause:
		name := "declare"
		if c.Variant != nil {
			name = c.Variant.Value
		}
		e.ask(name+" sets variables", false)
		e.nestedIn(c)
		for _, a := range c.Args {
			e.assign(a)
		}
	case *syntax.LetClause:
		e.ask("let (arithmetic assignment)", false)
		e.nestedIn(c)
	case *syntax.TimeClause:
		e.ask("time runs another command", false)
		e.stmt(c.Stmt)
	case *syntax.CoprocClause:
		e.ask("coproc", false)
		e.stmt(c.Stmt)
	case *syntax.TestDecl:
		e.ask("bats test declaration", false)
		e.stmt(c.Body)
	default:
		e.ask(fmt.Sprintf("unsupported shell construct (%T)", c), false)
		e.nestedIn(c)
	}
}

// nestedIn evaluates the command substitutions inside node.
func (e *evaluator) nestedIn(node syntax.Node) {
	if node == nil {
		return
	}
	syntax.Walk(node, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst:
			e.nested++
			e.stmts(n.Stmts)
			e.nested--
			return false
		case *syntax.ProcSubst:
			e.nested++
			e.stmts(n.Stmts)
			e.nested--
			return false
		}
		return true
	})
}

// word reads w, records why it asks, and evaluates its substitutions.
func (e *evaluator) word(w *syntax.Word) arg {
	a := readWordIn(w, e.set)
	if a.why != "" {
		e.ask(a.why, false)
	}
	if a.meta {
		e.ask("a literal $, ` or > outside single quotes ("+a.show()+")", false)
	}
	if !a.exact {
		e.nestedIn(w)
		// Without extglob (the default of bash -c) and in sh, !(cmd) is a
		// negated subshell, not a pattern: check what it runs.
		for _, part := range w.Parts {
			if g, ok := part.(*syntax.ExtGlob); ok && g.Op == syntax.GlobExcept && g.Pattern != nil {
				e.sub(g.Pattern.Value)
			}
		}
	}
	return a
}

func (e *evaluator) redirect(r *syntax.Redirect) {
	if r == nil {
		return
	}
	if r.N != nil && !isDigits(r.N.Value) {
		e.ask("redirection assigns a file descriptor variable", false)
	}
	switch r.Op {
	case syntax.Hdoc, syntax.DashHdoc:
		e.ask("here-document (<<)", false)
		if r.Hdoc != nil {
			e.nestedIn(r.Hdoc)
		}
		return
	}
	if r.Word == nil {
		e.ask("redirection without a target", false)
		return
	}
	w := e.word(r.Word)
	switch r.Op {
	case syntax.WordHdoc:
		e.ask("here-string (<<<)", false)
	case syntax.DplIn, syntax.DplOut:
		if w.exact && isFD(w.val) {
			return
		}
		if r.Op == syntax.DplOut && blockDevice(w.val) {
			e.deny("denied: write to a block device (" + r.Op.String() + " " + w.show() + ")")
			return
		}
		e.ask("redirection to a file ("+r.Op.String()+" "+w.show()+")", false)
	case syntax.RdrIn:
		if strings.HasPrefix(w.val, "/dev/tcp/") || strings.HasPrefix(w.val, "/dev/udp/") {
			e.ask("network connection through a redirection (< "+w.show()+")", false)
		}
		// Reading a file is what the allowed programs do anyway.
	default: // > >> >| &> &>> <> and the zsh clobber forms
		if blockDevice(w.val) {
			e.deny("denied: write to a block device (" + r.Op.String() + " " + w.show() + ")")
			return
		}
		if w.exact && r.Op != syntax.RdrInOut && harmlessSink(w.val) {
			return
		}
		e.ask("redirection to a file ("+r.Op.String()+" "+w.show()+")", false)
	}
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// isFD reports whether a dup target is a file descriptor: 1, 2-, -.
func isFD(s string) bool {
	return s == "-" || isDigits(s) || (len(s) > 1 && s[len(s)-1] == '-' && isDigits(s[:len(s)-1]))
}

func harmlessSink(s string) bool {
	return s == "/dev/null" || s == "/dev/stdout" || s == "/dev/stderr"
}

var blockDevPrefixes = []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "dm-", "md", "mapper/", "loop"}

func blockDevice(s string) bool {
	rest, ok := strings.CutPrefix(path.Clean(s), "/dev/")
	if !ok {
		return false
	}
	for _, p := range blockDevPrefixes {
		if strings.HasPrefix(rest, p) {
			return true
		}
	}
	return false
}

// pipeline evaluates a | b | c, looking for downloads run by a shell.
func (e *evaluator) pipeline(s *syntax.Stmt) {
	stages := flattenPipe(s, nil)
	// shellAfter[i]: a stage after i runs a shell that reads stdin.
	shellAfter := make([]bool, len(stages))
	for i := len(stages) - 2; i >= 0; i-- {
		shellAfter[i] = shellAfter[i+1] || e.p.stdinShell(stages[i+1])
	}
	for i, st := range stages {
		if !shellAfter[i] {
			break
		}
		if e.p.hasDownload(st) {
			e.deny("denied: download piped into a shell (curl ... | sh)")
			break
		}
	}
	// echo 'rm -rf /' | sh: the text is a command.
	for i, st := range stages {
		if !shellAfter[i] {
			break
		}
		if text, ok := e.p.echoText(st); ok {
			e.sub(text)
		}
	}
	for _, st := range stages {
		e.stmt(st)
	}
}

func flattenPipe(s *syntax.Stmt, out []*syntax.Stmt) []*syntax.Stmt {
	if s == nil {
		return out
	}
	if b, ok := s.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
		out = flattenPipe(b.X, out)
		return flattenPipe(b.Y, out)
	}
	return append(out, s)
}

// call evaluates a simple command: assignments, words, then the argv.
func (e *evaluator) call(c *syntax.CallExpr, s *syntax.Stmt) {
	for _, a := range c.Assigns {
		name := "?"
		if a.Name != nil {
			name = a.Name.Value
		}
		e.ask("variable assignment ("+name+"=...)", false)
		if a.Value != nil {
			e.word(a.Value)
		}
		if a.Array != nil {
			e.nestedIn(a.Array)
		}
		if a.Index != nil {
			e.nestedIn(a.Index)
		}
	}
	if len(c.Args) == 0 {
		// NAME=value alone sets a shell variable for what follows.
		for _, a := range c.Assigns {
			e.assign(a)
		}
		return
	}
	mark := e.mark()
	words := make([]arg, 0, len(c.Args))
	for _, w := range c.Args {
		a := e.word(w)
		if a.braces {
			words = append(words, a.alts...)
			continue
		}
		words = append(words, a)
	}
	if len(words) == 0 {
		return
	}
	e.simple(words, s, mark)
}

// assign records whether a variable assignment makes the variable
// non-empty, for the deny checks ("$DIR"/ is / only if DIR may be empty).
func (e *evaluator) assign(a *syntax.Assign) {
	if a == nil || a.Name == nil || a.Naked || a.Append {
		return
	}
	nonEmpty := a.Value != nil && strings.Trim(readWordIn(a.Value, e.set).val, unknown) != ""
	e.assigned(a.Name.Value, nonEmpty)
}

func (e *evaluator) assigned(name string, nonEmpty bool) {
	if !nonEmpty {
		delete(e.set, name)
		return
	}
	if e.set == nil {
		e.set = map[string]bool{}
	}
	e.set[name] = true
}

// mark is a point in the findings, to tell whether a command added any.
type mark struct{ asked, denies int }

func (e *evaluator) mark() mark { return mark{e.asked, len(e.denies)} }

// simple decides on one argv (braces already expanded); since is the mark
// taken before its words were read.
func (e *evaluator) simple(argv []arg, s *syntax.Stmt, since mark) {
	p := e.p
	name := p.scopeName(argv)
	prog := argv[0].val
	base := progBase(argv[0])
	if prog == "" {
		e.ask("empty program name", false)
	}

	levels, scripts, tooDeep := p.chain(argv)
	if tooDeep {
		e.deny(fmt.Sprintf("denied: more than %d nested wrappers to check", maxUnwrap))
	}
	for _, lv := range levels {
		sub := argv[lv.off:]
		if !lv.fallback || lv.off == 0 {
			e.addProgram(p.scopeName(sub))
		}
		if why := denyDirect(sub); why != "" {
			e.deny("denied: " + why)
		}
		e.codeDownload(sub, s)
	}
	for _, src := range scripts {
		e.sub(src)
	}

	// User rules: strictest wins; allow rules only for the command itself.
	var r *rule
	for _, lv := range levels {
		if m := p.matchRules(p.rules, argv[lv.off:], lv.off == 0); m != nil && (r == nil || m.decision > r.decision) {
			r = m
		}
	}
	if r != nil {
		switch r.decision {
		case tools.Deny:
			e.deny(withReason(fmt.Sprintf("denied by rule %q", r.match), r.reason))
		case tools.Ask:
			e.ask(withReason(fmt.Sprintf("rule %q asks", r.match), r.reason), true)
		}
	}
	if r == nil || r.decision == tools.Allow {
		if near := p.nearRule(argv); near != nil {
			e.ask(fmt.Sprintf("may match rule %q (its words appear in the command)", near.match), true)
		}
	}

	// The program word itself.
	extra := p.matchRules(p.extra, argv, true)
	exactPath := (r != nil && r.decision == tools.Allow && strings.Contains(r.words[0], "/")) ||
		(r == nil && extra != nil && strings.Contains(extra.words[0], "/"))
	switch {
	case !argv[0].exact:
		// word() has said why.
	case !argv[0].plain:
		e.ask("program name is quoted or escaped ("+argv[0].show()+")", false)
	case strings.Contains(prog, "/") && !exactPath:
		e.ask("program is path-qualified ("+prog+")", false)
	case !isASCII(prog):
		e.ask("non-ASCII character in the program name ("+prog+")", false)
	case !validProgram(prog) && !strings.Contains(prog, "/"):
		e.ask("program name has special characters ("+prog+")", false)
	}
	if _, ok := p.wrappers[base]; ok {
		why := base + " runs another command"
		if p.ignored[base] {
			why += " (its shell_safe_commands entry is ignored)"
		}
		e.ask(why, false)
	}

	// The program and its arguments.
	allowedBy := ""
	switch {
	case r != nil && r.decision != tools.Allow:
	case r != nil:
		if why := p.checkArgs(base, argv[1:], true); why != "" {
			e.ask(why, false)
		} else {
			allowedBy = fmt.Sprintf("rule %q", r.match)
		}
	default:
		if _, wrapped := p.wrappers[base]; wrapped {
			break
		}
		if never, ok := p.neverWhy(base); ok {
			why := base + " " + never
			if p.ignored[base] {
				why += " (its shell_safe_commands entry is ignored)"
			}
			e.ask(why, true)
			break
		}
		if _, ok := p.safe[base]; ok {
			if why := p.checkArgs(base, argv[1:], extra != nil); why != "" {
				e.ask(why, strings.HasSuffix(why, notReadOnly))
			} else {
				allowedBy = "-"
			}
			break
		}
		if extra != nil {
			allowedBy = "shell_safe_commands"
			break
		}
		if name == "" {
			name = prog
		}
		e.ask(name+" is not on the safe list", true)
	}

	ok := e.mark() == since
	if ok && allowedBy != "" {
		by := allowedBy
		if by == "-" {
			by = ""
		}
		e.allows = append(e.allows, allowed{name: name, by: by})
	}
	if e.depth == 0 && e.nested == 0 {
		e.cmds = append(e.cmds, scoped{name: name, allowed: ok})
	}
}

func withReason(s, reason string) string {
	if reason == "" {
		return s
	}
	return s + ": " + reason
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// validProgram: a plain program name: letters, digits, . _ + - (not first),
// or one of [ and :.
func validProgram(s string) bool {
	if s == "[" || s == ":" {
		return true
	}
	if s == "" || s[0] == '-' || s[0] == '.' {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '+' || c == '-') {
			return false
		}
	}
	return true
}

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

// ---------------------------------------------------------------------------
// Words

// arg is a word as the program receives it, as far as can be known before
// running anything.
type arg struct {
	val    string // value after quote removal; expansions are unknown, $HOME is ~
	exact  bool   // no expansion: val is what the program gets (globs and ~ aside)
	plain  bool   // one unquoted literal without backslashes
	glob   bool   // an unquoted *, ? or [
	home   bool   // starts with an unquoted ~ or $HOME that expands to the home directory
	meta   bool   // a literal $, ` or > outside single quotes (escaped or lone)
	braces bool   // brace expansion: alts holds the words it expands to
	why    string // why it is not exact
	alts   []arg
	src    *syntax.Word
}

func (a arg) show() string {
	if a.exact || a.src == nil {
		return a.val
	}
	return printWord(a.src)
}

func printWord(w *syntax.Word) string {
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, w); err != nil {
		return "?"
	}
	return b.String()
}

// script is the word's value as a command string to parse.
func (a arg) script() string { return asScript(a.val) }

func readWord(w *syntax.Word) arg { return readWordIn(w, nil) }

// readWordIn reads w knowing which variables are set to something non-empty
// earlier in the command.
func readWordIn(w *syntax.Word, set map[string]bool) arg {
	a := readParts(w, set)
	if hasBraceLit(w) {
		cp := *w
		cp.Parts = slices.Clone(w.Parts)
		if syntax.SplitBraces(&cp) && slices.ContainsFunc(cp.Parts, isBraceExp) {
			a.braces = true
			a.inexact("brace expansion (" + printWord(w) + ")")
			for ew, err := range expand.BracesSeq(nil, &cp) {
				if err != nil || len(a.alts) >= maxBraceWords {
					break
				}
				alt := readParts(ew, set)
				alt.inexact(a.why)
				a.alts = append(a.alts, alt)
			}
		}
	}
	return a
}

func isBraceExp(p syntax.WordPart) bool {
	_, ok := p.(*syntax.BraceExp)
	return ok
}

// readParts reads a word without brace expansion.
func readParts(w *syntax.Word, set map[string]bool) arg {
	a := arg{exact: true, plain: len(w.Parts) == 1, src: w}
	var b strings.Builder
	for _, part := range w.Parts {
		a.part(&b, part, false, set)
	}
	a.val = b.String()
	return a
}

func hasBraceLit(w *syntax.Word) bool {
	for _, part := range w.Parts {
		if l, ok := part.(*syntax.Lit); ok && strings.Contains(l.Value, "{") {
			return true
		}
	}
	return false
}

func (a *arg) inexact(why string) {
	a.exact = false
	a.plain = false
	if a.why == "" {
		a.why = why
	}
}

func (a *arg) part(b *strings.Builder, part syntax.WordPart, dq bool, set map[string]bool) {
	switch p := part.(type) {
	case *syntax.Lit:
		if !dq && b.Len() == 0 && (p.Value == "~" || strings.HasPrefix(p.Value, "~/")) {
			a.home = true
		}
		a.lit(b, p.Value, dq)
	case *syntax.SglQuoted:
		a.plain = false
		if p.Dollar {
			a.inexact("ANSI-C quoting ($'...')")
			b.WriteString(decodeANSIC(p.Value))
			return
		}
		b.WriteString(p.Value)
	case *syntax.DblQuoted:
		a.plain = false
		if p.Dollar {
			a.inexact("locale quoting ($\"...\")")
		}
		for _, q := range p.Parts {
			a.part(b, q, true, set)
		}
	case *syntax.ParamExp:
		name := "?"
		if p.Param != nil {
			name = p.Param.Value
		}
		a.inexact("parameter expansion ($" + name + ")")
		if name == "HOME" && b.Len() == 0 && p.Exp == nil && p.Repl == nil && p.Slice == nil && p.Index == nil && !p.Length && !p.Excl && p.NestedParam == nil && len(p.Modifiers) == 0 {
			a.home = true
			b.WriteString("~")
			return
		}
		if set[name] || nonEmptyExp(p.Exp) {
			b.WriteString(opaque)
			return
		}
		b.WriteString(unknown)
	case *syntax.CmdSubst:
		if p.Backquotes {
			a.inexact("command substitution (`...`)")
		} else {
			a.inexact("command substitution $(...)")
		}
		b.WriteString(unknown)
	case *syntax.ArithmExp:
		a.inexact("arithmetic expansion $((...))")
		b.WriteString(opaque)
	case *syntax.ProcSubst:
		a.inexact("process substitution " + p.Op.String() + "...)")
		b.WriteString(opaque)
	case *syntax.ExtGlob:
		a.inexact("extended glob (" + p.Op.String() + "...)")
		a.glob = true
		b.WriteString(opaque)
	default:
		a.inexact(fmt.Sprintf("unsupported word part (%T)", p))
		b.WriteString(unknown)
	}
}

// nonEmptyExp reports whether ${X<op>word} is never empty: ${X:?msg}, or
// ${X:-word} and ${X:=word} with a non-empty word.
func nonEmptyExp(x *syntax.Expansion) bool {
	if x == nil {
		return false
	}
	switch x.Op {
	case syntax.ErrorUnsetOrNull:
		return true
	case syntax.DefaultUnsetOrNull, syntax.AssignUnsetOrNull:
		return x.Word != nil && strings.Trim(readParts(x.Word, nil).val, unknown) != ""
	}
	return false
}

// lit appends a literal's value after quote removal.
func (a *arg) lit(b *strings.Builder, v string, dq bool) {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c == '\\' && i+1 < len(v) {
			n := v[i+1]
			if dq && !strings.ContainsRune("$`\"\\\n", rune(n)) {
				b.WriteByte('\\')
				continue
			}
			i++
			a.plain = false
			if n == '\n' {
				continue
			}
			if n == '$' || n == '`' || n == '>' {
				a.meta = true
			}
			b.WriteByte(n)
			continue
		}
		if c == '\\' {
			a.plain = false
		}
		if c == '$' || c == '`' {
			a.meta = true
		}
		if !dq && (c == '*' || c == '?' || c == '[') {
			a.glob = true
		}
		b.WriteByte(c)
	}
}

// decodeANSIC decodes the body of $'...' (best effort, for the deny checks).
func decodeANSIC(s string) string {
	if !strings.Contains(s, "\\") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch c = s[i]; c {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case 'x', 'u', 'U':
			maxDigits := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
			n, j := 0, i+1
			for ; j < len(s) && j <= i+maxDigits && hexVal(s[j]) >= 0; j++ {
				n = n*16 + hexVal(s[j])
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(c)
				continue
			}
			if c == 'x' {
				b.WriteByte(byte(n))
			} else {
				b.WriteRune(rune(n))
			}
			i = j - 1
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n, j := 0, i
			for ; j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7'; j++ {
				n = n*8 + int(s[j]-'0')
			}
			b.WriteByte(byte(n))
			i = j - 1
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		default: // \\ \' \" \? and unknown escapes
			if !strings.ContainsRune("\\'\"?", rune(c)) {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		}
	}
	return b.String()
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// argvOf reads the words of a call (braces expanded), for the checks that
// look at commands without evaluating them.
func argvOf(c *syntax.CallExpr) []arg {
	argv := make([]arg, 0, len(c.Args))
	for _, w := range c.Args {
		a := readWord(w)
		if a.braces {
			argv = append(argv, a.alts...)
			continue
		}
		argv = append(argv, a)
	}
	return argv
}

// progBase is the program name without its directory ("" for "").
func progBase(a arg) string {
	if a.val == "" {
		return ""
	}
	return path.Base(a.val)
}

// ---------------------------------------------------------------------------
// Built-in denies

// denyDirect returns why argv (one command, wrappers already peeled) is
// denied, or "".
func denyDirect(argv []arg) string {
	base := progBase(argv[0])
	args := argv[1:]
	switch {
	case base == "rm":
		if t := recursiveOnRoot(args, "rR", true); t != "" {
			return "recursive deletion of " + t
		}
	case base == "chmod" || base == "chown" || base == "chgrp":
		if t := recursiveOnRoot(args, "R", false); t != "" {
			return "recursive " + base + " of " + t
		}
	case strings.HasPrefix(base, "mkfs") || base == "mke2fs":
		return "formatting a filesystem (" + base + ")"
	case base == "dd":
		for _, a := range args {
			if v, ok := strings.CutPrefix(a.val, "of="); ok && blockDevice(v) {
				return "dd writes to a block device (" + a.val + ")"
			}
		}
	case base == "tee":
		for _, a := range args {
			if blockDevice(a.val) {
				return "write to a block device (tee " + a.val + ")"
			}
		}
	case base == "shutdown" || base == "reboot" || base == "halt" || base == "poweroff":
		return base + " stops the machine"
	case base == "systemctl":
		for _, a := range args {
			if strings.HasPrefix(a.val, "-") {
				continue
			}
			switch a.val {
			case "poweroff", "reboot", "halt", "kexec", "soft-reboot":
				return "systemctl " + a.val + " stops the machine"
			}
			break
		}
	case base == "init" || base == "telinit":
		if len(args) > 0 && (args[0].val == "0" || args[0].val == "6") {
			return base + " " + args[0].val + " stops the machine"
		}
	}
	return ""
}

// recursiveOnRoot returns the root-like target of a recursive rm/chmod, or
// "". recursive lists the short flags meaning recursive; home says whether
// ~ and $HOME count as root.
func recursiveOnRoot(args []arg, recursive string, home bool) string {
	rec, target, opts := false, "", true
	for _, a := range args {
		v := a.val
		if opts && v == "--" {
			opts = false
			continue
		}
		if opts && len(v) > 1 && v[0] == '-' {
			if name, ok := strings.CutPrefix(v, "--"); ok {
				name, _, _ = strings.Cut(name, "=")
				if name != "" && strings.HasPrefix("recursive", name) {
					rec = true
				}
			} else if strings.ContainsAny(v[1:], recursive) {
				rec = true
			}
			continue
		}
		if target == "" && rootish(a, home) {
			target = a.show()
			if strings.Contains(a.val, unknown) {
				target += " (the expansion may be empty; write the path, or use ${VAR:?})"
			}
		}
	}
	if rec {
		return target
	}
	return ""
}

// rootish reports whether a names / (or /*, //, /home/.., and with home
// ~ or $HOME), counting expansions that may be empty as empty: rm -rf
// "$DIR"/ deletes / when DIR is unset.
func rootish(a arg, home bool) bool {
	v := strings.ReplaceAll(a.val, unknown, "")
	if a.home {
		if !home {
			return false
		}
		v = "/" + strings.TrimPrefix(v[1:], "/")
	}
	if !strings.HasPrefix(v, "/") {
		return false
	}
	c := path.Clean(v)
	for strings.HasSuffix(c, "/*") {
		c = path.Clean(strings.TrimSuffix(c, "*"))
	}
	return c == "/"
}

// forkBomb reports whether a function runs itself in a pipeline or in the
// background: :(){ :|:& };: and its renamings.
func forkBomb(fd *syntax.FuncDecl) bool {
	var names []string
	if fd.Name != nil {
		names = append(names, fd.Name.Value)
	}
	for _, n := range fd.Names {
		if n != nil {
			names = append(names, n.Value)
		}
	}
	if len(names) == 0 || fd.Body == nil {
		return false
	}
	// Walk calls f(nil) after a node's children: the stack tracks which
	// open nodes fork (a pipe, a background statement).
	bomb, forking := false, 0
	var stack []bool
	syntax.Walk(fd.Body, func(n syntax.Node) bool {
		if n == nil {
			if stack[len(stack)-1] {
				forking--
			}
			stack = stack[:len(stack)-1]
			return true
		}
		if bomb {
			return false
		}
		fork := false
		switch n := n.(type) {
		case *syntax.Stmt:
			fork = n.Background
		case *syntax.BinaryCmd:
			fork = n.Op == syntax.Pipe || n.Op == syntax.PipeAll
		case *syntax.CallExpr:
			if forking > 0 && len(n.Args) > 0 && slices.Contains(names, readWord(n.Args[0]).val) {
				bomb = true
				return false
			}
		}
		stack = append(stack, fork)
		if fork {
			forking++
		}
		return true
	})
	return bomb
}

var downloaders = map[string]bool{"curl": true, "wget": true, "fetch": true, "http": true, "https": true, "xh": true, "aria2c": true}

// hasDownload reports whether node runs a downloader (curl, wget, ...),
// directly or through wrappers.
func (p *Policy) hasDownload(node syntax.Node) bool {
	return p.anyLevel(node, func(argv []arg) bool { return downloaders[progBase(argv[0])] })
}

// stdinShell reports whether node runs a shell or interpreter that reads
// its program from stdin (sh, bash -s, python3 -, ...).
func (p *Policy) stdinShell(node syntax.Node) bool {
	return p.anyLevel(node, func(argv []arg) bool {
		_, stdin, ok := codeSource(argv)
		return ok && stdin
	})
}

func (p *Policy) anyLevel(node syntax.Node, f func(argv []arg) bool) bool {
	if node == nil {
		return false
	}
	found := false
	syntax.Walk(node, func(n syntax.Node) bool {
		if found {
			return false
		}
		if c, ok := n.(*syntax.CallExpr); ok {
			if argv := argvOf(c); len(argv) > 0 {
				levels, _, _ := p.chain(argv)
				for _, lv := range levels {
					if f(argv[lv.off:]) {
						found = true
					}
				}
			}
		}
		return !found
	})
	return found
}

// echoText returns the text printed by an echo or printf stage.
func (p *Policy) echoText(st *syntax.Stmt) (string, bool) {
	c, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 {
		return "", false
	}
	argv := argvOf(c)
	if len(argv) == 0 {
		return "", false
	}
	base := progBase(argv[0])
	if base != "echo" && base != "printf" {
		return "", false
	}
	var parts []string
	for i, a := range argv[1:] {
		if i == 0 && base == "echo" && (a.val == "-n" || a.val == "-e" || a.val == "-E" || a.val == "-ne" || a.val == "-en") {
			continue
		}
		parts = append(parts, a.script())
	}
	return strings.Join(parts, " "), true
}

// codeDownload denies shells and interpreters whose program is downloaded:
// bash -c "$(curl ...)", sh <(curl ...), eval "$(wget ...)", bash < <(curl
// ...). It also parses the here-documents and here-strings such a program
// reads as its script.
func (e *evaluator) codeDownload(argv []arg, s *syntax.Stmt) {
	p := e.p
	base := progBase(argv[0])
	if base == "eval" {
		for _, a := range argv[1:] {
			if a.src != nil && p.hasDownload(a.src) {
				e.deny("denied: downloaded code run by eval")
			}
		}
		return
	}
	idx, stdin, ok := codeSource(argv)
	if !ok {
		return
	}
	if idx > 0 && idx < len(argv) && argv[idx].src != nil && p.hasDownload(argv[idx].src) {
		e.deny("denied: downloaded code run by " + base)
	}
	if !stdin || s == nil {
		return
	}
	for _, r := range s.Redirs {
		switch r.Op {
		case syntax.RdrIn, syntax.WordHdoc:
			if r.Word == nil {
				continue
			}
			if p.hasDownload(r.Word) {
				e.deny("denied: download piped into a shell (" + base + " < <(curl ...))")
			}
			if r.Op == syntax.WordHdoc {
				e.sub(readWord(r.Word).script())
			}
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc == nil {
				continue
			}
			if p.hasDownload(r.Hdoc) {
				e.deny("denied: download piped into a shell (" + base + " <<EOF $(curl ...))")
			}
			e.sub(readWord(r.Hdoc).script())
		}
	}
}

// codeSource says where a shell, interpreter or source gets its program:
// idx is the word that holds it (the -c string, -e code, -m module or script
// operand; -1 if none) and stdin whether it is read from stdin. ok is false
// for other programs.
func codeSource(argv []arg) (idx int, stdin, ok bool) {
	base := progBase(argv[0])
	kind := interpreter(base)
	switch kind {
	case "":
		return -1, false, false
	case "source":
		if len(argv) > 1 {
			return 1, isStdinPath(argv[1].val), true
		}
		return -1, false, true
	}
	var codeFlags, argFlags string
	switch kind {
	case "shell":
		codeFlags, argFlags = "c", "oO"
	case "python":
		codeFlags, argFlags = "cm", "WX"
	case "perl":
		codeFlags, argFlags = "eE", ""
	case "ruby":
		codeFlags, argFlags = "e", "rICEx"
	case "node":
		codeFlags, argFlags = "ep", "r"
	case "php":
		codeFlags, argFlags = "rf", "cdz"
	}
	code, sflag := false, false
	i := 1
	for i < len(argv) {
		v := argv[i].val
		if v == "-" {
			return i, true, true
		}
		if v == "--" {
			i++
			break
		}
		if len(v) < 2 || (v[0] != '-' && !(kind == "shell" && v[0] == '+')) {
			break
		}
		i++
		if name, isLong := strings.CutPrefix(v, "--"); isLong {
			name, _, eq := strings.Cut(name, "=")
			switch {
			case kind == "node" && (name == "eval" || name == "print"):
				if eq {
					return i - 1, false, true
				}
				return i, false, true
			case kind == "shell" && !eq && (name == "rcfile" || name == "init-file"):
				i++
			}
			continue
		}
	flags:
		for j := 1; j < len(v); j++ {
			ch := v[j]
			switch {
			case strings.IndexByte(codeFlags, ch) >= 0:
				if kind == "shell" {
					code = true
					continue
				}
				if j+1 < len(v) {
					return i - 1, false, true
				}
				return i, false, true
			case kind == "shell" && ch == 's':
				sflag = true
			case strings.IndexByte(argFlags, ch) >= 0:
				if j+1 == len(v) {
					i++
				}
				break flags
			}
		}
	}
	switch {
	case code:
		if i < len(argv) {
			return i, false, true
		}
		return -1, false, true
	case sflag, i >= len(argv):
		return -1, true, true
	}
	return i, isStdinPath(argv[i].val), true
}

func isStdinPath(s string) bool {
	return s == "-" || s == "/dev/stdin" || s == "/dev/fd/0" || s == "/proc/self/fd/0"
}

var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true, "fish": true, "csh": true, "tcsh": true, "yash": true, "posh": true, "rbash": true}

// interpreter classifies programs that run code: "shell", "python",
// "perl", "ruby", "node", "php", "source", or "".
func interpreter(base string) string {
	switch {
	case shells[base]:
		return "shell"
	case strings.HasPrefix(base, "python") || base == "pypy" || base == "pypy3":
		return "python"
	case base == "perl" || strings.HasPrefix(base, "perl5"):
		return "perl"
	case base == "ruby":
		return "ruby"
	case base == "node" || base == "nodejs":
		return "node"
	case base == "php":
		return "php"
	case base == "source" || base == ".":
		return "source"
	}
	return ""
}

// ---------------------------------------------------------------------------
// Wrappers

type wrapKind int

const (
	wrapArgv     wrapKind = iota // the command follows the options: sudo, env, timeout, ...
	wrapShell                    // sh -c STRING
	wrapJoin                     // eval, watch: the arguments joined are a command string
	wrapApplet                   // busybox APPLET ...
	wrapNone                     // source FILE: nothing to look into
	wrapParallel                 // parallel CMD ::: ARGS
	wrapTrap                     // trap STRING SIGNAL...
)

// wrapper describes how a program that runs another command takes it.
type wrapper struct {
	kind     wrapKind
	argShort string   // short options that take a value
	argLong  []string // long options that take a value (unless --opt=value)
	cShort   byte     // short option whose value is a command string (su -c)
	cLong    []string // long options whose value is a command string
	shell    string   // short options that run the rest through a shell (sudo -s)
	skip     int      // positional words before the command (timeout DURATION)
	assigns  bool     // NAME=value words may come before the command
	noCmd    bool     // the command comes only from cShort/cLong (su, script)
	permute  bool     // options may follow other words (su root -c CMD)
}

type level struct {
	off      int  // where the command starts in argv
	fallback bool // found by scanning a wrapper's arguments, not by parsing them
}

// chain returns the commands argv runs: itself (offset 0), then what its
// wrappers run (sudo env timeout 5 rm -> offsets of env, timeout, rm), and
// the command strings they run (sh -c STRING, eval ARGS, su -c STRING).
// Because wrapper options are parsed best-effort, the arguments of a
// wrapper are also scanned for programs the built-in denies care about.
func (p *Policy) chain(argv []arg) (levels []level, scripts []string, tooDeep bool) {
	off := 0
	for n := 0; off < len(argv); n++ {
		w, ok := p.wrappers[progBase(argv[off])]
		if n == maxUnwrap {
			return levels, scripts, ok
		}
		levels = addLevel(levels, level{off: off})
		if !ok {
			break
		}
		next, s := w.inner(argv[off:])
		scripts = append(scripts, s...)
		for i := off + 1; i < len(argv); i++ {
			b := progBase(argv[i])
			if !p.denyHint[b] && !strings.HasPrefix(b, "mkfs") {
				continue
			}
			levels = addLevel(levels, level{off: i, fallback: true})
			if w2, ok := p.wrappers[b]; ok && (w2.kind == wrapShell || w2.kind == wrapJoin) {
				_, s2 := w2.inner(argv[i:])
				scripts = append(scripts, s2...)
			}
		}
		if next <= 0 {
			break
		}
		off += next
	}
	return levels, scripts, false
}

func addLevel(levels []level, l level) []level {
	for i := range levels {
		if levels[i].off == l.off {
			levels[i].fallback = levels[i].fallback && l.fallback
			return levels
		}
	}
	return append(levels, l)
}

// inner returns the offset in argv of the command w runs (0 if none) and
// the command strings it runs.
func (w wrapper) inner(argv []arg) (next int, scripts []string) {
	switch w.kind {
	case wrapNone:
		return 0, nil
	case wrapApplet:
		if len(argv) > 1 {
			return 1, nil
		}
		return 0, nil
	case wrapTrap:
		i := 1
		if i < len(argv) && argv[i].val == "--" {
			i++
		}
		if i < len(argv) && !strings.HasPrefix(argv[i].val, "-") {
			return 0, []string{argv[i].script()}
		}
		return 0, nil
	case wrapShell:
		code, i := false, 1
		for i < len(argv) {
			v := argv[i].val
			if v == "--" || v == "-" {
				i++
				break
			}
			if len(v) < 2 || (v[0] != '-' && v[0] != '+') {
				break
			}
			i++
			if strings.HasPrefix(v, "--") {
				if v == "--rcfile" || v == "--init-file" {
					i++
				}
				continue
			}
			for j := 1; j < len(v); j++ {
				switch v[j] {
				case 'c':
					code = true
				case 'o', 'O':
					i++
				}
			}
		}
		if code && i < len(argv) {
			return 0, []string{argv[i].script()}
		}
		return 0, nil
	}
	i, shellRest := w.options(argv, &scripts)
	switch w.kind {
	case wrapJoin:
		if i < len(argv) {
			scripts = append(scripts, joinArgs(argv[i:]))
		}
		return 0, scripts
	case wrapParallel:
		var cmd []string
		for _, a := range argv[i:] {
			if !strings.HasPrefix(a.val, ":::") && !strings.HasPrefix(a.val, "::::") {
				cmd = append(cmd, a.script())
			}
		}
		if len(cmd) > 0 {
			scripts = append(scripts, strings.Join(cmd, " "))
		}
		return 0, scripts
	}
	i += w.skip
	if i >= len(argv) || w.noCmd {
		return 0, scripts
	}
	if shellRest {
		scripts = append(scripts, joinArgs(argv[i:]))
	}
	return i, scripts
}

// options skips a wrapper's options and returns the index of the first
// other word, collecting command strings given to cShort/cLong.
func (w wrapper) options(argv []arg, scripts *[]string) (i int, shellRest bool) {
	i = 1
	for i < len(argv) {
		v := argv[i].val
		if v == "--" {
			i++
			break
		}
		if len(v) < 2 || v[0] != '-' {
			if w.permute {
				i++
				continue
			}
			break
		}
		if name, isLong := strings.CutPrefix(v, "--"); isLong {
			name, val, eq := strings.Cut(name, "=")
			isC := slices.Contains(w.cLong, name)
			switch {
			case eq && isC:
				*scripts = append(*scripts, asScript(val))
			case !eq && isC:
				if i+1 < len(argv) {
					*scripts = append(*scripts, argv[i+1].script())
				}
				i++
			case !eq && slices.Contains(w.argLong, name):
				i++
			}
			i++
			continue
		}
		consumed := false
		for j := 1; j < len(v); j++ {
			c := v[j]
			if w.cShort != 0 && c == w.cShort {
				if j+1 < len(v) {
					*scripts = append(*scripts, asScript(v[j+1:]))
				} else if i+1 < len(argv) {
					*scripts = append(*scripts, argv[i+1].script())
					consumed = true
				}
				break
			}
			if strings.IndexByte(w.shell, c) >= 0 {
				shellRest = true
			}
			if strings.IndexByte(w.argShort, c) >= 0 {
				consumed = j+1 == len(v)
				break
			}
		}
		i++
		if consumed {
			i++
		}
	}
	if w.assigns {
		for i < len(argv) && isAssignWord(argv[i].val) {
			i++
		}
	}
	return i, shellRest
}

func isAssignWord(s string) bool {
	name, _, ok := strings.Cut(s, "=")
	return ok && syntax.ValidName(name)
}

func joinArgs(args []arg) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = a.script()
	}
	return strings.Join(parts, " ")
}

// neverWhy says why base can never be allowed by shell_safe_commands.
func (p *Policy) neverWhy(base string) (string, bool) {
	if _, ok := p.wrappers[base]; ok {
		return "runs another command", true
	}
	if interpreter(base) != "" {
		return "runs code", true
	}
	why, ok := p.never[base]
	return why, ok
}

// ---------------------------------------------------------------------------
// Safe programs and their argument checks

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

// checkSed allows sed -n with print-only scripts.
func checkSed(args []arg, _ bool) string {
	quiet := false
	var scripts []string
	fromOption := false
	operandScript := func(a arg) {
		if !fromOption && len(scripts) == 0 {
			scripts = append(scripts, a.val)
		}
	}
	for i := 0; i < len(args); i++ {
		v := args[i].val
		if v == "--" {
			if i+1 < len(args) {
				operandScript(args[i+1])
			}
			break
		}
		if name, ok := strings.CutPrefix(v, "--"); ok {
			name, val, eq := strings.Cut(name, "=")
			switch name {
			case "quiet", "silent":
				quiet = true
			case "regexp-extended", "separate", "unbuffered", "null-data", "zero-terminated", "posix", "sandbox", "debug":
			case "expression":
				if !eq {
					if i+1 >= len(args) {
						return "sed --expression without a script"
					}
					i++
					val = args[i].val
				}
				scripts = append(scripts, val)
				fromOption = true
			case "line-length":
				if !eq {
					i++
				}
			case "in-place":
				return "sed --in-place edits files"
			default:
				return "sed --" + name + " is not allowed (only sed -n with a print-only script is)"
			}
			continue
		}
		if len(v) > 1 && v[0] == '-' {
		group:
			for j := 1; j < len(v); j++ {
				switch v[j] {
				case 'n':
					quiet = true
				case 'E', 'r', 's', 'u', 'z':
				case 'e', 'l':
					val := v[j+1:]
					if val == "" {
						if i+1 >= len(args) {
							return "sed -" + string(v[j]) + " without a value"
						}
						i++
						val = args[i].val
					}
					if v[j] == 'e' {
						scripts = append(scripts, val)
						fromOption = true
					}
					break group
				case 'i':
					return "sed -i edits files in place"
				default:
					return fmt.Sprintf("sed -%c is not allowed (only sed -n with a print-only script is)", v[j])
				}
			}
			continue
		}
		operandScript(args[i])
	}
	if !quiet || len(scripts) == 0 {
		return "sed is only allowed as sed -n with a print-only script"
	}
	for _, s := range scripts {
		if !sedPrintOnly(s) {
			return "sed script " + quoteShort(s) + " is not print-only (w, e, r and s///w write files or run commands)"
		}
	}
	return ""
}

func quoteShort(s string) string {
	if len(s) > 40 {
		s = s[:40] + "..."
	}
	return fmt.Sprintf("%q", s)
}

// sedPrintOnly reports whether a sed script uses only addresses and the
// commands p P = l q Q, s///FLAGS with FLAGS in gpiImM0-9, and { } !.
// Delimiters are found the way GNU sed finds them: a backslash escapes the
// next character, nothing else is special.
func sedPrintOnly(s string) bool {
	i, n, depth := 0, len(s), 0
	ws := func() {
		for i < n && (s[i] == ' ' || s[i] == '\t') {
			i++
		}
	}
	delimited := func(d byte) bool {
		for i < n {
			c := s[i]
			if c == '\n' {
				return false
			}
			i++
			if c == '\\' {
				i++
				continue
			}
			if c == d {
				return true
			}
		}
		return false
	}
	addr := func(second bool) bool {
		if i >= n {
			return true
		}
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			for i < n && s[i] >= '0' && s[i] <= '9' {
				i++
			}
			if i < n && s[i] == '~' {
				i++
				for i < n && s[i] >= '0' && s[i] <= '9' {
					i++
				}
			}
		case c == '$':
			i++
		case second && (c == '+' || c == '~'):
			i++
			start := i
			for i < n && s[i] >= '0' && s[i] <= '9' {
				i++
			}
			return i > start
		case c == '/' || c == '\\':
			d := byte('/')
			if c == '\\' {
				if i+1 >= n || s[i+1] == '\n' || s[i+1] == '\\' || s[i+1] >= utf8.RuneSelf {
					return false
				}
				d = s[i+1]
				i++
			}
			i++
			if !delimited(d) {
				return false
			}
			for i < n && (s[i] == 'I' || s[i] == 'M') {
				i++
			}
		}
		return true
	}
	for {
		for i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == ';') {
			i++
		}
		if i >= n {
			return depth == 0
		}
		if s[i] == '}' {
			if depth == 0 {
				return false
			}
			depth--
			i++
			continue
		}
		if !addr(false) {
			return false
		}
		ws()
		if i < n && s[i] == ',' {
			i++
			ws()
			if i >= n || !addr(true) {
				return false
			}
		}
		ws()
		for i < n && s[i] == '!' {
			i++
			ws()
		}
		if i >= n {
			return false
		}
		c := s[i]
		i++
		switch c {
		case '{':
			depth++
			continue
		case 'p', 'P', '=', 'l':
		case 'q', 'Q':
			ws()
			for i < n && s[i] >= '0' && s[i] <= '9' {
				i++
			}
		case 's':
			if i >= n || s[i] == '\n' || s[i] == '\\' || s[i] >= utf8.RuneSelf {
				return false
			}
			d := s[i]
			i++
			if !delimited(d) || !delimited(d) {
				return false
			}
			for i < n && strings.IndexByte("gpiImM0123456789", s[i]) >= 0 {
				i++
			}
		default:
			return false
		}
		ws()
		if i < n && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
			return false
		}
	}
}

// ---------------------------------------------------------------------------
// Tables

// builtins fills the lookup tables. They are built once per Policy and
// never change.
func (p *Policy) builtins() {
	p.safe = map[string]safeProg{}
	for _, name := range strings.Fields(`ls cat head tail wc grep egrep fgrep echo pwd cd true false : sleep
		which type stat du df basename dirname realpath readlink cut tr nl paste join fold column expand
		unexpand rev tac seq comm cmp diff od hexdump strings md5sum sha1sum sha256sum sha512sum b2sum
		cksum jq uname whoami id groups nproc uptime free ps arch`) {
		p.safe[name] = safeProg{}
	}
	p.safe["find"] = safeProg{options: true, findLike: true, check: checkFind}
	p.safe["git"] = safeProg{options: true, check: p.checkGit}
	p.safe["sed"] = safeProg{options: true, check: checkSed}
	p.safe["uniq"] = safeProg{options: true, check: checkUniq}
	p.safe["test"] = safeProg{options: true, check: checkTest}
	p.safe["["] = safeProg{options: true, check: checkTest}
	p.safe["printf"] = safeProg{check: checkPrintf}
	p.safe["sort"] = safeProg{options: true, check: getopt{
		prog: "sort", short: map[byte]string{'o': "writes to a file"}, argShort: "ktSTo",
		long: []dangerOpt{{"output", "writes to a file"}, {"compress-program", "runs a program"}},
	}.checker()}
	p.safe["rg"] = safeProg{options: true, check: getopt{
		prog: "rg", short: map[byte]string{'z': "runs decompression programs"},
		long: []dangerOpt{{"pre", "runs a program on every file"}, {"search-zip", "runs decompression programs"}, {"hostname-bin", "runs a program"}},
	}.checker()}
	dateOpts := getopt{
		prog: "date", short: map[byte]string{'s': "sets the system clock"}, argShort: "dfrI",
		long: []dangerOpt{{"set", "sets the system clock"}},
	}
	p.safe["date"] = safeProg{options: true, check: func(args []arg, _ bool) string {
		if why := dateOpts.check(args); why != "" {
			return why
		}
		for i := 0; i < len(args); i++ {
			switch v := args[i].val; {
			case v == "-d" || v == "-f" || v == "-r" || v == "--date" || v == "--file" || v == "--reference":
				i++
			case v == "--":
			case len(v) > 1 && v[0] == '-', strings.HasPrefix(v, "+"):
			default:
				return "date " + v + " sets the system clock"
			}
		}
		return ""
	}}
	p.safe["tree"] = safeProg{options: true, check: getopt{
		prog: "tree", short: map[byte]string{'o': "writes to a file", 'R': "writes files"},
		long: []dangerOpt{{"output", "writes to a file"}},
	}.checker()}
	p.safe["file"] = safeProg{options: true, check: getopt{
		prog: "file", short: map[byte]string{'C': "writes a compiled magic file", 'z': "runs decompression programs", 'Z': "runs decompression programs"},
		long: []dangerOpt{{"compile", "writes a compiled magic file"}, {"uncompress", "runs decompression programs"}, {"uncompress-noreport", "runs decompression programs"}},
	}.checker()}

	p.gitRead = map[string]func([]arg) string{}
	for _, sub := range strings.Fields(`status log diff show rev-parse ls-files ls-tree blame annotate describe
		shortlog rev-list cat-file show-ref for-each-ref merge-base name-rev count-objects diff-tree
		diff-files diff-index grep whatchanged cherry show-branch check-ignore check-attr var version`) {
		p.gitRead[sub] = nil
	}
	p.gitRead["branch"] = gitListing("branch", "arlvi",
		[]string{"all", "remotes", "verbose", "color", "no-color", "column", "no-column", "show-current", "ignore-case", "abbrev", "no-abbrev", "omit-empty"},
		[]string{"sort", "format", "contains", "no-contains", "merged", "no-merged", "points-at"})
	p.gitRead["tag"] = gitListing("tag", "lni",
		[]string{"color", "no-color", "column", "no-column", "ignore-case", "omit-empty"},
		[]string{"sort", "format", "contains", "no-contains", "merged", "no-merged", "points-at"})
	p.gitRead["remote"] = gitRemote
	p.gitRead["config"] = gitConfig
	p.gitRead["stash"] = gitSub("stash", "list", "show")
	p.gitRead["worktree"] = gitSub("worktree", "list")
	p.gitRead["reflog"] = gitReflog

	generic := wrapper{}
	p.wrappers = map[string]wrapper{
		"sudo":     {argShort: "CDghpRrtTUu", argLong: []string{"close-from", "chdir", "group", "host", "prompt", "chroot", "role", "type", "command-timeout", "other-user", "user"}, assigns: true, shell: "si"},
		"doas":     {argShort: "uC", shell: "s"},
		"env":      {argShort: "uCP", argLong: []string{"unset", "chdir"}, cShort: 'S', cLong: []string{"split-string"}, assigns: true},
		"xargs":    {argShort: "adEILnPs", argLong: []string{"arg-file", "delimiter", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"}},
		"timeout":  {argShort: "sk", argLong: []string{"signal", "kill-after"}, skip: 1},
		"nice":     {argShort: "n", argLong: []string{"adjustment"}},
		"exec":     {argShort: "a"},
		"time":     {argShort: "fo", argLong: []string{"format", "output"}},
		"stdbuf":   {argShort: "ioe", argLong: []string{"input", "output", "error"}},
		"ionice":   {argShort: "cnpPu", argLong: []string{"class", "classdata", "pid", "pgid", "uid"}},
		"chroot":   {argLong: []string{"userspec", "groups"}, skip: 1},
		"script":   {argShort: "TBIOEm", cShort: 'c', cLong: []string{"command"}, noCmd: true, permute: true},
		"su":       {argShort: "gGsw", argLong: []string{"group", "supp-group", "shell", "whitelist-environment"}, cShort: 'c', cLong: []string{"command", "session-command"}, noCmd: true, permute: true},
		"runuser":  {argShort: "ugGsw", argLong: []string{"user", "group", "supp-group", "shell", "whitelist-environment"}, cShort: 'c', cLong: []string{"command", "session-command"}},
		"pkexec":   {argLong: []string{"user"}},
		"flock":    {argShort: "wE", argLong: []string{"timeout", "conflict-exit-code"}, cShort: 'c', cLong: []string{"command"}, skip: 1},
		"sg":       {cShort: 'c', skip: 1},
		"strace":   {argShort: "abeEIoOpPsSuUX"},
		"ltrace":   {argShort: "aAeEnoOpPsSuxX"},
		"chrt":     {skip: 1},
		"taskset":  {skip: 1},
		"faketime": {skip: 1},
		"watch":    {kind: wrapJoin, argShort: "nq", argLong: []string{"interval", "equexit"}},
		"parallel": {kind: wrapParallel, argShort: "jPSadEILnNs"},
		"busybox":  {kind: wrapApplet},
		"eval":     {kind: wrapJoin},
		"trap":     {kind: wrapTrap},
		"source":   {kind: wrapNone},
		".":        {kind: wrapNone},
	}
	for _, name := range strings.Fields(`nohup command builtin setsid unbuffer caffeinate fakeroot catchsegv nocache
		torsocks proxychains proxychains4 unshare nsenter firejail systemd-run valgrind numactl cpulimit`) {
		p.wrappers[name] = generic
	}
	for name := range shells {
		p.wrappers[name] = wrapper{kind: wrapShell}
	}

	p.never = map[string]string{}
	for _, name := range strings.Fields(`awk gawk mawk nawk lua luajit deno Rscript osascript tclsh wish pwsh powershell irb`) {
		p.never[name] = "runs code"
	}
	for _, name := range strings.Fields(`alias unalias hash enable set shopt unset read mapfile readarray getopts
		export declare typeset local readonly let bind`) {
		p.never[name] = "changes the shell's state"
	}
	p.never["fc"] = "runs commands from history"

	p.denyHint = map[string]bool{"rm": true, "dd": true, "chmod": true, "chown": true, "chgrp": true, "tee": true, "mke2fs": true, "eval": true}
	for name := range shells {
		p.denyHint[name] = true
	}

	p.subcmd = map[string][]string{
		"git":     gitGlobalArgOpts,
		"npm":     {"--prefix", "-w", "--workspace"},
		"yarn":    {"--cwd"},
		"pnpm":    {"-C", "--dir", "--filter", "-F"},
		"bun":     {"--cwd"},
		"cargo":   {"-C", "--config", "-Z"},
		"go":      {"-C"},
		"docker":  {"-H", "--host", "--context", "-c", "--config", "-l", "--log-level"},
		"podman":  {"--connection", "-c", "--url"},
		"kubectl": {"-n", "--namespace", "--context", "--cluster", "--user", "--kubeconfig", "-s", "--server"},
		"helm":    {"-n", "--namespace", "--kube-context"},
		"make":    {"-C", "-f", "--file", "--makefile", "-I", "-o", "-W", "--directory", "--include-dir", "--old-file", "--what-if"},
		"gh":      {"-R", "--repo"},
		"npx":     {"-p", "--package"},
	}
	for _, name := range strings.Fields(`pip pip3 uv poetry apt apt-get brew dotnet terraform systemctl gradle gradlew mvn mvnw`) {
		p.subcmd[name] = nil
	}
}
