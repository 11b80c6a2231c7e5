package agent_test

import (
	"context"
	"net"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
)

// provider.Unreachable, on the errors real turns fail with: what may
// succeed later (no connection, a 5xx or 429 once the client's retries ran
// out) and what asking again cannot change (a refused key, a missing
// model, an exhausted daily quota, a request over the window, a server
// whose setup refuses tools).
func TestUnreachableOnRealFailures(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + l.Addr().String() + "/v1"
	l.Close()
	times := func(n int, r llmtest.Reply) []llmtest.Reply {
		out := make([]llmtest.Reply, n)
		for i := range out {
			out[i] = r
		}
		return out
	}
	for _, tc := range []struct {
		name    string
		profile llmtest.Profile
		closed  bool
		replies []llmtest.Reply
		want    bool
	}{
		{"connection refused", "", true, nil, true},
		{"HTTP 503, retries ran out", "", false, times(4, llmtest.Reply{Status: 503}), true},
		{"HTTP 502 from a proxy, retries ran out", "", false, times(4, llmtest.Reply{Status: 502}), true},
		{"HTTP 429, retries ran out", "", false, times(4, llmtest.Reply{Status: 429}), true},
		{"HTTP 401", "", false, []llmtest.Reply{{Status: 401}}, false},
		{"HTTP 404, no such model", "", false, []llmtest.Reply{{Status: 404, ErrorMessage: "The model `nope` does not exist", ErrorCode: "model_not_found"}}, false},
		{"Gemini's daily quota", llmtest.ProfileGemini, false, []llmtest.Reply{{DailyQuota: true}}, false},
		// llama-server's answer to tools without --jinja (containers/ramalama#988).
		{"llama.cpp without --jinja", "", false, times(4, llmtest.Reply{Status: 500, Raw: `{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}`}), false},
		{"llama.cpp: over the context", "", false, []llmtest.Reply{{Status: 400, Raw: `{"error":{"code":400,"message":"request (4476 tokens) exceeds the available context size (4096 tokens)","type":"exceed_context_size_error","n_prompt_tokens":4476,"n_ctx":4096}}`}}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mod := func(c *agent.Config) {
				c.Retry = provider.RetryPolicy{Sleep: func(context.Context, time.Duration) error { return nil }}
				if tc.closed {
					c.Provider.BaseURL = closed
				}
			}
			var f *fixture
			if tc.profile != "" {
				f = profileFixture(t, tc.profile, "gemini-flash-latest", mod)
			} else {
				f = newFixture(t, mod)
			}
			f.srv.Script(tc.replies...)
			failed := failed(t, run(t, context.Background(), f.ag, "hi", nil))
			if got := provider.Unreachable(failed.Err); got != tc.want {
				t.Errorf("Unreachable(%v) = %v, want %v (%s)", failed.Err, got, tc.want, failed.Message)
			}
		})
	}
}
