package google_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/tools/google"
)

// create_email_draft returns the draft id Gmail answered and journals it;
// undo deletes that draft. A draft Gmail refused journals nothing.
func TestDraftIsJournalledAndDeleted(t *testing.T) {
	f := newFixture(t, nil)
	j, err := journal.Open(t.TempDir(), "s-1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ctx = journal.WithTurn(ctx, j, 5, time.Now())
	draft := f.tools[google.NameCreateEmailDraft]

	f.srv.Fail("/gmail/v1/users/me/drafts", 403, "insufficientPermissions", "", 1)
	if _, err := draft.Run(ctx, json.RawMessage(`{"to":"bob@example.com","subject":"Refused","body":"x"}`)); err == nil {
		t.Fatal("a refused draft succeeded")
	}
	res, err := draft.Run(ctx, json.RawMessage(`{"to":"bob@example.com, cy@example.com, di@example.com, ed@example.com","subject":"Hello","body":"Hi all"}`))
	if err != nil {
		t.Fatal(err)
	}
	ds := f.srv.Drafts()
	if len(ds) != 1 || res.Meta["draft_id"] != ds[0].ID || ds[0].ID == ds[0].MessageID {
		t.Fatalf("result meta %v, Gmail holds %d drafts: want the draft's id (not its message's)", res.Meta, len(ds))
	}
	es, err := j.List(5)
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 1 {
		t.Fatalf("%d entries, want the one draft: %+v", len(es), es)
	}
	e := es[0]
	var h journal.DraftHandle
	if err := json.Unmarshal(e.Handle, &h); err != nil {
		t.Fatal(err)
	}
	if e.Kind != journal.GmailDraft || !e.Undoable || e.Tool != google.NameCreateEmailDraft || h.ID != ds[0].ID {
		t.Fatalf("entry %+v handle %+v, want draft %s", e, h, ds[0].ID)
	}
	if !strings.Contains(e.What, `bob@example.com, cy@example.com, di@example.com and 1 more: "Hello"`) {
		t.Errorf("what: %q", e.What)
	}

	r := journal.NewRegistry()
	r.Gmail(f.acct)
	if out, err := r.Undo(ctx, j, e.Seq); err != nil || out.Outcome != journal.Undone {
		t.Fatalf("undo: %+v %v", out, err)
	}
	if ds := f.srv.Drafts(); len(ds) != 0 {
		t.Fatalf("after undo Gmail holds %d drafts", len(ds))
	}
}
