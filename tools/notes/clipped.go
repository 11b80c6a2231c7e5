package notes

import (
	"net/url"
	"strings"

	"github.com/co-cli/co/tools"
)

// A note clipped from the web is the page's words, not the user's: it is
// untrusted content (tools.Origin), with the page as its source. The
// Obsidian Web Clipper's default template (obsidianmd/obsidian-clipper,
// src/managers/template-manager.ts, createDefaultTemplate) writes the
// page's address as the property source ("{{url}}"), the tag clippings,
// and puts the note in the folder Clippings/ (since then
// "Clippings/{{domain…}}": src/managers/template-defaults.ts,
// DEFAULT_TEMPLATE_PATH). So a note is clipped when its front matter has a
// source or url property holding an http(s) URL, or it is tagged
// clippings, or it sits under a top folder named Clippings. A note the
// user wrote with a source: property is counted too (its words may be the
// page's); a vault synced or shared with others is not told apart (see the
// docs/untrusted-content.md, "What it does not stop").

// clipping says whether the note at rel, of text and tags, was clipped
// from the web, and from where ("" when the note names no page).
func clipping(rel, text string, tags []string) (from string, clipped bool) {
	fm, _ := frontMatter(text)
	for _, line := range strings.Split(fm, "\n") {
		key, val, ok := strings.Cut(strings.TrimRight(line, "\r"), ":")
		if !ok || strings.HasPrefix(key, " ") || strings.HasPrefix(key, "\t") {
			continue
		}
		if k := strings.ToLower(strings.TrimSpace(key)); k != "source" && k != "url" {
			continue
		}
		val = strings.Trim(strings.TrimSpace(val), `"'`)
		if u, err := url.Parse(val); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" {
			return u.Host + u.EscapedPath(), true
		}
	}
	top, _, nested := strings.Cut(rel, "/")
	if (nested && strings.EqualFold(top, "Clippings")) || hasTag(tags, "clippings") {
		return "", true
	}
	return "", false
}

// origin is where n's words come from: none for the user's own note.
func (n *note) origin() (tools.Origin, bool) {
	if !n.clipped {
		return tools.Origin{}, false
	}
	if n.from != "" {
		return tools.UntrustedPrivate("notes", "note clipped from "+n.from), true
	}
	return tools.UntrustedPrivate("notes", "clipped note "+n.rel), true
}

// addOrigin appends o unless an origin of that label is there already.
func addOrigin(list []tools.Origin, o tools.Origin) []tools.Origin {
	for _, x := range list {
		if x.Label == o.Label {
			return list
		}
	}
	return append(list, o)
}
