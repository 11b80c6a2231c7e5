package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// Every co command line the README and the pages of docs/ show — in their
// fenced code blocks and in their inline code — is one co accepts: the built binary is run with --help
// and the line's words, in an empty home, far enough for cobra to find
// the command and parse the flags. "co config set context_files
// CLAUDE.md,GEMINI.md" was documented while co answered `unknown command
// "set"` (issue 27).
func TestREADMECommandsExist(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	var lines []coLine
	readmeLines := 0
	for _, page := range docPages(t) {
		if page == "docs/ARCHITECTURE.md" || page == "docs/SOURCES.md" {
			continue // the code's map and its sources: no user's command lines
		}
		b, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		found := readmeCoLines(string(b))
		for i := range found {
			found[i].page = page
		}
		if page == "README.md" {
			readmeLines = len(found)
		}
		lines = append(lines, found...)
	}
	if len(lines) < 100 || readmeLines < 30 {
		t.Fatalf("found only %d co command lines (%d in the README); the extraction is broken", len(lines), readmeLines)
	}
	bin := filepath.Join(t.TempDir(), "co")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	home := t.TempDir()
	env := []string{"HOME=" + home, "XDG_CONFIG_HOME=" + home + "/.config", "XDG_DATA_HOME=" + home + "/.local/share",
		"XDG_STATE_HOME=" + home + "/.local/state", "PATH=" + os.Getenv("PATH"), "TERM=dumb"}
	for _, l := range lines {
		// --help first: a command that takes everything after its
		// arguments as arguments (co config set KEY -1) still sees it.
		args := append([]string{"--help=true"}, l.args...) // "=": cobra looks for the command before it knows --help takes no value
		cmd := exec.Command(bin, args...)
		cmd.Env, cmd.Dir = env, home
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("%s:%d: %s\n  co %s: %v\n%s", l.page, l.line, l.text, strings.Join(args, " "), err, out)
			continue
		}
		if msg := extraWords(l.args, string(out)); msg != "" {
			t.Errorf("%s:%d: %s\n  %s", l.page, l.line, l.text, msg)
		}
	}
}

// A failing line is caught: the test above is not one that cannot fail.
func TestREADMECommandCheckCatches(t *testing.T) {
	help := "Usage:\n  co config [flags]\n  co config [command]\n\nFlags:\n  -h, --help   help for config\n"
	if extraWords([]string{"config", "set", "x", "y"}, help) == "" {
		t.Error(`"co config set x y" against a co config without set passed`)
	}
	help = "Usage:\n  co run [PROMPT] [flags]\n\nFlags:\n      --resume string   the session\n      --json   JSON lines\n"
	if msg := extraWords([]string{"run", "--resume", "ID", "--json", "hi"}, help); msg != "" {
		t.Errorf("a valid co run line failed: %s", msg)
	}
	got := readmeCoLines("x `co a [--b|--c] [-o FILE]` y\n```sh\nFOO=1 ./co d | jq . && echo \"q\" | co run -e   # co z\n```\n")
	want := [][]string{{"a", "--b", "--c", "-o", "FILE"}, {"d"}, {"run", "-e"}}
	if len(got) != len(want) {
		t.Fatalf("readmeCoLines = %+v, want %v", got, want)
	}
	for i := range want {
		if strings.Join(got[i].args, " ") != strings.Join(want[i], " ") {
			t.Errorf("line %d: %q, want %q", i, got[i].args, want[i])
		}
	}
}

type coLine struct {
	page string
	line int
	text string
	args []string
}

var inlineCo = regexp.MustCompile("`((?:\\./)?co(?: [^`]*)?)`")

