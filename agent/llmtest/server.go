package llmtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	openai "github.com/sashabaranov/go-openai"
)

// Server is a scripted chat-completions server on a local TCP port.
type Server struct {
	// URL is the base URL, ending in /v1, to use as the OpenAI BaseURL.
	// SetProfile(ProfileGemini) changes it to end in /v1beta/openai, as
	// Google's endpoint does; /v1 keeps working.
	URL string

	host string // "http://127.0.0.1:port"

	srv      *http.Server
	cancel   context.CancelFunc // cancels every request's context
	handlers sync.WaitGroup     // chat-completions handlers in flight
	once     sync.Once

	mu        sync.Mutex
	closed    bool
	queue     []Reply
	rules     []rule
	def       *Reply
	models    []string
	requests  []Request
	arrived   chan struct{} // closed, and replaced, when a request is recorded
	toolCalls int           // tool-call ids handed out so far
	log       io.Writer

	profile Profile
	apiKey  string
	gemini  geminiState
	ollama  ollamaState
	llama   llamaState
	// tokenScale scales the prompt tokens the llamacpp and ollama
	// profiles count (SetTokenScale).
	tokenScale float64
}

type rule struct {
	Reply
	used bool
}

// NewServer starts a Server on 127.0.0.1 at a free port. It panics if it
// cannot listen, as httptest.NewServer does.
func NewServer() *Server {
	s, err := NewServerAt("127.0.0.1:0")
	if err != nil {
		panic(fmt.Sprintf("llmtest: %v", err))
	}
	return s
}

// NewServerAt starts a Server listening on addr ("host:port").
func NewServerAt(addr string) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &Server{
		host:    "http://" + ln.Addr().String(),
		URL:     "http://" + ln.Addr().String() + "/v1",
		cancel:  cancel,
		models:  []string{"test"},
		arrived: make(chan struct{}),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/v1/chat/completions", s.handleChat)
	mux.HandleFunc("/chat/completions", s.handleChat)
	mux.HandleFunc("GET /v1/models", s.handleModels)
	mux.HandleFunc("GET /api/tags", s.handleTags)
	s.profileRoutes(mux)
	mux.HandleFunc("/", unknownURL)
	s.srv = &http.Server{
		Handler:     mux,
		BaseContext: func(net.Listener) context.Context { return ctx },
	}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Close stops the server. It cancels requests in flight, stalled streams
// included, and returns once their handlers have.
func (s *Server) Close() {
	s.once.Do(func() {
		s.mu.Lock()
		s.closed = true
		s.mu.Unlock()
		s.cancel()
		_ = s.srv.Close()
		s.handlers.Wait()
	})
}

// ClientConfig returns a go-openai configuration that talks to s.
func (s *Server) ClientConfig() openai.ClientConfig {
	cfg := openai.DefaultConfig(s.clientKey())
	s.mu.Lock()
	cfg.BaseURL = s.URL
	s.mu.Unlock()
	return cfg
}

// Script appends replies to the queue. Each chat-completions request takes
// the next one, in order.
func (s *Server) Script(replies ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.queue = append(s.queue, replies...)
}

// Rules adds replies chosen by the request rather than by order. A request
// that finds the queue empty gets the first rule, in the order added, that
// is unused or Reusable and whose Match is a substring (case-sensitive) of
// the last user message (Request.LastUserMessage); an empty Match matches
// every message. That rule is then used.
//
// A tool result has role "tool", so it leaves the last user message as it
// was: the rules {Match: "weather", ToolCalls: ...} then {Match: "weather",
// Text: "Sunny."} answer the question with a tool call and the request that
// brings the tool result with the text.
func (s *Server) Rules(rules ...Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range rules {
		s.rules = append(s.rules, rule{Reply: r})
	}
}

// SetDefault sets the reply for a request that neither the queue nor a rule
// answers; Reply{Echo: true} echoes the user. Without a default such a
// request gets a 500 error saying no scripted reply was left.
func (s *Server) SetDefault(r Reply) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.def = &r
}

