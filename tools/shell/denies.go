package shell

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

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
