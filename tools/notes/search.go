package notes

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/internal/pathsafe"
)

// SearchNotes is search_notes.
type SearchNotes struct{ v *Vault }

func (t *SearchNotes) Name() string       { return "search_notes" }
func (t *SearchNotes) Class() tools.Class { return tools.ReadOnly }
func (t *SearchNotes) Description() string {
	return "Search the user's Obsidian notes. Every keyword must appear in a note (in its text or its name) as a whole word, ignoring case; " +
		"put a phrase in double quotes to match it as one keyword. Returns the best matching notes with their matching lines (line: text), " +
		"at most limit (default 10); has_more says when more notes match: for them, call again with a larger limit. Read a whole note with read_note."
}
func (t *SearchNotes) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"query":{"type":"string","description":"Keywords, all of which must match; \"quoted phrases\" match as one."},` +
		`"limit":{"type":"integer","minimum":1,"maximum":50,"description":"Most notes to return (default 10)."}` +
		`},"required":["query"],"additionalProperties":false}`)
}

// keywords splits a query into lower-cased keywords; "quoted phrases" stay
// whole.
func keywords(q string) []string {
	var out []string
	q = strings.ToLower(q)
	for q != "" {
		q = strings.TrimLeftFunc(q, unicode.IsSpace)
		if q == "" {
			break
		}
		var kw string
		if q[0] == '"' {
			end := strings.IndexByte(q[1:], '"')
			if end < 0 {
				kw, q = q[1:], ""
			} else {
				kw, q = q[1:1+end], q[2+end:]
			}
			kw = strings.Join(strings.Fields(kw), " ")
		} else {
			end := strings.IndexFunc(q, unicode.IsSpace)
			if end < 0 {
				end = len(q)
			}
			kw, q = q[:end], q[end:]
		}
		if kw = strings.TrimSpace(kw); kw != "" {
			out = append(out, kw)
		}
	}
	return out
}

func isWord(r rune) bool { return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) }

// wordAt reports whether kw occurs in s at i as a whole word: no word
// character just before it (when kw starts with one) or just after it
// (when kw ends with one).
func wordAt(s, kw string, i int) bool {
	first, _ := utf8.DecodeRuneInString(kw)
	last, _ := utf8.DecodeLastRuneInString(kw)
	if isWord(first) && i > 0 {
		if r, _ := utf8.DecodeLastRuneInString(s[:i]); isWord(r) {
			return false
		}
	}
	if j := i + len(kw); isWord(last) && j < len(s) {
		if r, _ := utf8.DecodeRuneInString(s[j:]); isWord(r) {
			return false
		}
	}
	return true
}

// countWord counts whole-word occurrences of kw in s, stopping at max.
func countWord(s, kw string, max int) int {
	n := 0
	for off := 0; off < len(s) && n < max; {
		i := strings.Index(s[off:], kw)
		if i < 0 {
			break
		}
		if wordAt(s, kw, off+i) {
			n++
		}
		off += i + len(kw)
	}
	return n
}

type hit struct {
	n     *note
	score int
}

func (t *SearchNotes) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	kws := keywords(a.Query)
	if len(kws) == 0 {
		return tools.Result{}, tools.Retryf("query is empty: give one or more keywords")
	}
	limit := tools.Clamp(a.Limit, DefaultSearchLimit, MaxSearchLimit)
	r, err := t.v.open()
	if err != nil {
		return tools.Result{}, err
	}
	defer r.Close()
	notes, err := t.v.notes(ctx, r)
	if err != nil {
		return tools.Result{}, err
	}
	var hits []hit
	for _, n := range notes {
		name := strings.ToLower(title(n.rel))
		score := 0
		for _, kw := range kws {
			inName := countWord(name, kw, 1)
			inText := countWord(n.lower, kw, 20)
			if inName+inText == 0 {
				score = -1
				break
			}
			score += inText + 10*inName
		}
		if score > 0 {
			hits = append(hits, hit{n, score})
		}
	}
	sort.Slice(hits, func(i, j int) bool {
		if hits[i].score != hits[j].score {
			return hits[i].score > hits[j].score
		}
		return hits[i].n.rel < hits[j].n.rel
	})
	total := len(hits)
	hasMore := total > limit
	if hasMore {
		hits = hits[:limit]
	}
	meta := map[string]any{"count": len(hits), "has_more": hasMore, "total": total}
	if total == 0 {
		return tools.Result{Display: fmt.Sprintf("No notes match all of: %s.", strings.Join(quoteAll(kws), ", ")), Meta: meta}, nil
	}
	var b strings.Builder
	var origins []tools.Origin
	for i, h := range hits {
		if o, ok := h.n.origin(); ok {
			origins = addOrigin(origins, o)
		}
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "%d. %s", i+1, h.n.rel)
		for _, s := range snippets(r, h.n, kws, 3) {
			b.WriteString("\n   " + s)
		}
	}
	if hasMore {
		fmt.Fprintf(&b, "\n[%d of %s shown; raise limit or add keywords to narrow]", len(hits), plural(total, "matching note", "matching notes"))
	}
	return tools.Result{Display: b.String(), Meta: meta, Origins: origins}, nil
}

func quoteAll(kws []string) []string {
	out := make([]string, len(kws))
	for i, k := range kws {
		out[i] = fmt.Sprintf("%q", k)
	}
	return out
}

// snippets are up to max lines of n with keywords, as "line: text", the
// lines with the most distinct keywords first, shown in file order. The
// text is the note's own (read again), not the lower-cased copy.
func snippets(r *pathsafe.Root, n *note, kws []string, max int) []string {
	lower := strings.Split(n.lower, "\n")
	orig := lower
	if b, _, err := r.ReadFile(n.rel, MaxNoteBytes); err == nil {
		if o := strings.Split(string(b), "\n"); len(o) == len(lower) {
			orig = o
		}
	}
	type cand struct{ line, kinds int }
	var cs []cand
	for i, l := range lower {
		k := 0
		for _, kw := range kws {
			if countWord(l, kw, 1) > 0 {
				k++
			}
		}
		if k > 0 {
			cs = append(cs, cand{i, k})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].kinds > cs[j].kinds })
	if len(cs) > max {
		cs = cs[:max]
	}
	sort.Slice(cs, func(i, j int) bool { return cs[i].line < cs[j].line })
	out := make([]string, len(cs))
	for i, c := range cs {
		text := strings.TrimSpace(strings.TrimSuffix(orig[c.line], "\r"))
		if utf8.RuneCountInString(text) > maxSnippet {
			text = string([]rune(text)[:maxSnippet]) + " …"
		}
		out[i] = fmt.Sprintf("%d: %s", c.line+1, text)
	}
	return out
}

const maxSnippet = 200
