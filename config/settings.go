package config

import (
	"errors"
	"github.com/co-cli/co/lib/cost"
	"strings"

	"github.com/co-cli/co/hooks"
)

// Settings are co's effective settings. Each field is one row of the table
// in fields.go, which gives its JSON key, environment variable, default and
// allowed values; the comments here name the key.
type Settings struct {
	LLMProvider             string       // llm_provider: gemini, ollama or openai
	GeminiAPIKey            string       // gemini_api_key (secret)
	GeminiModel             string       // gemini_model
	GeminiBaseURL           string       // gemini_base_url
	OllamaHost              string       // ollama_host: a URL or host:port
	OllamaModel             string       // ollama_model
	OpenAIBaseURL           string       // openai_base_url
	OpenAIAPIKey            string       // openai_api_key (secret)
	OpenAIModel             string       // openai_model
	ObsidianVaultPath       string       // obsidian_vault_path
	SlackBotToken           string       // slack_bot_token (secret)
	SlackMemberID           string       // slack_member_id
	GoogleCredentialsPath   string       // google_credentials_path
	BraveSearchAPIKey       string       // brave_search_api_key (secret)
	AutoConfirm             bool         // auto_confirm
	DockerImage             string       // docker_image
	Theme                   string       // theme: light or dark
	Notify                  string       // notify: auto, off, bell, osc9 or osc777
	ToolRetries             int          // tool_retries, >= 0
	MaxRequestLimit         int          // max_request_limit, >= 1
	LLMStallTimeout         int          // llm_stall_timeout, seconds, >= 1
	SandboxBackend          string       // sandbox_backend: auto, docker or subprocess
	SandboxFallback         string       // sandbox_fallback: warn or error
	SandboxMaxTimeout       int          // sandbox_max_timeout, seconds, >= 1
	SandboxNetwork          string       // sandbox_network: none or bridge
	SandboxMemLimit         string       // sandbox_mem_limit, e.g. 1g (see MemoryBytes)
	SandboxCPUs             float64      // sandbox_cpus, > 0
	SandboxGitReadonly      bool         // sandbox_git_readonly
	ShellSafeCommands       []string     // shell_safe_commands
	ShellPolicy             []PolicyRule // shell_policy
	GrantMaxUses            int          // grant_max_uses, >= 1
	GrantTTLMinutes         int          // grant_ttl_minutes, >= 1
	YoloUnsandboxed         bool         // yolo_unsandboxed
	YoloMaxUses             int          // yolo_max_uses, >= 1
	YoloTTLMinutes          int          // yolo_ttl_minutes, >= 1
	ToolOutputTrimChars     int          // tool_output_trim_chars, >= 0
	MaxHistoryMessages      int          // max_history_messages, >= 4
	ReasoningEffort         string       // reasoning_effort: "", low, medium or high
	LLMMaxTokens            int          // llm_max_tokens, >= 0 (0: none)
	LLMTemperature          float64      // llm_temperature (negative: none)
	OllamaNumCtx            int          // ollama_num_ctx, >= 0 (0: automatic)
	LLMContextWindow        int          // llm_context_window, >= 0 (0: learned from the server)
	LLMToolGroups           []string     // llm_tool_groups (empty: all)
	ShowReasoning           bool         // show_reasoning
	SummarizationModel      string       // summarization_model
	TelemetryCaptureContent bool         // telemetry_capture_content
	TelemetryRetentionDays  int          // telemetry_retention_days, >= 1
	TelemetryMaxMB          int          // telemetry_max_mb, >= 1
	WebAllowPrivate         bool         // web_allow_private
	BraveSearchBaseURL      string       // brave_search_base_url
	ContextFiles            []string     // context_files: file names read beside AGENTS.md
	MCPServers              []MCPServer  // mcp_servers
	Schedules               []Schedule   // schedules (user file only)
	// Hooks are the user's own hooks (hooks; a project file's are
	// Loaded.ProjectHooks, never merged into these).
	Hooks          hooks.Config
	MemoryEnabled  bool        // memory_enabled
	MemoryAutoSave bool        // memory_auto_save (user file or environment only)
	MaxCost        float64     // max_cost, US dollars; 0: no limit
	ModelPrices    cost.Prices // model_prices: rows over lib/cost's table
}