// SetModels sets the model ids GET /v1/models lists; default "test".
func (s *Server) SetModels(ids ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.models = slices.Clone(ids)
}

// SetLog makes the server write a line to w for each chat-completions
// request; nil turns it off.
func (s *Server) SetLog(w io.Writer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log = w
}

// Pending returns the number of queued replies not yet taken.
func (s *Server) Pending() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.queue)
}

// Requests returns the chat-completions requests received so far, in order,
// failed ones included. Probes (models, tags) are not recorded. The slice is
// a copy; the requests share their contents with the server's record.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.requests)
}

// WaitRequests waits until at least n requests have been received or
// timeout has passed, and returns the requests received by then.
func (s *Server) WaitRequests(n int, timeout time.Duration) []Request {
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		s.mu.Lock()
		if len(s.requests) >= n {
			reqs := slices.Clone(s.requests)
			s.mu.Unlock()
			return reqs
		}
		arrived := s.arrived
		s.mu.Unlock()
		select {
		case <-arrived:
		case <-timer.C:
			return s.Requests()
		}
	}
}

func unknownURL(w http.ResponseWriter, r *http.Request) {
	writeError(w, http.StatusNotFound, "invalid_request_error", "unknown_url",
		fmt.Sprintf("llmtest: unknown request URL: %s %s", r.Method, r.URL.Path))
}

func (s *Server) handleModels(w http.ResponseWriter, r *http.Request) {
	if s.Profile() != ProfileNone {
		s.handleProfileModels(w, r)
		return
	}
	s.mu.Lock()
	list := wireModels{Object: "list", Data: []wireModel{}}
	for _, id := range s.models {
		list.Data = append(list.Data, wireModel{ID: id, Object: "model", OwnedBy: "llmtest"})
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, list)
}

func (s *Server) handleChat(w http.ResponseWriter, r *http.Request) {
	if !s.enter() {
		writeError(w, http.StatusServiceUnavailable, "server_error", "", "llmtest: server closed")
		return
	}
	defer s.handlers.Done()

	raw, err := io.ReadAll(r.Body)
	req := Request{Raw: raw, Header: r.Header.Clone(), Path: r.URL.Path}
	if err == nil {
		err = json.Unmarshal(raw, &req.Body)
	}
	if err != nil {
		req.Body = openai.ChatCompletionRequest{}
	}
	req.Stream = req.Body.Stream
	prof := s.Profile()
	var perr *profileError
	if r.Method == http.MethodPost && err == nil {
		perr = s.check(prof, r, req)
	}
	valid := r.Method == http.MethodPost && err == nil && perr == nil
	n, reply, found := s.take(req, valid)

	switch {
	case r.Method != http.MethodPost:
		s.logf("llmtest: #%d %s %s -> 405\n", n, r.Method, r.URL.Path)
		writeError(w, http.StatusMethodNotAllowed, "invalid_request_error", "",
			"llmtest: "+r.Method+" is not allowed on "+r.URL.Path)
	case err != nil:
		s.logf("llmtest: #%d bad request body: %v -> 400\n", n, err)
		writeError(w, http.StatusBadRequest, "invalid_request_error", "",
			"llmtest: cannot decode the request body: "+err.Error())
	case perr != nil:
		s.logf("llmtest: #%d %s: %s -> %d\n", n, prof, perr.why, perr.status)
		perr.write(w)
	case !found:
		s.logf("llmtest: #%d user=%q -> no scripted reply (500)\n", n, clip(req.LastUserMessage()))
		writeError(w, http.StatusInternalServerError, "server_error", "no_scripted_reply",
			fmt.Sprintf("llmtest: no scripted reply left for request %d", n))
	default:
		s.logf("llmtest: #%d stream=%t user=%q -> %s\n", n, req.Stream, clip(req.LastUserMessage()), describe(reply))
		if reply.Endless {
			bound, prompt := openAIBound(req)
			if prof == ProfileOllama {
				// Ollama's /v1 passes max_tokens on as num_predict only
				// (v0.24.0 openai/openai.go:584-585); the runner's cap
				// of 10 × num_ctx applies (endless.go, ollamaBound).
				var maxTokens int
				_ = json.Unmarshal(req.Fields()["max_tokens"], &maxTokens)
				_, numCtx := s.OllamaLoaded()
				bound = ollamaBound(maxTokens, numCtx)
			}
			if prof == ProfileLlamaCpp {
				// The prompt as llama-server counts it, tool schemas
				// included (llamaCheck).
				prompt = s.countPrompt(req, 0)
				bound = llamaBound(req, bound, prompt, s.llamaCtx())
			}
			reply = endlessReply(reply, bound, prompt)
		}
		respond(r.Context(), w, n, req, reply, s.style(prof, req))
	}
}

