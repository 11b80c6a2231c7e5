package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/lib/testneeds"
	"github.com/co-cli/co/memory"
)

// completeInBash loads `co completion bash` into a bash that has not
// loaded the bash-completion package (--norc: no rc file, so none of its
// functions), then asks it to complete each line as Tab would: COMP_LINE
// and the other COMP_ variables, then the function complete -p names. It
// returns each line's completions and bash's stderr.
func completeInBash(t *testing.T, dir string, environ []string, lines ...string) ([][]string, string) {
	t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Fatal("bash is needed for the completion tests")
	}
	var script strings.Builder
	script.WriteString(`source <(co completion bash) || exit 9
if declare -F _get_comp_words_by_ref >/dev/null || declare -F _filedir >/dev/null; then
    echo "bash-completion is loaded: the test would prove nothing" >&2; exit 8
fi
fn=$(complete -p co | sed -n 's/.*-F \([^ ]*\) .*/\1/p')
# compopt works only while bash itself runs a completion function.
compopt() { :; }
comp() {
    COMP_LINE=$1 COMP_POINT=${#1} COMP_TYPE=9 COMP_KEY=9 COLUMNS=200
    # As bash splits the line: at blanks and at = and : (COMP_WORDBREAKS).
    local w=${1//=/ = }
    read -r -a COMP_WORDS <<< "$w"
    [[ $1 == *[[:blank:]=] ]] && COMP_WORDS+=("")
    COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
    COMPREPLY=()
    "$fn" co "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
    printf '%s\n' "${COMPREPLY[@]}" "----"
}
`)
	for _, l := range lines {
		fmt.Fprintf(&script, "comp %s\n", shq(l))
	}
	cmd := exec.Command(bash, "--norc", "--noprofile", "-c", script.String())
	cmd.Dir = dir
	cmd.Env = append(environ, "PATH="+filepath.Dir(coBin)+":"+os.Getenv("PATH"))
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("bash: %v\nstdout:\n%s\nstderr:\n%s", err, out, errb.String())
	}
	var got [][]string
	var cur []string
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		if line == "----" {
			got = append(got, cur)
			cur = nil
			continue
		}
		if line != "" {
			cur = append(cur, line)
		}
	}
	if len(got) != len(lines) {
		t.Fatalf("%d completions for %d lines:\n%s\nstderr:\n%s", len(got), len(lines), out, errb.String())
	}
	return got, errb.String()
}

// Without the bash-completion package, Tab completes co's commands (cobra's
// script printed "_get_comp_words_by_ref: command not found" on each Tab),
// and the ids of saved sessions and memories, each with its description,
// instead of file names.
func TestBashCompletionNeedsNoBashCompletionPackage(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	e := env(t, srv)
	dir, other := t.TempDir(), t.TempDir()
	srv.Script(llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"})
	for _, ws := range []string{other, dir} {
		if _, errOut, code := runCo(t, ws, e, "", "run", "a title from "+filepath.Base(ws)); code != 0 {
			t.Fatalf("co run: exit %d: %s", code, errOut)
		}
	}
	ids := regexp.MustCompile(`(?m)^([0-9a-z]{8,})\s`).FindAllStringSubmatch(must(runCo(t, dir, e, "", "sessions", "--all")), -1)
	if len(ids) != 2 {
		t.Fatalf("want 2 saved sessions, got %v", ids)
	}
	here, there := ids[0][1], ids[1][1] // most recent first: dir's
	st, err := memory.Open(filepath.Join(envValue(e, "XDG_DATA_HOME"), "co-cli", memory.FileName), memory.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m, err := st.Save("the user prefers tabs \x1b[31mover spaces", nil, "")
	if err != nil {
		t.Fatal(err)
	}
	m2, err := st.Save("the build runs with make ci", nil, "")
	st.Close()
	if err != nil {
		t.Fatal(err)
	}
	// A file the old completion offered instead of ids.
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), nil, 0o644); err != nil {
		t.Fatal(err)
	}

	got, stderr := completeInBash(t, dir, e,
		"co stat",
		"co sessions rm ",
		"co --resume ",
		"co --resume="+here[:12],
		"co chat --resume "+there[:12],
		"co memory rm ",
		"co memory rm "+m.ID+" ",
		"co memory rm "+m2.ID,
		"co status ",
		"co undo --session "+there[:12],
	)
	if strings.Contains(stderr, "command not found") || stderr != "" {
		t.Errorf("bash said:\n%s", stderr)
	}
	title := func(ws string) string { return "a title from " + filepath.Base(ws) }
	day := time.Now().Format("2006-01-02")
	for i, want := range [][]string{
		{"status"},
		{here + "  (co run: " + title(dir) + " · " + day, there + "  (in " + filepath.Base(other) + ": co run: " + title(other) + " · " + day},
		{here + "  (", there + "  ("},
		{here},
		{there},
		{m2.ID + "  (the build runs with make ci)", m.ID + "  (the user prefers tabs"}, // the most recent first
		nil,
		{m2.ID},
		nil,
		{there},
	} {
		if len(got[i]) != len(want) {
			t.Errorf("completion %d: got %q, want %d like %q", i, got[i], len(want), want)
			continue
		}
		for j := range want {
			if !strings.HasPrefix(got[i][j], want[j]) {
				t.Errorf("completion %d: got %q, want %q first", i, got[i][j], want[j])
			}
		}
	}
	for _, c := range got {
		for _, s := range c {
			if strings.ContainsAny(s, "\x1b\t") || strings.Contains(s, "notes.txt") {
				t.Errorf("completion %q: a raw escape, a tab or a file name", s)
			}
		}
	}
}

