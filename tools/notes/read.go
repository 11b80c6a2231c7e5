package notes

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/internal/pathsafe"
)

// ReadNote is read_note.
type ReadNote struct{ v *Vault }

func (t *ReadNote) Name() string       { return "read_note" }
func (t *ReadNote) Class() tools.Class { return tools.ReadOnly }
func (t *ReadNote) Description() string {
	return "Read one of the user's Obsidian notes: filename is its path in the vault as list_notes or search_notes show it " +
		"(the .md may be left out). Returns the note's text, at most max_chars characters (default 50000). " +
		"When no note has that name, the error suggests the closest names."
}
func (t *ReadNote) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"filename":{"type":"string","description":"The note's path in the vault, e.g. Projects/Alpha.md."},` +
		`"max_chars":{"type":"integer","minimum":1,"maximum":200000,"description":"Most characters to return (default 50000)."}` +
		`},"required":["filename"],"additionalProperties":false}`)
}

func (t *ReadNote) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Filename string `json:"filename"`
		MaxChars int    `json:"max_chars"`
	}
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	r, err := t.v.open()
	if err != nil {
		return tools.Result{}, err
	}
	defer r.Close()
	rel, err := r.Clean(strings.TrimSpace(a.Filename))
	if err != nil {
		return tools.Result{}, retry(err)
	}
	if rel == "." {
		return tools.Result{}, tools.Retryf("filename is empty: give the note's path in the vault (list_notes shows them)")
	}
	b, _, err := r.ReadFile(rel, MaxNoteBytes)
	if pathsafe.IsKind(err, pathsafe.NotFound) && !strings.HasSuffix(strings.ToLower(rel), ".md") {
		if b2, _, err2 := r.ReadFile(rel+".md", MaxNoteBytes); err2 == nil || !pathsafe.IsKind(err2, pathsafe.NotFound) {
			rel, b, err = rel+".md", b2, err2
		}
	}
	if pathsafe.IsKind(err, pathsafe.NotFound) {
		return tools.Result{}, t.notFound(ctx, r, rel)
	}
	if err != nil {
		return tools.Result{}, retry(err)
	}
	if bytes.IndexByte(b, 0) >= 0 {
		return tools.Result{}, tools.Retryf("%q is not a text note (it has NUL bytes)", rel)
	}
	text := strings.ToValidUTF8(string(b), "\uFFFD")
	n := &note{rel: rel, tags: parseTags(text)}
	n.from, n.clipped = clipping(rel, text, n.tags)
	var origins []tools.Origin
	if o, ok := n.origin(); ok {
		origins = []tools.Origin{o}
	}
	max := tools.Clamp(a.MaxChars, DefaultReadChars, MaxReadChars)
	meta := map[string]any{"path": rel, "truncated": false}
	if n := utf8.RuneCountInString(text); n > max {
		text = string([]rune(text)[:max]) + fmt.Sprintf("\n[cut at max_chars=%d of %d characters]", max, n)
		meta["truncated"] = true
	}
	if strings.TrimSpace(text) == "" {
		text = "(empty note)"
	}
	return tools.Result{Display: text, Meta: meta, Origins: origins}, nil
}

// notFound is the Retry for a missing note, with the closest names.
func (t *ReadNote) notFound(ctx context.Context, r *pathsafe.Root, rel string) error {
	refs, _ := walk(ctx, r)
	want := strings.ToLower(title(rel))
	type cand struct {
		rel  string
		dist int
	}
	var cs []cand
	for _, rf := range refs {
		name := strings.ToLower(title(rf.rel))
		d := distance(want, name)
		if strings.Contains(name, want) || strings.Contains(want, name) {
			d = min(d, 1+abs(len(name)-len(want))/4)
		}
		if d <= max(2, len([]rune(want))/2) {
			cs = append(cs, cand{rf.rel, d})
		}
	}
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].dist != cs[j].dist {
			return cs[i].dist < cs[j].dist
		}
		return cs[i].rel < cs[j].rel
	})
	if len(cs) > 3 {
		cs = cs[:3]
	}
	if len(cs) == 0 {
		return tools.Retryf("there is no note %q in the vault; list_notes or search_notes show the notes there are", rel)
	}
	names := make([]string, len(cs))
	for i, c := range cs {
		names[i] = fmt.Sprintf("%q", c.rel)
	}
	return tools.Retryf("there is no note %q in the vault; the closest names are %s", rel, strings.Join(names, ", "))
}

// distance is the Levenshtein distance between a and b, by runes.
func distance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	if len(ra) > 200 || len(rb) > 200 {
		return 1 << 20
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// retry turns a refused path into a Retry for the model.
func retry(err error) error {
	if pe, ok := err.(*pathsafe.Error); ok {
		return &tools.Retry{Msg: pe.Msg}
	}
	return err
}
