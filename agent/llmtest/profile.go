package llmtest

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	openai "github.com/sashabaranov/go-openai"
)

// Profile makes the server imitate one provider's wire behaviour: its
// URLs, the shape of its streams, what it checks in a request and its error
// bodies. The scripted Reply still decides the content. Each imitated
// behaviour is commented with the public source it follows.
type Profile string

// The profiles. ProfileNone is the generic behaviour.
const (
	ProfileNone     Profile = ""
	ProfileGemini   Profile = "gemini"
	ProfileOllama   Profile = "ollama"
	ProfileDeepSeek Profile = "deepseek"
	ProfileVLLM     Profile = "vllm"
	ProfileOpenAI   Profile = "openai"
	ProfileLlamaCpp Profile = "llamacpp"
)

// Profiles lists the profiles SetProfile accepts, ProfileNone excepted.
func Profiles() []Profile {
	return []Profile{ProfileGemini, ProfileOllama, ProfileDeepSeek, ProfileVLLM, ProfileOpenAI, ProfileLlamaCpp}
}

// ParseProfile returns the profile named name ("" or "none" for
// ProfileNone).
func ParseProfile(name string) (Profile, error) {
	if name == "" || name == "none" {
		return ProfileNone, nil
	}
	if p := Profile(name); slices.Contains(Profiles(), p) {
		return p, nil
	}
	return "", fmt.Errorf("unknown profile %q (want one of %v)", name, Profiles())
}

// SetProfile makes the server imitate provider p; ProfileNone restores the
// generic behaviour. It also sets the model list (SetModels) to the
// provider's: call SetModels after it to change that. With ProfileGemini,
// URL becomes <host>/v1beta/openai, the base URL Google documents; the
// others keep <host>/v1.
func (s *Server) SetProfile(p Profile) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.profile = p
	s.URL = s.host + "/v1"
	switch p {
	case ProfileNone:
		s.models = []string{"test"}
	case ProfileGemini:
		s.URL = s.host + geminiBase
		s.models = slices.Clone(geminiModels)
		if s.gemini.aliases == nil {
			s.gemini.aliases = defaultGeminiAliases()
		}
	case ProfileDeepSeek:
		s.models = slices.Clone(deepseekModels)
	case ProfileOpenAI:
		s.models = slices.Clone(openaiModels)
	case ProfileVLLM:
		s.models = []string{"Qwen/Qwen3-8B"}
	case ProfileLlamaCpp:
		s.models = []string{llamaModel}
	case ProfileOllama:
		if s.ollama.models == nil {
			s.ollama.models = slices.Clone(defaultOllamaModels)
		}
		s.models = nil
		for _, m := range s.ollama.models {
			s.models = append(s.models, m.Name)
		}
	}
}

// Profile returns the profile set with SetProfile.
func (s *Server) Profile() Profile {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.profile
}

// SetAPIKey sets the key a profile that checks keys (gemini) requires as
// "Authorization: Bearer KEY". Unset, any non-empty bearer token passes.
func (s *Server) SetAPIKey(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.apiKey = key
}

// profileError is a request a profile refuses, with the provider's body.
type profileError struct {
	status int
	why    string // for the log
	body   any
}

func (e *profileError) write(w http.ResponseWriter) {
	writeJSON(w, e.status, e.body)
}

// check applies the profile's validation to a decoded chat request.
func (s *Server) check(p Profile, r *http.Request, req Request) *profileError {
	switch p {
	case ProfileGemini:
		return s.geminiCheck(r, req)
	case ProfileDeepSeek:
		return s.deepseekCheck(req)
	case ProfileOpenAI:
		return openaiCheck(req)
	case ProfileOllama:
		return s.ollamaOpenAICheck(req)
	case ProfileLlamaCpp:
		return s.llamaCheck(req)
	}
	return nil
}

