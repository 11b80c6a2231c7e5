package agent_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/provider"
)

// A base URL that points at no API (here: without its /v1) gets a 404
// whose body is not the provider's error JSON, or names no model: co says
// the address is wrong, not that the model is missing or a chunk malformed.
func TestWrongBaseURLSaysCheckTheAddress(t *testing.T) {
	for _, tc := range []struct {
		name, ctype, body string
	}{
		{"plain text", "text/plain; charset=utf-8", "404 page not found\n"},
		{"JSON naming no model", "application/json", `{"detail":"Not Found"}`},
		{"error JSON naming no model", "application/json", `{"error":{"message":"Not Found","type":"invalid_request_error"}}`},
		{"HTML", "text/html", "<html><body><h1>Not Found</h1></body></html>"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mux := http.NewServeMux()
			mux.HandleFunc("/v1/chat/completions", func(w http.ResponseWriter, r *http.Request) { t.Error("the request reached the API") })
			mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", tc.ctype)
				w.WriteHeader(http.StatusNotFound)
				fmt.Fprint(w, tc.body)
			})
			srv := httptest.NewServer(mux)
			t.Cleanup(srv.Close)
			f := newFixture(t, func(c *agent.Config) {
				c.Provider = provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "k", Model: "test", KeyEnv: "OPENAI_API_KEY"}
			})
			fl := failed(t, run(t, context.Background(), f.ag, "hi", nil))
			t.Log(fl.Message)
			for _, want := range []string{"HTTP 404 at " + srv.URL + "/chat/completions", "check OPENAI_BASE_URL", "/v1"} {
				if !strings.Contains(fl.Message, want) {
					t.Errorf("message lacks %q: %s", want, fl.Message)
				}
			}
			assertPlain(t, fl.Message)
			for _, not := range []string{"has no model", "malformed"} {
				if strings.Contains(fl.Message, not) {
					t.Errorf("message says %q: %s", not, fl.Message)
				}
			}
		})
	}
}

// co status's reachability is the provider's model list: a server that
// answers 404 there is not the API, whatever it is.
func TestCheckReachableUsesTheModelList(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(srv.Close)
	p := provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "k", Model: "m", KeyEnv: "OPENAI_API_KEY"}
	ok, msg := provider.CheckReachable(context.Background(), p)
	if ok || !strings.Contains(msg, "HTTP 404 at "+srv.URL+"/models") || !strings.Contains(msg, "check OPENAI_BASE_URL") {
		t.Errorf("CheckReachable = %v, %q", ok, msg)
	}
	api := http.NewServeMux()
	api.HandleFunc("/v1/models", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"object":"list","data":[{"id":"m"},{"id":"n"}]}`)
	})
	good := httptest.NewServer(api)
	t.Cleanup(good.Close)
	p.BaseURL = good.URL + "/v1"
	if ok, msg := provider.CheckReachable(context.Background(), p); !ok || msg != "yes (2 models listed)" {
		t.Errorf("CheckReachable = %v, %q", ok, msg)
	}
}
