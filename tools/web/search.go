package web

import (
	"context"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/co-cli/co/tools"
)

// ConfigHint says how to turn web_search on.
const ConfigHint = "set BRAVE_SEARCH_API_KEY (or brave_search_api_key in ~/.config/co-cli/settings.json) to a Brave Search API key"

// Search is web_search.
type Search struct{ s *Session }

func (t *Search) Name() string       { return "web_search" }
func (t *Search) Class() tools.Class { return tools.ReadOnly }
func (t *Search) Description() string {
	return "Search the web with Brave Search. Returns up to count results (default 5, at most 20), each with its title, URL and a snippet. " +
		"Fetch a result's page with web_fetch (URLs from results run without asking)."
}
func (t *Search) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"query":{"type":"string","description":"What to search for."},` +
		`"count":{"type":"integer","minimum":1,"maximum":20,"description":"How many results (default 5)."}` +
		`},"required":["query"],"additionalProperties":false}`)
}

// Result is one search result.
type Result struct {
	Title   string `json:"title"`
	URL     string `json:"url"`
	Snippet string `json:"snippet"`
}

type braveResponse struct {
	Web struct {
		Results []struct {
			Title       string `json:"title"`
			URL         string `json:"url"`
			Description string `json:"description"`
		} `json:"results"`
	} `json:"web"`
}

// Check runs a search without asking: the query goes only to the search
// endpoint the user configured. It is outbound all the same (the query is
// the model's words), so after untrusted content and private data it asks.
func (t *Search) Check(_ context.Context, raw json.RawMessage) tools.Check {
	var a struct {
		Query string `json:"query"`
	}
	_ = json.Unmarshal(raw, &a)
	return tools.Check{Decision: tools.Allow, Reason: "the query goes only to your search endpoint",
		Outbound: &tools.Outbound{To: "Brave Search (" + t.s.opts.BraveBaseURL + ")", What: "query: " + a.Query, UserHost: true}}
}

func (t *Search) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Query string `json:"query"`
		Count int    `json:"count"`
	}
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	s := t.s
	if s.opts.BraveAPIKey == "" {
		return tools.Result{}, tools.Retryf("web search is not configured: %s", ConfigHint)
	}
	q := strings.TrimSpace(a.Query)
	if q == "" {
		return tools.Result{}, tools.Retryf("query is empty: say what to search for")
	}
	count := tools.Clamp(a.Count, DefaultCount, MaxCount)
	endpoint := strings.TrimRight(s.opts.BraveBaseURL, "/") + "/web/search?" + url.Values{"q": {q}, "count": {fmt.Sprint(count)}}.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return tools.Result{}, fmt.Errorf("brave_search_base_url is not usable: %w", err)
	}
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Subscription-Token", s.opts.BraveAPIKey)
	req.Header.Set("User-Agent", userAgent)
	resp, err := s.search.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return tools.Result{}, ctx.Err()
		}
		return tools.Result{}, fmt.Errorf("Brave Search could not be reached: %w", err)
	}
	s.journalled(ctx, t.Name(), fmt.Sprintf("searched the web for %q (Brave Search)", q))
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return tools.Result{}, fmt.Errorf("reading Brave Search's answer: %w", err)
	}
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return tools.Result{}, tools.Retryf("Brave Search refused the API key (HTTP %d): web search is not usable until the key is fixed; %s", resp.StatusCode, ConfigHint)
	case resp.StatusCode == http.StatusTooManyRequests:
		return tools.Result{}, tools.Retryf("Brave Search's rate limit was reached (HTTP 429); wait a little before searching again")
	case resp.StatusCode == http.StatusUnprocessableEntity || resp.StatusCode == http.StatusBadRequest:
		return tools.Result{}, tools.Retryf("Brave Search did not accept the query (HTTP %d): %s", resp.StatusCode, tools.CutRunes(strings.TrimSpace(string(body)), 300))
	case resp.StatusCode != http.StatusOK:
		return tools.Result{}, fmt.Errorf("Brave Search answered HTTP %d: %s", resp.StatusCode, tools.CutRunes(strings.TrimSpace(string(body)), 300))
	}
	var br braveResponse
	if err := json.Unmarshal(body, &br); err != nil {
		return tools.Result{}, fmt.Errorf("Brave Search's answer is not the expected JSON: %w", err)
	}
	var results []Result
	var urls []string
	for _, r := range br.Web.Results {
		u, err := url.Parse(r.URL)
		if err != nil || validURL(u) != nil {
			continue
		}
		results = append(results, Result{Title: clean(r.Title), URL: r.URL, Snippet: clean(r.Description)})
		urls = append(urls, r.URL)
		if len(results) == count {
			break
		}
	}
	s.record(urls, false)
	meta := map[string]any{"count": len(results), "results": results}
	if len(results) == 0 {
		meta["results"] = []Result{}
		return tools.Result{Display: fmt.Sprintf("No web results for %q.", q), Meta: meta}, nil
	}
	// Titles and snippets are written by the pages' authors.
	origins := []tools.Origin{tools.UntrustedPublic("search", fmt.Sprintf("web search %q", q))}
	var b strings.Builder
	for i, r := range results {
		if i > 0 {
			b.WriteString("\n\n")
		}
		fmt.Fprintf(&b, "%d. %s\n   %s", i+1, r.Title, r.URL)
		if r.Snippet != "" {
			fmt.Fprintf(&b, "\n   %s", r.Snippet)
		}
	}
	return tools.Result{Display: b.String(), Meta: meta, Origins: origins}, nil
}

var tag = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<[^>]*>`) })

// clean strips the HTML Brave puts in titles and snippets (<strong>).
func clean(s string) string {
	return strings.Join(strings.Fields(html.UnescapeString(tag().ReplaceAllString(s, ""))), " ")
}
