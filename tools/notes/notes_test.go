package notes

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/tools"
)

func vault(t testing.TB, files map[string]string) (*Vault, string) {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		full := filepath.Join(dir, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return New(dir), dir
}

func run(t testing.TB, v *Vault, name string, args map[string]any) (tools.Result, error) {
	t.Helper()
	if args == nil {
		args = map[string]any{}
	}
	raw, _ := json.Marshal(args)
	for _, x := range v.Tools() {
		if x.Name() == name {
			if err := tools.NewValidator().Validate(x, raw); err != nil {
				return tools.Result{}, err
			}
			return x.Run(context.Background(), raw)
		}
	}
	t.Fatalf("no tool %s", name)
	return tools.Result{}, nil
}

func ok(t testing.TB, v *Vault, name string, args map[string]any) tools.Result {
	t.Helper()
	r, err := run(t, v, name, args)
	if err != nil {
		t.Fatalf("%s(%v): %v", name, args, err)
	}
	return r
}

func wantRetry(t *testing.T, err error, want ...string) {
	t.Helper()
	if !tools.IsRetry(err) {
		t.Fatalf("err = %v, want a Retry", err)
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q lacks %q", err, w)
		}
	}
}

var sample = map[string]string{
	"Projects/Alpha.md": "---\ntags: [project/alpha, work]\n---\n# Alpha\nThe alpha project uses Go.\nDeadline in March.\n",
	"Projects/Beta.md":  "---\ntags:\n  - project/beta\n  - \"#work\"\n---\nBeta uses Python and some Go.\n",
	"Daily/2026-01-02.md": "Met Ana about the alpha launch. #meeting #people/ana\n```\n#notatag in code\n```\n" +
		"Inline `#code` is not a tag, nor is a heading:\n# Heading\nNor #123, but #y2026 is.\n",
	"Ideas.md":               "tags: not front matter\nGopher ideas: goroutines, go-kit.\n",
	"Strings.md":             "---\ntag: solo, other\n---\nnothing\n",
	".obsidian/workspace.md": "alpha alpha alpha",
	".trash/Old.md":          "alpha",
	"image.png":              "\x89PNG\x00 alpha",
}

func TestSearchNotes(t *testing.T) {
	v, _ := vault(t, sample)
	r := ok(t, v, "search_notes", map[string]any{"query": "alpha"})
	if r.Meta["count"] != 2 || r.Meta["has_more"] != false {
		t.Fatalf("meta = %v\n%s", r.Meta, r.Display)
	}
	// The note named Alpha ranks first; snippets carry line numbers and the
	// original case.
	// "project/alpha" counts: / is a word boundary.
	want := "1. Projects/Alpha.md\n   2: tags: [project/alpha, work]\n   4: # Alpha\n   5: The alpha project uses Go.\n2. Daily/2026-01-02.md\n   1: Met Ana about the alpha launch. #meeting #people/ana"
	if r.Display != want {
		t.Errorf("display:\n%s\nwant:\n%s", r.Display, want)
	}
	if strings.Contains(r.Display, ".obsidian") || strings.Contains(r.Display, ".trash") || strings.Contains(r.Display, "png") {
		t.Errorf("hidden folders and non-notes are not searched:\n%s", r.Display)
	}

	// Every keyword must match, on word boundaries, ignoring case.
	r = ok(t, v, "search_notes", map[string]any{"query": "GO alpha"})
	if r.Meta["count"] != 1 || !strings.Contains(r.Display, "Alpha.md") {
		t.Errorf("AND: %v\n%s", r.Meta, r.Display)
	}
	r = ok(t, v, "search_notes", map[string]any{"query": "go"})
	for _, n := range []string{"Alpha.md", "Beta.md", "Ideas.md"} { // "go-kit" has go as a word; "goroutines", "Gopher" do not
		if !strings.Contains(r.Display, n) {
			t.Errorf("go should find %s:\n%s", n, r.Display)
		}
	}
	r = ok(t, v, "search_notes", map[string]any{"query": "goroutine"})
	if r.Meta["count"] != 0 {
		t.Errorf("word boundary: goroutine must not match goroutines:\n%s", r.Display)
	}
	r = ok(t, v, "search_notes", map[string]any{"query": `"alpha project"`})
	if r.Meta["count"] != 1 {
		t.Errorf("phrase: %v", r.Meta)
	}
	r = ok(t, v, "search_notes", map[string]any{"query": "alpha", "limit": 1})
	if r.Meta["count"] != 1 || r.Meta["has_more"] != true || r.Meta["total"] != 2 || !strings.Contains(r.Display, "1 of 2 matching notes shown") {
		t.Errorf("limit: %v\n%s", r.Meta, r.Display)
	}
	r = ok(t, v, "search_notes", map[string]any{"query": "nonexistentword"})
	if r.Meta["count"] != 0 || r.Display != `No notes match all of: "nonexistentword".` {
		t.Errorf("no match is a result: %v %q", r.Meta, r.Display)
	}
	_, err := run(t, v, "search_notes", map[string]any{"query": "   "})
	wantRetry(t, err, "query is empty")
}

