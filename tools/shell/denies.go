package shell

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// denyDirect returns why argv (one command, wrappers already peeled) is
// denied, or "". cwd is set when the command runs in /, ~ or a directory
// above the workspace, because a cd before it went there (see
// evaluator.chdir): it is that cd, for the message ("cd ~").
func (p *Policy) denyDirect(argv []arg, cwd string) string {
	base := progBase(argv[0])
	args := argv[1:]
	switch {
	case base == "rm":
		if t := recursiveOn(args, "rR", func(a arg) string { return wipes(a, true, cwd) }); t != "" {
			return "recursive deletion of " + t
		}
	case base == "find":
		return p.findDeletes(args, cwd)
	case base == "chmod" || base == "chown" || base == "chgrp":
		if t := recursiveOn(args, "R", func(a arg) string { return wipes(a, false, "") }); t != "" {
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

// recursiveOn returns what a recursive rm/chmod would wipe, as target
// describes its first operand that is too much, or "". recursive lists the
// short flags meaning recursive.
func recursiveOn(args []arg, recursive string, target func(arg) string) string {
	rec, found, opts := false, "", true
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
		if found == "" {
			found = target(a)
		}
	}
	if rec {
		return found
	}
	return ""
}

// wipes says what deleting everything under a would wipe, when that is
// too much, else "": / (and, with home, ~ or $HOME); a directory above the
// workspace, a path made only of .. (../../..; from the sandbox's
// /workspace, .. is /); or, after cwd (a cd to one of these), the current
// directory itself (., *, ./*, .*). GNU rm refuses . and .. as operands,
// but not * or ../*, and not every rm is GNU's.
func wipes(a arg, home bool, cwd string) string {
	t := a.show()
	switch {
	case rootish(a, home):
	case climbs(a):
		t += " (a directory above the workspace, with the workspace in it)"
	case cwd != "" && wholeDir(a):
		t += " after " + cwd
	default:
		return ""
	}
	if strings.Contains(a.val, unknown) {
		t += " (the expansion may be empty; write the path, or use ${VAR:?})"
	}
	return t
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
	return stripGlobs(path.Clean(v)) == "/"
}

// climbs reports whether a is a relative path made only of .. (and .)
// segments, perhaps ending in /*: .., ../.., ./../../*.
func climbs(a arg) bool {
	v := strings.ReplaceAll(a.val, unknown, "")
	if a.home || v == "" || strings.HasPrefix(v, "/") {
		return false
	}
	c := stripGlobs(path.Clean(v))
	for seg := range strings.SplitSeq(c, "/") {
		if seg != ".." {
			return false
		}
	}
	return true
}

// wholeDir reports whether a names the current directory or everything in
// it: ., ./, *, ./*, .*.
func wholeDir(a arg) bool {
	v := strings.ReplaceAll(a.val, unknown, "")
	if a.home || v == "" {
		return false
	}
	c := path.Clean(v)
	if c == "*" || c == ".*" {
		return true
	}
	return stripGlobs(c) == "."
}

// stripGlobs drops trailing /* and /.* from a clean path: everything in a
// directory counts as the directory.
func stripGlobs(c string) string {
	for {
		switch {
		case strings.HasSuffix(c, "/*"):
			c = path.Clean(strings.TrimSuffix(c, "*"))
		case strings.HasSuffix(c, "/.*") && c != "/.*":
			c = path.Clean(strings.TrimSuffix(c, ".*"))
		case c == "/.*":
			return "/"
		default:
			return c
		}
	}
}

// findDeletes returns why a find is denied: it deletes (-delete, or -exec
// rm and the like) everything it finds under a start point that is /, ~,
// $HOME, a directory above the workspace or, after cwd, the current
// directory. A find deletes only what matches its tests, but from / or ~
// that is anyone's guess: find / -name '*.log' -delete is no better.
func (p *Policy) findDeletes(args []arg, cwd string) string {
	starts, i := findStarts(args)
	action := ""
	for j := i; j < len(args) && action == ""; j++ {
		switch v := args[j].val; v {
		case "-delete":
			action = "-delete"
		case "-exec", "-execdir", "-ok", "-okdir":
			end := j + 1
			for end < len(args) && args[end].val != ";" && args[end].val != "+" {
				end++
			}
			if end > j+1 && p.runsRm(args[j+1:end]) {
				action = v + " rm"
			}
			j = end
		}
	}
	if action == "" {
		return ""
	}
	if t := findWipes(starts, cwd); t != "" {
		return "find " + action + " of everything under " + t
	}
	return ""
}

// findStarts returns a find's start points (after its options -H, -L, -P,
// -D X, -OLEVEL; . when there are none) and the index of its expression.
func findStarts(args []arg) (starts []arg, expr int) {
	i := 0
	for i < len(args) {
		v := args[i].val
		if v == "-H" || v == "-L" || v == "-P" || (strings.HasPrefix(v, "-O") && len(v) > 2) {
			i++
			continue
		}
		if v == "-D" {
			i += 2
			continue
		}
		break
	}
	for ; i < len(args); i++ {
		v := args[i].val
		if v == "(" || v == "!" || v == "," || (len(v) > 1 && v[0] == '-') {
			break
		}
		starts = append(starts, args[i])
	}
	if len(starts) == 0 {
		starts = []arg{{val: ".", exact: true, plain: true}} // find's default
	}
	return starts, i
}

// findWipes describes the first start point whose every file deleted is
// too much (see wipes), or "".
func findWipes(starts []arg, cwd string) string {
	for _, a := range starts {
		if t := wipes(a, true, cwd); t != "" {
			return t
		}
	}
	return ""
}

// findListsTooMuch returns, when node runs a find (directly or through
// wrappers) from /, ~, $HOME or above the workspace, that start point; "".
func (p *Policy) findListsTooMuch(node syntax.Node, cwd string) string {
	found := ""
	p.anyLevel(node, func(argv []arg) bool {
		if progBase(argv[0]) == "find" {
			starts, _ := findStarts(argv[1:])
			found = findWipes(starts, cwd)
		}
		return found != ""
	})
	return found
}

// xargsRm reports whether node runs xargs with rm (xargs rm, xargs -0
// sudo rm -rf).
func (p *Policy) xargsRm(node syntax.Node) bool {
	return p.anyLevel(node, func(argv []arg) bool { return progBase(argv[0]) == "xargs" && p.runsRm(argv) })
}

// runsRm reports whether argv (what find -exec runs) runs rm: itself,
// through wrappers (sudo rm), or in a command string (sh -c 'rm "$1"').
func (p *Policy) runsRm(argv []arg) bool {
	isRm := func(argv []arg) bool { return progBase(argv[0]) == "rm" }
	levels, scripts, _ := p.chain(argv)
	for _, lv := range levels {
		if isRm(argv[lv.off:]) {
			return true
		}
	}
	for _, src := range scripts {
		if f, _ := p.parse(asScript(src), false); f != nil && p.anyLevel(f, isRm) {
			return true
		}
	}
	return false
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
