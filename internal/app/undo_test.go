package app

import (
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/undo"
)

// approvedTurn sends prompt, approves every call, and waits for the turn.
func approvedTurn(t *testing.T, a *App, prompt string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for ev := range a.Agent.Submit(ctx, prompt) {
		switch ev := ev.(type) {
		case agent.ApprovalRequested:
			v := make([]message.Verdict, len(ev.Calls))
			for i := range v {
				v[i] = message.ApproveOnce
			}
			ev.Reply(v)
		case agent.TurnFailed:
			t.Fatalf("turn %q failed: %s", prompt, ev.Message)
		}
	}
}

func writeCall(path, content string) llmtest.Reply {
	b, _ := json.Marshal(map[string]any{"path": path, "content": content})
	return llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "write_file", Args: string(b)}}}
}

// In the chat, /undo takes the last turn's file back and its messages out
// of what the next request sends (the agent's history is loaded again);
// after co exits, co undo (OpenUndo, the latest chat of the workspace)
// sees the last turn's checkpoint and takes it back.
func TestUndoInTheChatAndAfterExit(t *testing.T) {
	srv, l := compactionSetup(t, 0)
	ws := t.TempDir()
	t.Chdir(ws)
	a := openApp(t, l, false)
	defer func() { a.Close() }()

	srv.Script(llmtest.Reply{Text: "Hello."})
	approvedTurn(t, a, "first question")
	srv.Script(writeCall("one.txt", "one\n"), llmtest.Reply{Text: "Wrote one."})
	approvedTurn(t, a, "write one")
	if _, err := os.Stat(filepath.Join(ws, "one.txt")); err != nil {
		t.Fatal(err)
	}

	svc := a.Undo()
	turns, err := svc.Turns()
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 2 {
		t.Fatalf("Turns = %+v", turns)
	}
	res, err := svc.Rewind(context.Background(), turns[1].Seq, undo.Both, false)
	if err != nil {
		t.Fatal(err)
	}
	if res.Prompt != "write one" {
		t.Errorf("Prompt = %q", res.Prompt)
	}
	if _, err := os.Stat(filepath.Join(ws, "one.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("one.txt after /undo: %v", err)
	}
	srv.Script(llmtest.Reply{Text: "Sure."})
	approvedTurn(t, a, "next question")
	reqs := srv.Requests()
	last := reqs[len(reqs)-1]
	for _, m := range last.Body.Messages {
		if strings.Contains(m.Content, "write one") || len(m.ToolCalls) > 0 {
			t.Fatalf("the request after /undo still holds the undone turn: %+v", m)
		}
	}
	if !strings.Contains(string(last.Raw), "first question") {
		t.Fatal("the request after /undo lost the turn before it")
	}

	// A turn, then exit: co undo sees it.
	srv.Script(writeCall("two.txt", "two\n"), llmtest.Reply{Text: "Wrote two."})
	approvedTurn(t, a, "write two")
	a.Close()
	svc, closeUndo, err := OpenUndo(l, "")
	if err != nil {
		t.Fatal(err)
	}
	defer closeUndo()
	turns, err = svc.Turns()
	if err != nil {
		t.Fatal(err)
	}
	if len(turns) != 3 || turns[2].Prompt != "write two" || turns[2].Checkpoint == nil {
		t.Fatalf("co undo's turns = %+v", turns)
	}
	if _, err := svc.Rewind(context.Background(), turns[2].Seq, undo.Both, false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws, "two.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("two.txt after co undo: %v", err)
	}
}
