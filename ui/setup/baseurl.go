package setup

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"syscall"
	"time"

	"github.com/co-cli/co/lib/safe"
)

// An OpenAI-compatible base URL is the API root: the one under which
// GET {base}/models lists the models
// (https://platform.openai.com/docs/api-reference/models/list). Servers
// put it at /v1 (OpenAI, vLLM, llama-server, Ollama's OpenAI layer), and a
// URL typed without it is the common slip: the URL is checked, before any
// key is asked, by asking for that list without a key. An answer that is
// the list, or a refusal for want of a key, is the root; a 404 where
// {url}/v1/models answers is offered the URL with /v1
// (docs/SOURCES.md#openai-compatible-servers-the-base-url).

// probeWait bounds the check of one base URL (both requests).
const probeWait = 15 * time.Second

// baseCheck is what asking a base URL for its model list found.
type baseCheck struct {
	root    bool   // the URL answers as an API root
	suggest string // the URL with /v1, which does; "" for none
	said    string // what to tell the user when !root
}

// rootAnswer reports whether an HTTP status from GET {base}/models is an
// API root's: the list, or a refusal of the request (for want of a key:
// OpenAI's 401, Gemini's 400 "Invalid Authorization header"). A 404 or 405
// is no such path here; a 5xx says nothing either way.
func rootAnswer(status int) bool {
	return status < 500 && status != http.StatusNotFound && status != http.StatusMethodNotAllowed
}

// modelsStatus asks GET {base}/models without a key and returns the HTTP
// status, or the error that kept any answer from coming.
func (f *Flow) modelsStatus(ctx context.Context, base string) (int, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(base, "/")+"/models", nil)
	if err != nil {
		return 0, err
	}
	resp, err := f.env.Client.Do(req)
	if err != nil {
		return 0, err
	}
	resp.Body.Close()
	return resp.StatusCode, nil
}

// checkBase checks an OpenAI-compatible base URL before the key is asked.
func (f *Flow) checkBase(ctx context.Context, base string) baseCheck {
	// A host that drops packets would hold the question for the client's
	// whole wait; a server that answers does so well within this.
	ctx, cancel := context.WithTimeout(ctx, probeWait)
	defer cancel()
	base = strings.TrimRight(base, "/")
	status, err := f.modelsStatus(ctx, base)
	if err != nil {
		return baseCheck{said: fmt.Sprintf("Could not reach %s: %s. Check the URL and that the server is running.", base, reachError(err))}
	}
	if rootAnswer(status) {
		return baseCheck{root: true}
	}
	if !strings.HasSuffix(base, "/v1") {
		alt := base + "/v1"
		if st, err := f.modelsStatus(ctx, alt); err == nil && rootAnswer(st) {
			return baseCheck{suggest: alt, said: fmt.Sprintf("%s is not the API root: GET %s/models answered HTTP %d, but %s/models answers.",
				base, base, status, alt)}
		}
	}
	if status >= 500 {
		return baseCheck{said: fmt.Sprintf("%s answers with a server error: GET %s/models answered HTTP %d. "+
			"Check the server's log, or the URL.", base, base, status)}
	}
	return baseCheck{said: fmt.Sprintf("%s answers, but not as an OpenAI-compatible API root: GET %s/models answered HTTP %d. "+
		"Check the URL (it usually ends in /v1).", base, base, status)}
}

// reachError says in a few words why no answer came.
func reachError(err error) string {
	var dns *net.DNSError
	var op *net.OpError
	switch {
	case errors.As(err, &dns):
		return "the host " + dns.Name + " is not found (DNS)"
	case errors.Is(err, context.DeadlineExceeded):
		return "no answer in time"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused (nothing listens there)"
	case errors.As(err, &op) && op.Op == "dial":
		return "cannot connect: " + op.Err.Error()
	case strings.Contains(err.Error(), "tls:") || strings.Contains(err.Error(), "x509:"):
		return "TLS failed: " + err.Error()
	}
	return err.Error()
}

// answerBaseURL takes a typed base URL (stepOpenAIURL) or, at
// stepOpenAIFix, Enter or y for the suggested one.
func (f *Flow) answerBaseURL(ctx context.Context, in string) Result {
	if f.step == stepOpenAIFix {
		switch strings.ToLower(in) {
		case "", "y", "yes":
			f.s.OpenAIBaseURL, f.suggest = f.suggest, ""
			f.step = stepOpenAIKey
			return Result{Said: safe.Text("Using " + f.s.OpenAIBaseURL + ".")}
		}
	}
	if in == "" {
		return Result{Err: true, Said: "No URL given: type the server's base URL (or press Esc to skip)."}
	}
	if err := f.check("openai_base_url", in); err != nil {
		return Result{Err: true, Said: err.Error()}
	}
	c := f.checkBase(ctx, in)
	switch {
	case c.root:
		f.s.OpenAIBaseURL = strings.TrimRight(in, "/")
		f.step = stepOpenAIKey
		return Result{}
	case c.suggest != "":
		f.suggest = c.suggest
		f.step = stepOpenAIFix
		return Result{Err: true, Said: safe.Text(c.said)}
	}
	f.step = stepOpenAIURL
	return Result{Err: true, Said: safe.Text(c.said)}
}