func TestTags(t *testing.T) {
	v, _ := vault(t, sample)
	r := ok(t, v, "list_notes", nil)
	want := "Daily/2026-01-02.md  #meeting #people/ana #y2026\nIdeas.md\nProjects/Alpha.md  #project/alpha #work\nProjects/Beta.md  #project/beta #work\nStrings.md  #solo #other"
	if r.Display != want || r.Meta["count"] != 5 {
		t.Errorf("list:\n%s\nwant:\n%s", r.Display, want)
	}
	for tag, n := range map[string]int{"work": 2, "#project": 2, "project/alpha": 1, "PEOPLE": 1, "solo": 1, "notatag": 0, "code": 0, "123": 0, "heading": 0} {
		r := ok(t, v, "list_notes", map[string]any{"tag": tag})
		if r.Meta["count"] != n {
			t.Errorf("tag %q: %v notes, want %d\n%s", tag, r.Meta["count"], n, r.Display)
		}
	}
	r = ok(t, v, "list_notes", map[string]any{"tag": "nope"})
	if r.Display != "No notes are tagged #nope." {
		t.Errorf("%q", r.Display)
	}
	r = ok(t, v, "list_notes", map[string]any{"limit": 2})
	if r.Meta["has_more"] != true || r.Meta["total"] != 5 {
		t.Errorf("limit: %v", r.Meta)
	}
}

