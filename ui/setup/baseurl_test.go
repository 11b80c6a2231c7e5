package setup_test

import (
	"context"
	"strings"
	"testing"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/ui/setup"
)

// The base URL is checked before the key is asked: typed without its /v1
// (GET URL/models is a 404, URL/v1/models lists the models), the flow
// names both URLs and offers the one that answers; Enter takes it, and
// only then is the key asked.
func TestOpenAIBaseURLWithoutV1IsOffered(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileOpenAI)
	var rec recorder
	f := setup.New(rec.env(provider.ProviderSettings{OllamaHost: closedAddr(t)}))
	ctx := context.Background()
	f.Start(ctx)
	f.Answer(ctx, "3")
	host := strings.TrimSuffix(srv.URL, "/v1")
	r := f.Answer(ctx, host+"/")
	if !r.Err || !strings.Contains(r.Said, host+" is not the API root") || !strings.Contains(r.Said, "GET "+host+"/models answered HTTP 404") ||
		!strings.Contains(r.Said, srv.URL+"/models answers") {
		t.Fatalf("a URL without /v1: %+v", r)
	}
	p := f.Prompt()
	if p.Secret || !strings.Contains(p.Text, "Press Enter (or y) to use "+srv.URL) {
		t.Fatalf("the question after a URL without /v1 (no key yet): %+v", p)
	}
	if r := f.Answer(ctx, ""); r.Err || !strings.Contains(r.Said, "Using "+srv.URL) {
		t.Fatalf("taking the offer: %+v", r)
	}
	if p := f.Prompt(); !p.Secret {
		t.Fatalf("the key question after the URL: %+v", p)
	}
	f.Answer(ctx, "sk-test")
	if r := f.Answer(ctx, "gpt-4.1"); !r.Done {
		t.Fatalf("choosing a model: %+v", r)
	}
	if len(rec.saved) < 2 || rec.saved[1] != [2]string{"openai_base_url", srv.URL} {
		t.Fatalf("saved %v", rec.saved)
	}
}

// Another URL typed at the offer is checked as the first was.
func TestOpenAIBaseURLOfferDeclined(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	var rec recorder
	f := setup.New(rec.env(provider.ProviderSettings{OllamaHost: closedAddr(t)}))
	ctx := context.Background()
	f.Start(ctx)
	f.Answer(ctx, "3")
	f.Answer(ctx, strings.TrimSuffix(srv.URL, "/v1"))
	dead := closedAddr(t)
	r := f.Answer(ctx, dead+"/v1")
	if !r.Err || !strings.Contains(r.Said, "Could not reach "+dead+"/v1") || !strings.Contains(r.Said, "connection refused") {
		t.Fatalf("another URL, where nothing listens: %+v", r)
	}
	if p := f.Prompt(); p.Secret || !strings.Contains(p.Text, "base URL") {
		t.Fatalf("the URL is asked again, not the key: %+v", p)
	}
	if r := f.Answer(ctx, srv.URL); r.Err || !f.Prompt().Secret {
		t.Fatalf("the right URL: %+v, then %+v", r, f.Prompt())
	}
}

// A server that needs a key refuses the list without one (OpenAI: 401
// "You didn't provide an API key"): that is the API root all the same,
// and the key is asked next.
func TestOpenAIBaseURLNeedingAKey(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileGemini)
	srv.SetAPIKey("AIzaSy-needed-0123456789")
	var rec recorder
	f := setup.New(rec.env(provider.ProviderSettings{OllamaHost: closedAddr(t)}))
	ctx := context.Background()
	f.Start(ctx)
	f.Answer(ctx, "3")
	if r := f.Answer(ctx, srv.URL); r.Err || !f.Prompt().Secret {
		t.Fatalf("a URL that wants a key: %+v, then %+v", r, f.Prompt())
	}
}
