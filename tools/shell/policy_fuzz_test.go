package shell

import (
	"reflect"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzEvaluate checks invariants of the policy on arbitrary input:
// Evaluate never panics, always gives a reason, never scopes a deny, and
// never allows a command the bash or POSIX parser rejects or one whose $, backtick or >
// could do anything (they may only sit in single quotes, comments, or for >
// double quotes and the allowed redirections).
func FuzzEvaluate(f *testing.F) {
	for _, tc := range corpus {
		f.Add(tc.cmd)
	}
	for _, s := range []string{
		"ls 2>&1 >/dev/null | grep -v x >&2",
		"git log --format='%h $s' -- 'a>b'",
		"echo \"a>b\" # $(x) > y",
		"sed -n '/a$/,$p' f",
		"find . -name '*.go' -newer x -print0",
		"ls ~ | sort -k1 | uniq -c | head -n1",
		"npm test && make build",
		"ls {fd}>x",
		"ls >/dev/null 2>&1 <input",
		"if ! ls; then echo no; elif true; then pwd; else false; fi",
	} {
		f.Add(s)
	}
	p := mustPolicy(f, []Rule{
		{Match: "git push", Decision: deny},
		{Match: "npm test", Decision: allow},
	}, []string{"make"})
	f.Fuzz(func(t *testing.T, cmd string) {
		v := p.evaluate(cmd) // not Evaluate: a panic must fail the run
		if v.Decision != allow && v.Decision != ask && v.Decision != deny {
			t.Fatalf("Evaluate(%q): decision %d", cmd, v.Decision)
		}
		if v.Reason == "" {
			t.Fatalf("Evaluate(%q): empty reason", cmd)
		}
		if v.Decision == deny && v.Scope != "" {
			t.Fatalf("Evaluate(%q): deny with scope %q", cmd, v.Scope)
		}
		if v2 := p.evaluate(cmd); !reflect.DeepEqual(v, v2) {
			t.Fatalf("Evaluate(%q) is not deterministic: %+v then %+v", cmd, v, v2)
		}
		if v.Decision != allow {
			return
		}
		for _, lang := range []syntax.LangVariant{syntax.LangBash, syntax.LangPOSIX} {
			parser := syntax.NewParser(syntax.Variant(lang), syntax.KeepComments(true))
			file, err := parser.Parse(strings.NewReader(cmd), "")
			if err != nil {
				t.Fatalf("Evaluate(%q) allowed a command the %s parser rejects: %v", cmd, lang, err)
			}
			checkAllowed(t, cmd, file)
		}
	})
}

type span struct{ from, to uint } // [from, to)

func inSpans(i uint, spans []span) bool {
	for _, s := range spans {
		if i >= s.from && i < s.to {
			return true
		}
	}
	return false
}

// checkAllowed fails if an allowed command has anything that could run,
// write or expand.
func checkAllowed(t *testing.T, cmd string, file *syntax.File) {
	t.Helper()
	var single, double, quiet []span // quiet: comments and allowed redirections
	for _, c := range file.Last {
		quiet = append(quiet, span{c.Hash.Offset(), c.Hash.Offset() + 1 + uint(len(c.Text))})
	}
	bad := func(what string) { t.Fatalf("Evaluate(%q) allowed a command with %s", cmd, what) }
	syntax.Walk(file, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			for _, c := range n.Comments {
				quiet = append(quiet, span{c.Hash.Offset(), c.Hash.Offset() + 1 + uint(len(c.Text))})
			}
			if n.Background || n.Coprocess || n.Disown {
				bad("a background job")
			}
		case *syntax.Comment:
			quiet = append(quiet, span{n.Hash.Offset(), n.Hash.Offset() + 1 + uint(len(n.Text))})
		case *syntax.SglQuoted:
			if n.Dollar {
				bad("$'...'")
			}
			single = append(single, span{n.Left.Offset(), n.Right.Offset() + 1})
		case *syntax.DblQuoted:
			if n.Dollar {
				bad(`$"..."`)
			}
			double = append(double, span{n.Left.Offset(), n.Right.Offset() + 1})
		case *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ParamExp, *syntax.ArithmExp, *syntax.ArithmCmd, *syntax.ExtGlob:
			bad("an expansion or substitution")
		case *syntax.Assign, *syntax.DeclClause, *syntax.LetClause, *syntax.ForClause:
			bad("an assignment")
		case *syntax.FuncDecl, *syntax.CoprocClause, *syntax.TimeClause, *syntax.TestClause, *syntax.CaseClause:
			bad("a function, coproc, time, [[ ]] or case")
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				bad("no command")
			}
			lit, ok := n.Args[0].Parts[0].(*syntax.Lit)
			if len(n.Args[0].Parts) != 1 || !ok || (lit.Value != "[" && strings.ContainsAny(lit.Value, "/\\*?[{}$`")) || !isASCII(lit.Value) {
				bad("a program word that is not a plain name")
			}
		case *syntax.Redirect:
			target := ""
			if n.Word != nil {
				target = n.Word.Lit()
			}
			switch n.Op {
			case syntax.DplIn, syntax.DplOut:
				if !isFD(target) {
					bad("a dup to a file")
				}
			case syntax.RdrIn:
			case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.RdrAll, syntax.AppAll:
				if !harmlessSink(target) {
					bad("a redirection to a file")
				}
			default:
				bad("a here-document, here-string or <>")
			}
			quiet = append(quiet, span{n.Pos().Offset(), n.End().Offset()})
		}
		return true
	})
	for i := 0; i < len(cmd); i++ {
		at := uint(i)
		switch c := cmd[i]; {
		case c == '$' || c == '`':
			if !inSpans(at, single) && !inSpans(at, quiet) {
				bad("a $ or backtick outside single quotes")
			}
		case c == '>':
			if !inSpans(at, single) && !inSpans(at, double) && !inSpans(at, quiet) {
				bad("a > outside quotes and allowed redirections")
			}
		case isControl(rune(c)):
			bad("a control character")
		}
	}
}