// style returns how profile p writes the reply to req.
func (s *Server) style(p Profile, req Request) style {
	switch p {
	case ProfileGemini:
		return style{
			noReasoning: true,
			geminiCalls: true,
			signature:   s.issueSignature,
			// Gemini's OpenAI layer can end a tool-call stream with
			// finish_reason "stop" rather than "tool_calls"
			// (open-webui/computer#224 (2026-08-17); microclaw/microclaw#230
			// (2026-03-10): "Gemini 3
			// models frequently return finish_reason: stop even when tool
			// calls are present").
			toolFinish: "stop",
			errorBody: func(w http.ResponseWriter, status int, _, _, msg string) {
				googleError(status, msg).write(w)
			},
			quota: s.geminiQuota,
		}
	case ProfileDeepSeek:
		return style{noReasoning: !deepseekThinks(req), keepAlive: true, cacheHits: true}
	case ProfileVLLM:
		// vLLM renamed reasoning_content to reasoning in its output
		// (vllm-project/vllm#27752 (2025-10-29), removed in #33402
		// (2026-01); docs.vllm.ai
		// features/reasoning_outputs).
		return style{reasoningField: "reasoning", nullArgs: true}
	case ProfileOpenAI:
		// OpenAI's chat completions return no reasoning text.
		return style{noReasoning: true}
	case ProfileLlamaCpp:
		// llama-server streams reasoning as reasoning_content, answers
		// whatever model was asked for, and counts the tool schemas in
		// the prompt (the chat template renders them): llamacpp.go.
		return style{promptTokens: func(r Request) int { return s.countPrompt(r, 0) }}
	case ProfileOllama:
		// Ollama's OpenAI layer sends thinking as "reasoning"
		// (ollama/ollama openai/openai.go: Delta.Reasoning
		// `json:"reasoning,omitempty"`).
		return style{reasoningField: "reasoning", noReasoning: !s.ollamaThinks(req)}
	}
	return style{}
}

// profileRoutes registers the profiles' extra endpoints. Each answers as
// an unknown URL unless its profile is set.
func (s *Server) profileRoutes(mux *http.ServeMux) {
	only := func(p Profile, h http.HandlerFunc) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			if s.Profile() != p {
				unknownURL(w, r)
				return
			}
			h(w, r)
		}
	}
	mux.HandleFunc(geminiBase+"/chat/completions", only(ProfileGemini, s.handleChat))
	mux.HandleFunc("GET "+geminiBase+"/models", only(ProfileGemini, s.handleProfileModels))
	mux.HandleFunc("GET /props", only(ProfileLlamaCpp, s.handleLlamaProps))
	mux.HandleFunc("GET /api/version", only(ProfileOllama, s.handleOllamaVersion))
	mux.HandleFunc("POST /api/show", only(ProfileOllama, s.handleOllamaShow))
	mux.HandleFunc("GET /api/ps", only(ProfileOllama, s.handleOllamaPS))
	mux.HandleFunc("/api/chat", only(ProfileOllama, s.handleOllamaChat))
}

// handleProfileModels lists models the way the profile's provider does.
func (s *Server) handleProfileModels(w http.ResponseWriter, r *http.Request) {
	p := s.Profile()
	if p == ProfileGemini {
		if e := s.geminiAuth(r); e != nil {
			e.write(w)
			return
		}
		s.geminiModelList(w)
		return
	}
	if p == ProfileLlamaCpp {
		s.llamaModels(w)
		return
	}
	owner := map[Profile]string{
		ProfileDeepSeek: "deepseek", // https://api-docs.deepseek.com/api/list-models
		ProfileOpenAI:   "openai",
		ProfileVLLM:     "vllm",
		// Ollama's OpenAI layer names the model's namespace
		// (ollama/ollama openai/openai.go: OwnedBy: model.ParseName(id).Namespace).
		ProfileOllama: "library",
	}[p]
	s.mu.Lock()
	list := wireModels{Object: "list", Data: []wireModel{}}
	for _, id := range s.models {
		m := wireModel{ID: id, Object: "model", Created: 1700000000, OwnedBy: owner}
		if p == ProfileVLLM {
			// vLLM lists the window it serves with (--max-model-len, by
			// default the model's: Qwen3-8B's 40960).
			m.MaxModelLen = 40960
		}
		list.Data = append(list.Data, m)
	}
	s.mu.Unlock()
	writeJSON(w, http.StatusOK, list)
}

// clientKey is the API key ClientConfig uses.
func (s *Server) clientKey() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.apiKey != "" {
		return s.apiKey
	}
	return "llmtest"
}

// lastUserIndex returns the index of the last message with role "user",
// or -1.
func lastUserIndex(msgs []WireMessage) int {
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == openai.ChatMessageRoleUser {
			return i
		}
	}
	return -1
}

// modelName strips the "models/" prefix Google's ids carry.
func modelName(id string) string {
	return strings.TrimPrefix(id, "models/")
}