func TestParseTags(t *testing.T) {
	for _, c := range []struct {
		name, text string
		want       []string
	}{
		{"flow list", "---\ntags: [a, \"b\", '#c']\n---\n", []string{"a", "b", "c"}},
		{"block list", "---\ntitle: x\ntags:\n- a\n  - b\nother: y\n---\n", []string{"a", "b"}},
		{"string with spaces", "---\ntags: a b\n---\n", []string{"a", "b"}},
		{"string with commas", "---\nTags: a,b\n---\n", []string{"a", "b"}},
		{"tag key", "---\ntag: x\n---\n", []string{"x"}},
		{"CRLF", "---\r\ntags: [a]\r\n---\r\n#b\r\n", []string{"a", "b"}},
		{"unclosed front matter", "---\ntags: [a]\n", nil},
		{"inline", "text #one, (#two) x#no #three/four #5 #", []string{"one", "two", "three/four"}},
		{"dedup and case", "#Go #go", []string{"go"}},
		{"fenced", "~~~\n#no\n~~~\n#yes", []string{"yes"}},
	} {
		if got := parseTags(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

func TestReadNote(t *testing.T) {
	v, dir := vault(t, sample)
	r := ok(t, v, "read_note", map[string]any{"filename": "Projects/Alpha.md"})
	if r.Display != sample["Projects/Alpha.md"] || r.Meta["path"] != "Projects/Alpha.md" || r.Meta["truncated"] != false {
		t.Errorf("read: %q %v", r.Display, r.Meta)
	}
	r = ok(t, v, "read_note", map[string]any{"filename": "Projects/Beta"})
	if r.Meta["path"] != "Projects/Beta.md" {
		t.Errorf(".md may be left out: %v", r.Meta)
	}
	r = ok(t, v, "read_note", map[string]any{"filename": "Projects/Alpha.md", "max_chars": 10})
	if r.Meta["truncated"] != true || !strings.HasPrefix(r.Display, "---\ntags: ") || !strings.Contains(r.Display, "[cut at max_chars=10") {
		t.Errorf("truncated: %q", r.Display)
	}

	_, err := run(t, v, "read_note", map[string]any{"filename": "Projects/Alfa.md"})
	wantRetry(t, err, `no note "Projects/Alfa.md"`, `"Projects/Alpha.md"`)
	_, err = run(t, v, "read_note", map[string]any{"filename": "beta"})
	wantRetry(t, err, `"Projects/Beta.md"`)
	_, err = run(t, v, "read_note", map[string]any{"filename": "zzzzzzzzzzzz"})
	wantRetry(t, err, "list_notes")

	// Bounded to the vault like the file tools.
	outside := filepath.Join(filepath.Dir(dir), "secret.md")
	if err := os.WriteFile(outside, []byte("SECRET"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../secret.md", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "abs.md")); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"../secret.md", outside, "link.md", "abs.md", "a\x00.md", `..\secret.md`} {
		r, err := run(t, v, "read_note", map[string]any{"filename": p})
		if !tools.IsRetry(err) || strings.Contains(r.Display, "SECRET") {
			t.Errorf("read_note(%q) = %q, %v", p, r.Display, err)
		}
	}
	_, err = run(t, v, "read_note", map[string]any{"filename": "link.md"})
	wantRetry(t, err, "leads outside the vault")
	_, err = run(t, v, "read_note", map[string]any{"filename": "Projects"})
	wantRetry(t, err, "directory")
	_, err = run(t, v, "read_note", map[string]any{"filename": "image.png"})
	wantRetry(t, err, "not a text note")
	// A symlink out is not followed when searching either.
	r = ok(t, v, "search_notes", map[string]any{"query": "secret"})
	if r.Meta["count"] != 0 {
		t.Errorf("search followed a symlink out:\n%s", r.Display)
	}
}

func TestNoVault(t *testing.T) {
	args := map[string]map[string]any{
		"search_notes": {"query": "x"}, "list_notes": {}, "read_note": {"filename": "x"},
	}
	for _, c := range []struct {
		v    *Vault
		want string
	}{
		{New(""), "no Obsidian vault is configured"},
		{New(filepath.Join(t.TempDir(), "missing")), "cannot be opened"},
	} {
		for name, a := range args {
			_, err := run(t, c.v, name, a)
			wantRetry(t, err, c.want, "OBSIDIAN_VAULT_PATH")
		}
	}
}

func TestCacheSeesChanges(t *testing.T) {
	v, dir := vault(t, map[string]string{"a.md": "apple", "b.md": "banana"})
	if r := ok(t, v, "search_notes", map[string]any{"query": "apple"}); r.Meta["count"] != 1 {
		t.Fatal(r.Display)
	}
	// Edit (new size and time), add and delete notes: the next search sees it.
	p := filepath.Join(dir, "a.md")
	if err := os.WriteFile(p, []byte("cherry pie"), 0o644); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Minute)
	if err := os.Chtimes(p, later, later); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "c.md"), []byte("apple again"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(dir, "b.md"))
	r := ok(t, v, "search_notes", map[string]any{"query": "apple"})
	if r.Meta["count"] != 1 || !strings.Contains(r.Display, "c.md") {
		t.Errorf("after changes: %s", r.Display)
	}
	if r := ok(t, v, "search_notes", map[string]any{"query": "cherry"}); r.Meta["count"] != 1 {
		t.Errorf("edited note not re-read: %s", r.Display)
	}
	if r := ok(t, v, "search_notes", map[string]any{"query": "banana"}); r.Meta["count"] != 0 {
		t.Errorf("deleted note still found: %s", r.Display)
	}
	v.mu.Lock()
	n := len(v.cache)
	v.mu.Unlock()
	if n != 2 {
		t.Errorf("cache has %d notes, want 2", n)
	}
}
