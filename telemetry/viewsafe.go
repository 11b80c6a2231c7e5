package telemetry

import "github.com/co-cli/co/lib/safe"

// The web viewers (co traces' page, co logs' API) show span text with
// textContent, so it is never HTML; it goes through the same sanitiser as
// the terminal's (lib/safe) so that escape
// sequences, C1 controls and bidi overrides from tools and models are shown
// as visible marks (␛, <U+202E>), not hidden in, or reordering, the page.

func safeSpans(spans []Span) []Span {
	out := make([]Span, len(spans))
	for i, s := range spans {
		s.ID, s.TraceID, s.ParentID = safe.Text(s.ID), safe.Text(s.TraceID), safe.Text(s.ParentID)
		s.Name, s.Kind = safe.Text(s.Name), safe.Text(s.Kind)
		s.StatusCode, s.StatusDescription = safe.Text(s.StatusCode), safe.Text(s.StatusDescription)
		s.Attributes = safeMap(s.Attributes)
		s.Resource = safeMap(s.Resource)
		if s.Events != nil {
			evs := make([]StoredEvent, len(s.Events))
			for j, ev := range s.Events {
				ev.Name = safe.Text(ev.Name)
				ev.Attributes = safeMap(ev.Attributes)
				evs[j] = ev
			}
			s.Events = evs
		}
		out[i] = s
	}
	return out
}

func safeMap(m map[string]any) map[string]any {
	if m == nil {
		return nil
	}
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[safe.Text(k)] = safeValue(v)
	}
	return out
}

func safeValue(v any) any {
	switch x := v.(type) {
	case string:
		return safe.Text(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = safeValue(e)
		}
		return out
	case map[string]any:
		return safeMap(x)
	}
	return v
}

func safeStrings(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = safe.Text(s)
	}
	return out
}

func safeTraces(ts []TraceSummary) []TraceSummary {
	out := make([]TraceSummary, len(ts))
	for i, t := range ts {
		t.TraceID, t.SessionID = safe.Text(t.TraceID), safe.Text(t.SessionID)
		t.Root, t.Prompt = safe.Text(t.Root), safe.Text(t.Prompt)
		t.Tools = safeStrings(t.Tools)
		out[i] = t
	}
	return out
}

func safeSessions(ss []SessionSummary) []SessionSummary {
	out := make([]SessionSummary, len(ss))
	for i, s := range ss {
		s.SessionID, s.Version = safe.Text(s.SessionID), safe.Text(s.Version)
		out[i] = s
	}
	return out
}