// enter registers a chat-completions handler, unless the server is closed.
func (s *Server) enter() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.handlers.Add(1)
	return true
}

// take records req and, when pick is set, chooses its reply: the queue
// first, then the rules, then the default. n is the request's number,
// counting from 1.
func (s *Server) take(req Request, pick bool) (n int, reply Reply, found bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = append(s.requests, req)
	n = len(s.requests)
	close(s.arrived)
	s.arrived = make(chan struct{})
	if !pick {
		return n, Reply{}, false
	}

	switch {
	case len(s.queue) > 0:
		reply, s.queue = s.queue[0], s.queue[1:]
		found = true
	default:
		user := req.LastUserMessage()
		for i := range s.rules {
			r := &s.rules[i]
			if (!r.used || r.Reusable) && strings.Contains(user, r.Match) {
				r.used = true
				reply, found = r.Reply, true
				break
			}
		}
		if !found && s.def != nil {
			reply, found = *s.def, true
		}
	}
	if !found {
		return n, Reply{}, false
	}
	reply.ToolCalls = slices.Clone(reply.ToolCalls)
	for i := range reply.ToolCalls {
		if reply.ToolCalls[i].ID == "" {
			s.toolCalls++
			reply.ToolCalls[i].ID = fmt.Sprintf("call_%d", s.toolCalls)
		}
	}
	return n, reply, true
}

func (s *Server) logf(format string, args ...any) {
	s.mu.Lock()
	w := s.log
	s.mu.Unlock()
	if w != nil {
		fmt.Fprintf(w, format, args...)
	}
}

// clip shortens s for a log line.
func clip(s string) string {
	const limit = 60
	if r := []rune(s); len(r) > limit {
		return string(r[:limit]) + "…"
	}
	return s
}

// describe summarises a reply for a log line.
func describe(r Reply) string {
	switch {
	case r.Raw != "":
		return "raw body"
	case r.Status != 0 && r.Status != http.StatusOK:
		return fmt.Sprintf("status %d", r.Status)
	case r.DailyQuota:
		return "429 daily quota"
	case r.RetryDelay > 0:
		return fmt.Sprintf("429 retry in %s", r.RetryDelay)
	}
	var parts []string
	if r.Reasoning != "" {
		parts = append(parts, fmt.Sprintf("reasoning %q", clip(r.Reasoning)))
	}
	switch {
	case r.Echo:
		parts = append(parts, "echo")
	case len(r.Chunks) > 0:
		parts = append(parts, fmt.Sprintf("%d chunks", len(r.Chunks)))
	case r.Text != "":
		parts = append(parts, fmt.Sprintf("text %q", clip(r.Text)))
	}
	for _, c := range r.ToolCalls {
		parts = append(parts, "tool call "+c.Name)
	}
	if r.StallAfter > 0 {
		parts = append(parts, fmt.Sprintf("stall after %d", r.StallAfter))
	}
	if r.DisconnectAfter > 0 {
		parts = append(parts, fmt.Sprintf("disconnect after %d", r.DisconnectAfter))
	}
	if r.Malformed {
		parts = append(parts, "malformed")
	}
	if len(parts) == 0 {
		return "empty reply"
	}
	return strings.Join(parts, ", ")
}