// readmeCoLines finds the co command lines: each command of a pipeline in a
// fenced code block that runs co (after VAR=value assignments), and each
// inline code span that starts with "co ". Synopsis notation is unfolded:
// [optional] parts are kept, a|b alternatives all given (only the first of
// positional alternatives), redirections dropped.
func readmeCoLines(readme string) []coLine {
	var out []coLine
	fenced := false
	for i, text := range strings.Split(readme, "\n") {
		if strings.HasPrefix(strings.TrimSpace(text), "```") {
			fenced = !fenced
			continue
		}
		var cmds []string
		if fenced {
			code := text
			if j := strings.Index(code, " #"); j >= 0 {
				code = code[:j]
			}
			cmds = regexp.MustCompile(`\|\||&&|[|;]`).Split(code, -1)
		} else {
			for _, m := range inlineCo.FindAllStringSubmatch(text, -1) {
				cmds = append(cmds, m[1])
			}
		}
		for _, c := range cmds {
			words := shellWords(c)
			for len(words) > 0 && regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`).MatchString(words[0]) {
				words = words[1:]
			}
			if len(words) == 0 || (words[0] != "co" && words[0] != "./co") {
				continue
			}
			out = append(out, coLine{line: i + 1, text: strings.TrimSpace(text), args: unfold(words[1:])})
		}
	}
	return out
}

// shellWords splits a command as a shell would, roughly: white space
// outside quotes; quotes removed; a redirection ends the command.
func shellWords(s string) []string {
	var words []string
	var cur strings.Builder
	in, quote, any := false, byte(0), false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote != 0 && c == quote:
			quote = 0
		case quote != 0:
			cur.WriteByte(c)
		case c == '"' || c == '\'':
			quote, any = c, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			any = true
		case c == ' ' || c == '\t':
			if any {
				words = append(words, cur.String())
				cur.Reset()
				any = false
			}
		case c == '>' || c == '<':
			in = true
		default:
			cur.WriteByte(c)
			any = true
		}
		if in {
			break
		}
	}
	if any && !in {
		words = append(words, cur.String())
	}
	return words
}

// unfold turns synopsis notation into words: brackets dropped, --a|--b
// becomes both flags, a|b (positional) its first, N a number.
func unfold(words []string) []string {
	var out []string
	for _, w := range words {
		w = strings.Trim(w, "[]")
		if w == "" {
			continue
		}
		if w == "N" { // a number placeholder: the flag parses numbers
			w = "1"
		}
		alts := strings.Split(w, "|")
		if strings.HasPrefix(alts[0], "-") {
			out = append(out, alts...)
		} else {
			out = append(out, alts[0])
		}
	}
	return out
}

var flagLine = regexp.MustCompile(`^\s+(?:-\w, )?--([\w-]+)(?: (\w+))?\s`)

// extraWords checks the words of a command line against the help co
// printed for it: the words that are not the command's path or flags (or
// flag values) must be arguments the command takes. It returns what is
// wrong, or "".
func extraWords(args []string, help string) string {
	_, usage, ok := strings.Cut(help, "Usage:\n")
	if !ok {
		return "no Usage: in the help:\n" + help
	}
	first, _, _ := strings.Cut(strings.TrimSpace(usage), "\n")
	fields := strings.Fields(first)
	var path, spec []string
	for _, f := range fields {
		switch {
		case f == "[flags]":
		case len(spec) == 0 && regexp.MustCompile(`^[a-z][a-z0-9-]*$`).MatchString(f):
			path = append(path, f)
		default:
			spec = append(spec, f)
		}
	}
	takesValue := map[string]bool{}
	for _, l := range strings.Split(help, "\n") {
		if m := flagLine.FindStringSubmatch(l); m != nil {
			takesValue[m[1]] = m[2] != ""
		}
	}
	var rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		if strings.HasPrefix(a, "-") && a != "-" {
			name := strings.TrimLeft(a, "-")
			if !strings.Contains(name, "=") && takesValue[name] {
				i++
			}
			continue
		}
		rest = append(rest, a)
	}
	if len(rest) < len(path)-1 {
		return "co resolved the command " + strings.Join(path, " ") + ", longer than the line"
	}
	rest = rest[len(path)-1:] // path[0] is "co"
	if len(rest) > 0 && len(spec) == 0 {
		return `co has no command "` + strings.Join(path, " ") + " " + rest[0] + `" (` + strings.Join(path, " ") + " takes no arguments)"
	}
	return ""
}
