package shell

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

	"github.com/co-cli/co/tools"
)

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
	// cwd is set while the commands run in /, ~ or a directory above the
	// workspace because a cd went there: it is that cd ("cd ~"), for the
	// denies of recursive deletion of . or * (cd ~ && rm -rf .).
	cwd string
}

// shared is the state of one Evaluate call, shared by the evaluators of the
// command strings found in it.
type shared struct {
	scripts int             // command strings parsed so far
	seen    map[string]bool // command strings already parsed
	// unresolved: a program's name is known only when the command runs
	// ($c x, $(…) x).
	unresolved bool
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
	s := &evaluator{p: e.p, shared: e.shared, posix: e.posix, depth: e.depth + 1, nested: 1, cwd: e.cwd}
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
	v := Verdict{Programs: e.programs, Unresolved: e.shared.unresolved}
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

// joinReasons gives every reason: the approval shows this text, and a list
// cut at three ("; and 4 more") left the rest nowhere to be read (the
// modal scrolls, --plain and co run print it whole).
func joinReasons(rs []string) string { return strings.Join(rs, "; ") }

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
		defer e.keepCwd()() // in a subshell: a cd there stays there
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
		restore := e.keepCwd()
		e.stmts(c.Stmts)
		restore()
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
			restore := e.keepCwd()
			e.stmts(n.Stmts)
			restore()
			e.nested--
			return false
		case *syntax.ProcSubst:
			e.nested++
			restore := e.keepCwd()
			e.stmts(n.Stmts)
			restore()
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
	// find / | xargs rm: what find lists is deleted. rmAfter[i]: a stage
	// after i runs xargs rm.
	rmAfter := make([]bool, len(stages))
	for i := len(stages) - 2; i >= 0; i-- {
		rmAfter[i] = rmAfter[i+1] || e.p.xargsRm(stages[i+1])
	}
	for i, st := range stages {
		if !rmAfter[i] {
			break
		}
		if t := e.p.findListsTooMuch(st, e.cwd); t != "" {
			e.deny("denied: xargs rm of everything find lists under " + t)
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
		// Each stage runs in a subshell: a cd in one moves no other.
		restore := e.keepCwd()
		e.stmt(st)
		restore()
	}
}

// quoted reports whether a has a quoted part: an empty expansion in it
// leaves an empty word, not none.
func quoted(a arg) bool {
	if a.src == nil {
		return false
	}
	for _, p := range a.src.Parts {
		switch p.(type) {
		case *syntax.DblQuoted, *syntax.SglQuoted:
			return true
		}
	}
	return false
}

// keepCwd returns a func that puts cwd back as it is now, for what runs in
// a subshell.
func (e *evaluator) keepCwd() func() {
	cwd := e.cwd
	return func() { e.cwd = cwd }
}

// chdir follows a cd or pushd (args after the program): cwd is set when it
// goes to /, ~ or above the workspace, kept when it stays (cd .), and
// cleared when it goes anywhere else or nobody can tell where (cd -,
// pushd +1). An unquoted operand that may expand to nothing counts as
// none: cd $DIR with DIR unset goes home (cd "$DIR" stays).
func (e *evaluator) chdir(prog string, args []arg) {
	i := 0
	for i < len(args) && len(args[i].val) > 1 && args[i].val[0] == '-' && args[i].val != "--" {
		if prog == "pushd" { // pushd -n, -N: not a plain move
			e.cwd = ""
			return
		}
		i++ // cd -L, -P, -e, -@
	}
	if i < len(args) && args[i].val == "--" {
		i++
	}
	if i == len(args) {
		e.cwd = ""
		if prog == "cd" {
			e.cwd = "cd (the home directory)"
		}
		return
	}
	t := args[i]
	switch v := strings.ReplaceAll(t.val, unknown, ""); {
	case v == "" && t.val != "" && quoted(t):
		// cd "" stays where it is.
	case v == "" && t.val != "":
		e.cwd = prog + " " + t.show() + " (the home directory if it expands to nothing; use ${VAR:?})"
	case v == "-" || (prog == "pushd" && strings.HasPrefix(v, "+")):
		e.cwd = ""
	case rootish(t, true) || climbs(t):
		e.cwd = prog + " " + t.show()
	case wholeDir(t) && !t.glob: // cd . stays
	default:
		e.cwd = ""
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
		if strings.ContainsAny(sub[0].val, unknown+opaque) {
			e.shared.unresolved = true
		}
		if why := p.denyDirect(sub, e.cwd); why != "" {
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

	// cd, also as builtin cd or command cd: the shell's own directory.
	cd := argv
	for len(cd) > 1 && (progBase(cd[0]) == "builtin" || progBase(cd[0]) == "command") {
		cd = cd[1:]
		for len(cd) > 1 && strings.HasPrefix(cd[0].val, "-") { // command -p
			cd = cd[1:]
		}
	}
	switch b := progBase(cd[0]); b {
	case "cd", "pushd":
		e.chdir(b, cd[1:])
	case "popd":
		e.cwd = "" // back to somewhere on the stack: unknown here
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
