package sessions

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/co-cli/co/message"
)

// Issue 43: an exported session imported again resumes as the original:
// the same history for the model (the summary that replaced turns, the
// turns an undo took out left out), the same transcript (marks, asides,
// decisions, the reply being streamed when it was exported), a new id.
func TestExportImportResumesAsTheOriginal(t *testing.T) {
	s := open(t)
	r := s.New("/w")
	seqs := turnSeqs(t, r, 0, 4)
	must(t, r.Aside(message.Aside{Notice: "a notice"}))
	must(t, r.Append(message.Message{Role: message.RoleUser, Content: "run it"}))
	must(t, r.Append(message.Message{Role: message.RoleAssistant, ToolCalls: []message.ToolCall{{ID: "c1", Name: "run_shell_command", Args: `{"cmd":"ls"}`}}}))
	must(t, r.Decision("c1", "run_shell_command", message.ApproveOnce))
	must(t, r.Append(message.Message{Role: message.RoleTool, ToolCallID: "c1", ToolName: "run_shell_command", Content: "a b"}))
	must(t, s.SummariseFrom(r.ID(), seqs[1], "turns one and two"))
	undo := turnSeqs(t, r, 10, 1)
	_, err := s.UndoFrom(r.ID(), undo[0])
	must(t, err)
	must(t, r.Append(message.Message{Role: message.RoleUser, Content: "last"}))
	must(t, r.Draft("half a rep"))
	must(t, r.Usage(message.Usage{InputTokens: 900, OutputTokens: 70, CachedTokens: 300, Cost: 0.02, Unpriced: "mystery-1"}))

	d, err := s.Export(r.ID(), func(x string) string { return x })
	must(t, err)
	b, err := json.Marshal(d)
	must(t, err)
	back, err := ParseExport(b)
	must(t, err)
	id, err := s.Import(back, "/other")
	must(t, err)
	if id == r.ID() {
		t.Fatal("the import kept the id")
	}

	old, err := s.LoadResume(r.ID())
	must(t, err)
	imp, err := s.LoadResume(id)
	must(t, err)
	if !reflect.DeepEqual(old.History, imp.History) {
		t.Errorf("history to send:\noriginal %s\nimported %s", contents(old.History), contents(imp.History))
	}
	if !strings.Contains(contents(imp.History), "turns one and two") || strings.Contains(contents(imp.History), "question 10") {
		t.Errorf("the imported history lacks the summary or holds the undone turn: %s", contents(imp.History))
	}
	if len(old.Entries) != len(imp.Entries) {
		t.Fatalf("%d steps, want %d", len(imp.Entries), len(old.Entries))
	}
	for i := range old.Entries {
		o, n := old.Entries[i], imp.Entries[i]
		if !reflect.DeepEqual(o.Message, n.Message) || !reflect.DeepEqual(o.Decision, n.Decision) || !reflect.DeepEqual(o.Aside, n.Aside) || o.Undone != n.Undone {
			t.Errorf("step %d:\noriginal %+v\nimported %+v", i, o, n)
		}
	}
	if got, want := imp.Info.Usage(), old.Info.Usage(); got != want || want.Cost != 0.02 || want.CachedTokens != 300 {
		t.Errorf("imported usage %+v, want %+v", got, want)
	}
	if imp.Info.Workspace != "/other" || imp.Info.Turns != old.Info.Turns || imp.Info.Undone != 1 {
		t.Errorf("imported info %+v", imp.Info)
	}
	// The draft was imported as the interrupted reply it resumes as.
	if last := imp.History[len(imp.History)-1]; last.Content != "half a rep" || !last.Interrupted {
		t.Errorf("last message %+v", last)
	}
}

// A document that is not co's export, or of another version, is refused
// before anything is saved, with what was wrong.
func TestParseExportRefusesOtherDocuments(t *testing.T) {
	for name, c := range map[string]struct{ doc, want string }{
		"not json":      {"# a transcript", "not JSON"},
		"no format":     {`{"version":1}`, `no "format" field`},
		"other format":  {`{"format":"x","version":1}`, `its format is "x"`},
		"no version":    {`{"format":"co-session"}`, `no "version" field`},
		"newer":         {`{"format":"co-session","version":2}`, "version 2; this co reads version 1"},
		"two in a step": {`{"format":"co-session","version":1,"steps":[{"seq":1,"message":{"role":"user"},"decision":{}}]}`, "step 1 holds 2"},
		"seq repeated":  {`{"format":"co-session","version":1,"steps":[{"seq":1,"message":{"role":"user"}},{"seq":1,"message":{"role":"user"}}]}`, "seq 1 missing or repeated"},
	} {
		if _, err := ParseExport([]byte(c.doc)); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", name, err, c.want)
		}
	}
}