// must is runCo's stdout, failing the test on a non-zero exit.
func must(stdout, stderr string, code int) string {
	if code != 0 {
		panic(fmt.Sprintf("exit %d: %s", code, stderr))
	}
	return stdout
}

// The same at a real prompt: an interactive bash without the
// bash-completion package (--norc), in tmux, with real Tab presses.
func TestBashCompletionAtARealPrompt(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		testneeds.Tmux.Missing(t, err)
	}
	srv := llmtest.NewServer()
	defer srv.Close()
	e := env(t, srv)
	dir := t.TempDir()
	srv.Script(llmtest.Reply{Text: "one"})
	if _, errOut, code := runCo(t, dir, e, "", "run", "the only session"); code != 0 {
		t.Fatalf("co run: exit %d: %s", code, errOut)
	}
	id := strings.Fields(strings.Split(must(runCo(t, dir, e, "", "sessions")), "\n")[1])[0]

	tmp := t.TempDir()
	s := &tuiSession{t: t, sock: filepath.Join(tmp, "tmux.sock"), dir: dir}
	var envArgs []string
	for _, kv := range append(e, "PATH="+filepath.Dir(coBin)+":"+os.Getenv("PATH"), "PS1=$ ", "TERM=xterm-256color", "HISTFILE=/dev/null") {
		envArgs = append(envArgs, shq(kv))
	}
	wrapper := filepath.Join(tmp, "run.sh")
	script := fmt.Sprintf("#!/bin/sh\ncd %s || exit 1\nexec env -i %s bash --norc --noprofile -i\n", shq(dir), strings.Join(envArgs, " "))
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("tmux", "-S", s.sock, "-f", "/dev/null", "new-session", "-d", "-s", "co", "-x", "120", "-y", "30", wrapper)
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + tmp, "TERM=xterm-256color", "LANG=C.UTF-8"}
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("starting tmux: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("screen at the end:\n%s", s.screen())
		}
		_ = exec.Command("tmux", "-S", s.sock, "kill-server").Run()
	})
	s.send("source <(co completion bash); declare -F _get_comp_words_by_ref || echo no-bash-completion")
	s.waitFor(tuiWait, "no-bash-completion\n$")
	s.typeText("co stat")
	s.keys("Tab")
	s.waitFor(tuiWait, "$ co status")
	s.keys("C-u")
	s.typeText("co sessions rm ")
	s.keys("Tab")
	s.waitFor(tuiWait, "$ co sessions rm "+id)
	if scr := s.screen(); strings.Contains(scr, "command not found") {
		t.Errorf("bash said command not found:\n%s", scr)
	}
}
