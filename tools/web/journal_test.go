package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/journal"
)

// web_fetch and web_search journal each request a server received as not
// undoable, naming the URL or the query without secrets; a request that
// reached no server (refused by the guard) is not journalled.
func TestRequestsAreJournalledAsNotUndoable(t *testing.T) {
	page := serve(t, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		fmt.Fprint(w, "hello")
	})
	brave := serve(t, func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"web":{"results":[]}}`)
	})
	s := session(Options{BraveAPIKey: "brave-key-123456", BraveBaseURL: brave.URL + "/res/v1"}, page)
	j, err := journal.Open(t.TempDir(), "s-1")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	ctx = journal.WithTurn(ctx, j, 4, time.Now())
	run := func(name, args string) {
		t.Helper()
		for _, x := range s.Tools() {
			if x.Name() == name {
				_, _ = x.Run(ctx, json.RawMessage(args))
				return
			}
		}
		t.Fatalf("no tool %s", name)
	}
	token := "ghp_" + strings.Repeat("a1B2", 9)
	run("web_fetch", `{"url":"`+page.URL+`/doc?access_token=`+token+`"}`)
	run("web_fetch", `{"url":"`+page.URL+`/missing"}`)                     // 404: the server got it all the same
	run("web_fetch", `{"url":"http://169.254.169.254/latest/meta-data/"}`) // refused by the guard: no server got it
	run("web_search", `{"query":"release notes brave-key-123456"}`)

	es, err := j.List(4)
	if err != nil {
		t.Fatal(err)
	}
	want := []struct{ tool, has string }{
		{"web_fetch", "fetched " + page.URL + "/doc?access_token="},
		{"web_fetch", "/missing"},
		{"web_search", `searched the web for "release notes `},
	}
	if len(es) != len(want) {
		t.Fatalf("%d entries, want %d: %+v", len(es), len(want), es)
	}
	for i, e := range es {
		if e.Kind != journal.WebRequest || e.Undoable || e.WhyNot != journal.WhyWeb || e.Tool != want[i].tool || e.Turn != 4 ||
			!strings.Contains(e.What, want[i].has) {
			t.Errorf("entry %d: %+v, want %s saying %q", i, e, want[i].tool, want[i].has)
		}
		for _, secret := range []string{token, "brave-key-123456"} {
			if strings.Contains(e.What, secret) {
				t.Errorf("entry %d holds a secret: %q", i, e.What)
			}
		}
	}
	r := journal.NewRegistry()
	if _, err := r.Undo(ctx, j, es[0].Seq); err == nil || !strings.Contains(err.Error(), journal.WhyWeb) {
		t.Fatalf("undo of a web request: %v", err)
	}
}
