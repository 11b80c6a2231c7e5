package e2e

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// Inside tmux, co asks tmux for its colours (`tmux info`, through
// colorprofile) only once the first frame is out, and once: not in
// lipgloss's initialisation, not before Bubble Tea's first frame (issue
// 44: ~20 ms each on the start path). The chat runs in a real tmux pane
// with TMUX set and a tmux on its PATH that records, at each call,
// whether the ready prompt was already on the screen, and answers that
// tmux passes true colour on: the screen is then drawn again in 24-bit
// colour.
func TestTmuxIsAskedAfterTheFirstFrame(t *testing.T) {
	real, err := exec.LookPath("tmux")
	if err != nil {
		t.Skip("no tmux")
	}
	srv := llmtest.NewServer()
	defer srv.Close()
	dir, bin := t.TempDir(), t.TempDir()
	calls := filepath.Join(bin, "calls")
	tmp := t.TempDir()
	sock := filepath.Join(tmp, "tmux.sock")
	fake := "#!/bin/sh\n" +
		"if " + shq(real) + " -S " + shq(sock) + " capture-pane -p -t co | grep -q 'Ask co anything'; then on=ready; else on=before; fi\n" +
		"echo \"$on $*\" >> " + shq(calls) + "\n" +
		"echo '  RGB: [missing]'\necho '  Tc: (flag) true'\n"
	if err := os.WriteFile(filepath.Join(bin, "tmux"), []byte(fake), 0o755); err != nil {
		t.Fatal(err)
	}
	e := tuiEnv(t, srv, "TMUX="+sock+",1,0")
	for i, kv := range e {
		switch {
		case strings.HasPrefix(kv, "TERM="):
			e[i] = "TERM=tmux-256color"
		case strings.HasPrefix(kv, "PATH="):
			e[i] = "PATH=" + bin + ":" + os.Getenv("PATH")
		}
	}
	s := startTUIIn(t, tmp, dir, e, 100, 30)
	s.ready()
	styled := ""
	deadline := hangDeadline(20 * time.Second)
	for !strings.Contains(styled, "38;2;") {
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(calls)
			t.Fatalf("the screen was not drawn again in 24-bit colour; tmux calls:\n%s\nscreen:\n%q", b, styled)
		}
		time.Sleep(20 * time.Millisecond)
		styled = s.styledScreen()
	}
	b, err := os.ReadFile(calls)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.TrimSpace(string(b)); got != "ready info" {
		t.Errorf("tmux calls (whether the ready prompt was on screen, then the arguments):\n%s\nwant one, after the first frame: ready info", got)
	}
	if !strings.Contains(s.screen(), "Ask co anything") {
		t.Errorf("the redrawn screen lost the prompt:\n%s", s.screen())
	}
}
