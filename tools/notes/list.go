package notes

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/co-cli/co/tools"
)

// ListNotes is list_notes.
type ListNotes struct{ v *Vault }

func (t *ListNotes) Name() string       { return "list_notes" }
func (t *ListNotes) Class() tools.Class { return tools.ReadOnly }
func (t *ListNotes) Description() string {
	return "List the user's Obsidian notes (paths in the vault) with their tags, optionally only those with a tag. " +
		"Tags come from the front matter (tags: as a list or a string) and from #tags in the text; a tag also matches its nested tags " +
		"(project matches project/alpha). At most limit notes (default 200); has_more says when there are more: for them, call again with a larger limit."
}
func (t *ListNotes) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"tag":{"type":"string","description":"Only notes with this tag (with or without #)."},` +
		`"limit":{"type":"integer","minimum":1,"maximum":2000,"description":"Most notes to return (default 200)."}` +
		`},"additionalProperties":false}`)
}

func (t *ListNotes) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Tag   string `json:"tag"`
		Limit int    `json:"limit"`
	}
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	tag := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(a.Tag), "#"))
	limit := tools.Clamp(a.Limit, DefaultListLimit, MaxListLimit)
	r, err := t.v.open()
	if err != nil {
		return tools.Result{}, err
	}
	defer r.Close()
	notes, err := t.v.notes(ctx, r)
	if err != nil {
		return tools.Result{}, err
	}
	var lines []string
	var origins []tools.Origin
	total := 0
	for _, n := range notes {
		if tag != "" && !hasTag(n.tags, tag) {
			continue
		}
		total++
		if len(lines) == limit {
			continue
		}
		if n.clipped {
			// Its name is the page's title (the clipper's "{{title}}").
			origins = addOrigin(origins, tools.UntrustedPrivate("notes", "note names clipped from the web"))
		}
		line := n.rel
		if len(n.tags) > 0 {
			line += "  #" + strings.Join(n.tags, " #")
		}
		lines = append(lines, line)
	}
	meta := map[string]any{"count": len(lines), "has_more": total > len(lines), "total": total}
	if total == 0 {
		msg := "The vault has no notes."
		if tag != "" {
			msg = fmt.Sprintf("No notes are tagged #%s.", tag)
		}
		return tools.Result{Display: msg, Meta: meta}, nil
	}
	display := strings.Join(lines, "\n")
	if total > len(lines) {
		display += fmt.Sprintf("\n[%d of %d notes shown; raise limit or filter by tag]", len(lines), total)
	}
	return tools.Result{Display: display, Meta: meta, Origins: origins}, nil
}
