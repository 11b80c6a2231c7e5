package googlefake

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// The fields system parameter, as Google's APIs take it: a comma-separated
// field mask, a/b for a sub-field, a(b,c) for several, * for all. Drive
// answers only the fields asked for and, without the parameter, a default
// set per method (files.get and files.list: kind, id, name and mimeType of
// a file); about.get needs it. Sources: "Return specific fields",
// https://developers.google.com/workspace/drive/api/guides/fields-parameter,
// and "Partial response" under Google's system parameters,
// https://cloud.google.com/apis/docs/system-parameters. The fake applies
// it, so a tool that forgets to ask for a field (ownedByMe, say) does not
// see it here either.

// mask is a parsed field mask: each named field maps to the mask of its
// sub-fields, nil for all of them.
type mask map[string]mask

// parseMask reads a field mask.
func parseMask(s string) (mask, error) {
	p := &maskParser{s: strings.ReplaceAll(s, " ", "")}
	m := mask{}
	if err := p.list(m); err != nil {
		return nil, err
	}
	if p.i != len(p.s) {
		return nil, fmt.Errorf("unexpected %q at %d", p.s[p.i:], p.i)
	}
	return m, nil
}

type maskParser struct {
	s string
	i int
}

func (p *maskParser) list(into mask) error {
	for {
		if err := p.item(into); err != nil {
			return err
		}
		if p.i < len(p.s) && p.s[p.i] == ',' {
			p.i++
			continue
		}
		return nil
	}
}

func (p *maskParser) item(into mask) error {
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune(",/()", rune(p.s[p.i])) {
		p.i++
	}
	name := p.s[start:p.i]
	if name == "" {
		return fmt.Errorf("empty field name at %d", start)
	}
	var sub mask // nil: the whole field
	switch {
	case p.i < len(p.s) && p.s[p.i] == '/':
		p.i++
		sub = mask{}
		if err := p.item(sub); err != nil {
			return err
		}
	case p.i < len(p.s) && p.s[p.i] == '(':
		p.i++
		sub = mask{}
		if err := p.list(sub); err != nil {
			return err
		}
		if p.i >= len(p.s) || p.s[p.i] != ')' {
			return fmt.Errorf("unclosed ( in the field mask")
		}
		p.i++
	}
	merge(into, name, sub)
	return nil
}

// merge adds field name with sub-mask sub to m: a field named twice gets
// the union of both.
func merge(m mask, name string, sub mask) {
	old, seen := m[name]
	switch {
	case !seen:
		m[name] = sub
	case old == nil || sub == nil:
		m[name] = nil
	default:
		for k, v := range sub {
			merge(old, k, v)
		}
	}
}

// apply keeps only the fields of v that m names.
func (m mask) apply(v any) any {
	if m == nil {
		return v
	}
	switch v := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, x := range v {
			sub, ok := m[k]
			if !ok {
				if sub, ok = m["*"]; !ok {
					continue
				}
			}
			out[k] = sub.apply(x)
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = m.apply(x)
		}
		return out
	}
	return v
}

// writeMasked writes v as JSON with only the fields the request's fields
// parameter names, or those of def when it names none ("" for every
// field). A mask that does not parse is a 400, as on Google; a name the
// resource lacks selects nothing (Google answers 400 for that too: the
// fake is lenient there).
func writeMasked(w http.ResponseWriter, r *http.Request, def string, v any) {
	fields := r.URL.Query().Get("fields")
	if fields == "" {
		fields = def
	}
	if fields == "" {
		writeJSON(w, v)
		return
	}
	m, err := parseMask(fields)
	if err != nil {
		apiError(w, http.StatusBadRequest, "invalidParameter", "Invalid field selection "+fields+": "+err.Error())
		return
	}
	b, _ := json.Marshal(v)
	var generic any
	_ = json.Unmarshal(b, &generic)
	writeJSON(w, m.apply(generic))
}