// PolicyRule is one shell_policy rule: commands matching Match get Decision.
// How Match is matched is the shell tool's business; config only checks
// that it is not empty and that Decision is allow, ask or deny.
type PolicyRule struct {
	Match    string `json:"match"`
	Decision string `json:"decision"`
	Reason   string `json:"reason,omitempty"`
}

// Defaults returns the default settings. The slices are fresh copies.
func Defaults() Settings {
	var s Settings
	for i := range table {
		f := &table[i]
		f.set(&s, cloneValue(f.def))
	}
	return s
}

// Validate checks every value against the table and returns an *Error per
// problem (joined with errors.Join when there are several), or nil.
func (s *Settings) Validate() error {
	var errs []error
	for i := range table {
		f := &table[i]
		if msg := f.validate(f.get(s)); msg != "" {
			errs = append(errs, &Error{Key: f.key, Msg: msg})
		}
	}
	return joinErrors(errs)
}

// Set parses value as the environment variable for key would be parsed and
// stores it. An empty value sets the default. (`co config set` edits the
// file itself with EditFile, which keeps the file's order and other keys.)
func (s *Settings) Set(key, value string) error {
	f := lookupField(key)
	if f == nil {
		msg := "unknown setting " + quote(key)
		if sug := suggest(key); sug != "" {
			msg += " (did you mean " + quote(sug) + "?)"
		}
		return &Error{Key: key, Msg: msg}
	}
	if strings.TrimSpace(value) == "" {
		f.set(s, cloneValue(f.def))
		return nil
	}
	v, err := f.parseText(value, "", "")
	if err != nil {
		return err
	}
	f.set(s, v)
	return nil
}

// Secrets returns the secret values that are set (API keys, tokens), for
// redaction in logs and traces.
func (s *Settings) Secrets() []string {
	var out []string
	for i := range table {
		f := &table[i]
		if v, _ := f.get(s).(string); f.secret && v != "" {
			out = append(out, v)
		}
	}
	return out
}

// get returns the row's value in s (slices are not copied).
func (f *field) get(s *Settings) any {
	switch p := f.ptr(s).(type) {
	case *string:
		return *p
	case *bool:
		return *p
	case *int:
		return *p
	case *float64:
		return *p
	case *[]string:
		return *p
	case *[]PolicyRule:
		return *p
	case *[]MCPServer:
		return *p
	case *[]Schedule:
		return *p
	case *hooks.Config:
		return *p
	case *cost.Prices:
		return *p
	}
	panic("config: bad field type for " + f.key)
}

// set stores v, which must have the row's type, in s.
func (f *field) set(s *Settings, v any) {
	switch p := f.ptr(s).(type) {
	case *string:
		*p = v.(string)
	case *bool:
		*p = v.(bool)
	case *int:
		*p = v.(int)
	case *float64:
		*p = v.(float64)
	case *[]string:
		*p = v.([]string)
	case *[]PolicyRule:
		*p = v.([]PolicyRule)
	case *[]MCPServer:
		*p = v.([]MCPServer)
	case *[]Schedule:
		*p = v.([]Schedule)
	case *hooks.Config:
		*p = v.(hooks.Config)
	case *cost.Prices:
		*p = v.(cost.Prices)
	default:
		panic("config: bad field type for " + f.key)
	}
}

// joinErrors returns nil, the one error, or all of them joined.
func joinErrors(errs []error) error {
	switch len(errs) {
	case 0:
		return nil
	case 1:
		return errs[0]
	}
	return errors.Join(errs...)
}
