package telemetry

import "github.com/co-cli/co/internal/termsafe"

// The web viewers (co traces' page, co logs' API) show span text with
// textContent, so it is never HTML; it goes through the same sanitiser as
// the terminal's (internal/termsafe, the rules of ui/safe) so that escape
// sequences, C1 controls and bidi overrides from tools and models are shown
// as visible marks (␛, <U+202E>), not hidden in, or reordering, the page.

func safeSpans(spans []Span) []Span {
	out := make([]Span, len(spans))
	for i, s := range spans {
		s.ID, s.TraceID, s.ParentID = termsafe.Text(s.ID), termsafe.Text(s.TraceID), termsafe.Text(s.ParentID)
		s.Name, s.Kind = termsafe.Text(s.Name), termsafe.Text(s.Kind)
		s.StatusCode, s.StatusDescription = termsafe.Text(s.StatusCode), termsafe.Text(s.StatusDescription)
		s.Attributes = safeMap(s.Attributes)
		s.Resource = safeMap(s.Resource)
		if s.Events != nil {
			evs := make([]StoredEvent, len(s.Events))
			for j, ev := range s.Events {
				ev.Name = termsafe.Text(ev.Name)
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
		out[termsafe.Text(k)] = safeValue(v)
	}
	return out
}

func safeValue(v any) any {
	switch x := v.(type) {
	case string:
		return termsafe.Text(x)
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
		out[i] = termsafe.Text(s)
	}
	return out
}

func safeTraces(ts []TraceSummary) []TraceSummary {
	out := make([]TraceSummary, len(ts))
	for i, t := range ts {
		t.TraceID, t.SessionID = termsafe.Text(t.TraceID), termsafe.Text(t.SessionID)
		t.Root, t.Prompt = termsafe.Text(t.Root), termsafe.Text(t.Prompt)
		t.Tools = safeStrings(t.Tools)
		out[i] = t
	}
	return out
}

func safeSessions(ss []SessionSummary) []SessionSummary {
	out := make([]SessionSummary, len(ss))
	for i, s := range ss {
		s.SessionID, s.Version = termsafe.Text(s.SessionID), termsafe.Text(s.Version)
		out[i] = s
	}
	return out
}
