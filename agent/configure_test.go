package agent_test

import (
	"context"
	"errors"
	"testing"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
)

// A chat that started without a provider gets one from the first-run setup
// and answers the next prompt with it, without a restart.
func TestConfigureAfterNoProvider(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.Script(llmtest.Reply{Text: "hello from the new provider"})
	s := provider.ProviderSettings{Provider: "gemini", GeminiModel: "gemini-flash-latest"}
	p, _, err := provider.ResolveProvider(context.Background(), s, nil)
	a := agent.New(agent.Config{Provider: p, ProviderErr: err, Settings: s})
	if _, _, err := a.Provider(); !errors.Is(err, provider.ErrNoProvider) {
		t.Fatalf("before: %v, want ErrNoProvider", err)
	}
	got, err := a.Configure(context.Background(), provider.ProviderSettings{
		Provider: "openai", OpenAIBaseURL: srv.URL, OpenAIModel: "test-model", OpenAIAPIKey: "k",
	})
	if err != nil || got.Name != "openai" || got.Model != "test-model" {
		t.Fatalf("Configure = %+v, %v", got, err)
	}
	if p, done, err := a.Provider(); !done || err != nil || p.Name != "openai" {
		t.Errorf("Provider after Configure = %+v, %v, %v", p, done, err)
	}
	text := ""
	for ev := range a.Submit(context.Background(), "hi") {
		switch ev := ev.(type) {
		case agent.TextDelta:
			text += ev.Text
		case agent.TurnFailed:
			t.Fatalf("turn failed: %s", ev.Message)
		}
	}
	if text != "hello from the new provider" {
		t.Errorf("reply = %q", text)
	}
}
