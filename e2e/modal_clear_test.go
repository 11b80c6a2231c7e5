package e2e

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// waitModalAlone waits until the box titled title stands alone on the
// screen (modalAlone), failing with what was wrong at the deadline.
// The first screen holding the title can be one tmux took in the middle
// of the frame that opens the box (the renderer writes a frame's changed
// rows in turn), with rows of the chat not yet cleared: what must hold is
// the frame once drawn.
func waitModalAlone(t *testing.T, s *tuiSession, title string) string {
	t.Helper()
	deadline := time.Now().Add(tuiWait) // a hang guard, not a measure
	for {
		scr := s.screen()
		msg := modalAlone(scr, title)
		if msg == "" {
			return scr
		}
		if time.Now().After(deadline) {
			t.Fatal(msg)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// modalAlone checks that the box whose title row holds title is alone on
// its rows: nothing but blanks left of its left border and right of its
// right border, and the rows just above and below it blank, so no text of
// the chat shows beside it or cut off against it. It returns "" or what is
// wrong, with the screen.
func modalAlone(scr, title string) string {
	rows := strings.Split(strings.TrimRight(scr, "\n"), "\n")
	at := -1
	for i, r := range rows {
		if strings.Contains(r, title) && strings.Contains(r, "│") {
			at = i
			break
		}
	}
	if at < 0 {
		return fmt.Sprintf("no box titled %q on screen:\n%s", title, scr)
	}
	top, bottom := at, at
	for top > 0 && !strings.Contains(rows[top], "╭") {
		top--
	}
	for bottom < len(rows)-1 && !strings.Contains(rows[bottom], "╰") {
		bottom++
	}
	isBorder := func(r rune) bool { return strings.ContainsRune("╭╮╰╯│", r) }
	for i := top; i <= bottom; i++ {
		row := []rune(rows[i])
		first, last := -1, -1
		for j, r := range row {
			if isBorder(r) {
				if first < 0 {
					first = j
				}
				last = j
			}
		}
		if first < 0 {
			return fmt.Sprintf("row %d of the box has no border: %q\n%s", i, rows[i], scr)
		}
		if l, r := strings.TrimSpace(string(row[:first])), strings.TrimSpace(string(row[last+1:])); l != "" || r != "" {
			return fmt.Sprintf("chat text beside the box on row %d: left %q, right %q\n%s", i, l, r, scr)
		}
	}
	for _, i := range []int{top - 1, bottom + 1} {
		if i >= 0 && i < len(rows)-1 && strings.TrimSpace(rows[i]) != "" {
			return fmt.Sprintf("row %d, next to the box, is not blank: %q\n%s", i, rows[i], scr)
		}
	}
	return ""
}

// TestTUIModalsStandAloneOverTheChat: over a chat full of text to the
// last column, the shell, write and memory approvals at 80×24 and 120×40
// show no chat text beside their borders.
func TestTUIModalsStandAloneOverTheChat(t *testing.T) {
	filler := strings.Repeat("This line of the reply fills the chat to its last column so a modal has text beside it; ", 60)
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			srv := llmtest.NewServer()
			defer srv.Close()
			srv.Script(
				llmtest.Reply{Text: filler},
				llmtest.Reply{ToolCalls: []llmtest.ToolCall{tuiShellCall("c1", "touch the-modal-file.txt")}},
				llmtest.Reply{Text: filler},
				llmtest.Reply{ToolCalls: []llmtest.ToolCall{localCall("c2", "write_file", map[string]any{"path": "notes.txt", "content": "a note\n"})}},
				llmtest.Reply{Text: filler},
				llmtest.Reply{ToolCalls: []llmtest.ToolCall{localCall("c3", "save_memory", map[string]any{"content": "The user likes modals alone."})}},
				llmtest.Reply{Text: filler},
			)
			s := startTUI(t, t.TempDir(), tuiEnv(t, srv, "CO_CLI_SANDBOX_BACKEND=subprocess"), size[0], size[1])
			s.ready()
			s.send("fill the screen")
			s.waitFor(tuiWait, "so a modal has text beside it")
			for _, c := range []struct{ ask, title string }{
				{"run it", "Approve run_shell_command?"},
				{"write it", "Approve write_file?"},
				{"remember it", "Approve save_memory?"},
			} {
				s.send(c.ask)
				s.waitFor(tuiWait, c.title)
				waitModalAlone(t, s, c.title)
				denyModal(t, s, c.title)
			}
		})
	}
}

// TestTUISetupStandsAlone: the first-run setup is not drawn over the "No
// LLM provider" box, leaving it cut off around the setup's borders.
func TestTUISetupStandsAlone(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		t.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(t *testing.T) {
			s := startTUI(t, t.TempDir(), tuiEnv(t, nil, "OLLAMA_HOST=http://127.0.0.1:9"), size[0], size[1])
			s.waitFor(tuiWait, "Set up a provider", "1  Gemini")
			scr := waitModalAlone(t, s, "Set up a provider")
			if strings.Contains(scr, "No LLM provider is usable yet") || strings.Contains(scr, "GEMINI_API_KEY=") {
				t.Fatalf("the first-run box shows around the setup:\n%s", scr)
			}
		})
	}
}

// denyModal denies the modal titled title with one Esc once it is armed.
func denyModal(t *testing.T, s *tuiSession, title string) {
	t.Helper()
	s.waitArmed()
	s.keys("Escape")
	deadline := hangDeadline(tuiWait)
	for strings.Contains(s.screen(), title) {
		if time.Now().After(deadline) {
			t.Fatalf("one Esc on the armed modal did not close %q:\n%s", title, s.styledScreen())
		}
		time.Sleep(20 * time.Millisecond)
	}
	s.waitFor(tuiWait, "Ask co anything")
}
