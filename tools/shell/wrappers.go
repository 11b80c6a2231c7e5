package shell

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

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
