package config

import (
	"fmt"
	"github.com/co-cli/co/lib/cost"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/co-cli/co/hooks"
)

// Kind is the Go type of a setting.
type Kind int

// The kinds of setting.
const (
	KindString     Kind = iota // string
	KindBool                   // bool
	KindInt                    // int
	KindFloat                  // float64
	KindStringList             // []string
	KindPolicy                 // []PolicyRule
	KindMCP                    // []MCPServer
	KindSchedules              // []Schedule
	KindHooks                  // hooks.Config
	KindPrices                 // cost.Prices
)

// String returns the kind as a short word: string, bool, int, float, list
// or rules.
func (k Kind) String() string {
	switch k {
	case KindString:
		return "string"
	case KindBool:
		return "bool"
	case KindInt:
		return "int"
	case KindFloat:
		return "float"
	case KindStringList:
		return "list"
	case KindPolicy:
		return "rules"
	case KindMCP:
		return "servers"
	case KindSchedules:
		return "schedules"
	case KindHooks:
		return "hooks"
	case KindPrices:
		return "prices"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// expected is the kind as the noun phrase error messages use.
func (k Kind) expected() string {
	switch k {
	case KindString:
		return "a string"
	case KindBool:
		return "a boolean (true or false)"
	case KindInt:
		return "an integer"
	case KindFloat:
		return "a number"
	case KindStringList:
		return "a list of strings"
	case KindPolicy:
		return `a list of rules like {"match": "git push", "decision": "ask", "reason": "..."}`
	case KindMCP:
		return `an object from a server name to {"command": ..., "args": [...]} or {"url": "https://..."}`
	case KindSchedules:
		return `an object from a schedule name to {"at": ..., "prompt": ..., "workspace": ...}`
	case KindHooks:
		return `an object from an event name to [{"matcher": ..., "hooks": [{"type": "command", "command": ...}]}]`
	case KindPrices:
		return `an object from a model name to {"input": ..., "cached_input": ..., "output": ...}`
	}
	return k.String()
}

// Field describes one setting. Fields returns the table in display order;
// `co config`, help text and the README are built from it.
type Field struct {
	Key         string // JSON key in settings files, e.g. "tool_retries"
	Env         string // environment variable, e.g. "CO_CLI_TOOL_RETRIES"
	Kind        Kind
	Default     any    // string, bool, int, float64, []string or []PolicyRule (a copy)
	Description string // one line, for humans
	Secret      bool   // never shown in full
	Allowed     []string
	// Constraint is the allowed range in words, e.g. `>= 1`,
	// `"light" or "dark"`; empty when any value of the kind is allowed.
	Constraint string
	// UserOnly settings are ignored in a project file (with a warning): a
	// repository someone else wrote must not use its own keys, redirect
	// the conversation, weaken the sandbox, raise limits or pre-approve
	// commands. A project file may set only the allow-listed settings.
	UserOnly bool
	// ProjectWhy says why a project file may set the setting or, when
	// UserOnly, why it may not.
	ProjectWhy string
}

// field is one row of the table.
type field struct {
	key, env, desc string
	def            any
	secret         bool
	path           bool     // a file-system path: a leading "~/" is expanded
	allowed        []string // for strings: the only values allowed
	min            float64  // for numbers: the smallest value allowed
	minExclusive   bool     // for numbers: min itself is not allowed
	max            float64  // for numbers, when maxSet: the largest value allowed
	maxSet         bool
	// none, when noneSet, is the one value outside [min, max] that is
	// allowed: it means "send nothing" (llm_temperature's -1, its default).
	none    float64
	noneSet bool
	// check, when set, reports whether a non-empty string value is well
	// formed; format says in words what it must look like.
	check  func(string) bool
	format string
	ptr    func(*Settings) any // the field in Settings, as a pointer
}

// A project file (./.co-cli/settings.json) arrives with a repository
// someone else wrote. What it may set is an allow list: projectAllowed,
// each setting with why it is harmless there. Every other setting is
// user-only: a project file's value for it is ignored, with a warning that
// says why (userOnlyWhy) and where to set it instead. A setting added to
// the table is user-only until it is added to projectAllowed; a test fails
// until it is classified in one of the two.
var projectAllowed = map[string]string{
	"theme":          "how co looks; nothing leaves the machine",
	"show_reasoning": "whether the model's reasoning is shown; nothing leaves the machine",
	"reasoning_effort": "how hard the same model, at the same provider, thinks; " +
		"what a turn may cost stays capped by your llm_max_tokens and max_request_limit",
	"llm_temperature": "how the same model samples its reply",
	"tool_retries":    "how often the model may retry a tool call it got wrong, within your max_request_limit",
	"max_history_messages": "when older history is summarised: the same conversation goes to the same provider, " +
		"in more or fewer requests",
	"tool_output_trim_chars": "how much of an old tool output the history keeps: only what was already sent to the " +
		"same provider",
	"shell_policy": "only its ask and deny rules are kept, after yours: they make commands stricter; " +
		"its allow rules are dropped with a warning",
	"mcp_servers": "its servers never start until you consent to their exact definition (/mcp trust); " +
		`"approve": "auto" is ignored, and it cannot replace a server of yours`,
	"hooks": "its hooks never run until you consent to them and the scripts they name (/hooks trust, co hooks trust); " +
		"they are kept apart from yours, never merged into them",
}

// Why a project file may not set a user-only setting, for the warning
// (`a project file may not set it (WHY)`).
const (
	whySecret = "a secret: a repository could put in its own key or token, so that co sends your prompts " +
		"to an account its owner reads, or posts into a workspace its owner controls"
	whyEndpoint = "an endpoint: a repository could have your conversation, files and keys sent to a server " +
		"of its choosing"
	whyRouting = "it picks who receives your conversation and what it costs you: another provider, or " +
		"another company behind a router such as OpenRouter"
	whyPrivate   = "a path to your private files: a repository could have them read and sent to the model"
	whyApprove   = "it approves calls without asking you, or lets more commands run without asking"
	whySandbox   = "it weakens the sandbox shell commands run in"
	whyLimit     = "a limit on what co may use or spend: a repository could raise it"
	whyMemory    = "memories reach every later session: whether co remembers is yours to decide"
	whyTelemetry = "what co records about your sessions is yours to decide"
	whyTraces    = "it bounds how long your traces are kept and how much disk they take: a repository could " +
		"wipe them or fill your disk"
)

// userOnlyWhy gives, for each user-only setting, why a project file may not
// set it. It is only for the message: a setting missing here is user-only
// all the same (it is not in projectAllowed).
var userOnlyWhy = map[string]string{
	"gemini_api_key": whySecret, "openai_api_key": whySecret, "slack_bot_token": whySecret,
	"brave_search_api_key": whySecret,

	"gemini_base_url": whyEndpoint, "ollama_host": whyEndpoint, "openai_base_url": whyEndpoint,
	"brave_search_base_url": whyEndpoint,

	"llm_provider": whyRouting, "gemini_model": whyRouting, "ollama_model": whyRouting,
	"openai_model": whyRouting, "summarization_model": whyRouting,

	"slack_member_id": "it says which Slack member is you: a repository could name a colleague, and a scheduled " +
		"run's answer would go to them as if to you alone",

	"obsidian_vault_path": whyPrivate, "google_credentials_path": whyPrivate,
	// A repository could name files outside it, or the user's .env, to
	// send to the provider: which files are instructions is the user's say.
	"context_files": "files sent to the model with every request: a repository could name your .env or " +
		"files outside it",

	"auto_confirm": whyApprove, "yolo_unsandboxed": whyApprove, "grant_max_uses": whyApprove,
	"grant_ttl_minutes": whyApprove, "yolo_max_uses": whyApprove, "yolo_ttl_minutes": whyApprove,
	"shell_safe_commands": whyApprove,

	"docker_image": whySandbox, "sandbox_backend": whySandbox, "sandbox_fallback": whySandbox,
	"sandbox_network": whySandbox, "sandbox_git_readonly": whySandbox,
	"web_allow_private": "it lets the web tools reach your machine and local network",

	"sandbox_max_timeout": whyLimit, "sandbox_mem_limit": whyLimit, "sandbox_cpus": whyLimit,
	"max_request_limit": whyLimit, "llm_max_tokens": whyLimit, "max_cost": whyLimit,
	"model_prices":   "what each call costs and so when max_cost stops a run: a repository could price a paid model at nothing",
	"ollama_num_ctx": whyLimit, "llm_context_window": whyLimit,
	"llm_tool_groups": "it decides which tools the model is offered: a repository could hide some from you",
	"llm_stall_timeout": "how long co waits on a provider that has gone silent: a repository could make a " +
		"stalled co run hang",
	"telemetry_retention_days": whyTraces, "telemetry_max_mb": whyTraces,

	"memory_enabled": whyMemory, "memory_auto_save": whyMemory,

	"telemetry_capture_content": whyTelemetry,

	"notify": "it is about your terminal, which a repository does not know: it could silence the alerts you " +
		"rely on, or have co write sequences your terminal does not understand",
	"schedules": "a schedule runs co unattended on your machine's scheduler, with the tools it names: " +
		"a repository could have it act while you are away",
}

// projectMaySet reports whether a project file may set key: whether it is
// on the allow list.
func projectMaySet(key string) bool {
	_, ok := projectAllowed[key]
	return ok
}

// projectWhy says why a project file may, or may not, set key.
func projectWhy(key string) string {
	if why, ok := projectAllowed[key]; ok {
		return why
	}
	if why, ok := userOnlyWhy[key]; ok {
		return why
	}
	return "it is not on the list of settings a project file may set"
}

// table is the one list of settings. It is never modified.
var table = []field{
	{key: "llm_provider", env: "LLM_PROVIDER", def: "gemini", allowed: []string{"gemini", "ollama", "openai"},
		desc: "Which LLM service to use: gemini, ollama or openai (any OpenAI-compatible server).",
		ptr:  func(s *Settings) any { return &s.LLMProvider }},
	{key: "gemini_api_key", env: "GEMINI_API_KEY", def: "", secret: true,
		desc: "API key for Google Gemini.",
		ptr:  func(s *Settings) any { return &s.GeminiAPIKey }},
	{key: "gemini_model", env: "GEMINI_MODEL", def: "gemini-flash-latest",
		desc: "Gemini model name (gemini-flash-latest follows Google's current Flash model).",
		ptr:  func(s *Settings) any { return &s.GeminiModel }},
	{key: "gemini_base_url", env: "GEMINI_BASE_URL", def: "https://generativelanguage.googleapis.com/v1beta/openai/", check: isURL, format: urlFormat,
		desc: "Gemini's OpenAI-compatible endpoint.",
		ptr:  func(s *Settings) any { return &s.GeminiBaseURL }},
	{key: "ollama_host", env: "OLLAMA_HOST", def: "http://localhost:11434",
		desc: "Where Ollama listens (a URL or host:port).",
		ptr:  func(s *Settings) any { return &s.OllamaHost }},
	{key: "ollama_model", env: "OLLAMA_MODEL", def: "glm-4.7-flash:q8_0",
		desc: "Ollama model name.",
		ptr:  func(s *Settings) any { return &s.OllamaModel }},
	{key: "openai_base_url", env: "OPENAI_BASE_URL", def: "", check: isURL, format: urlFormat,
		desc: "Base URL of an OpenAI-compatible server, e.g. https://api.openai.com/v1.",
		ptr:  func(s *Settings) any { return &s.OpenAIBaseURL }},
	{key: "openai_api_key", env: "OPENAI_API_KEY", def: "", secret: true,
		desc: "API key for the OpenAI-compatible server.",
		ptr:  func(s *Settings) any { return &s.OpenAIAPIKey }},
	{key: "openai_model", env: "OPENAI_MODEL", def: "",
		desc: "Model name on the OpenAI-compatible server.",
		ptr:  func(s *Settings) any { return &s.OpenAIModel }},
	{key: "obsidian_vault_path", env: "OBSIDIAN_VAULT_PATH", def: "", path: true,
		desc: "Obsidian vault the notes tools read.",
		ptr:  func(s *Settings) any { return &s.ObsidianVaultPath }},
	{key: "slack_bot_token", env: "SLACK_BOT_TOKEN", def: "", secret: true,
		desc: "Slack bot token (xoxb-...) for the Slack tools.",
		ptr:  func(s *Settings) any { return &s.SlackBotToken }},
	{key: "slack_member_id", env: "CO_CLI_SLACK_MEMBER_ID", def: "", check: isMemberID, format: memberIDFormat,
		desc: "Your own Slack member ID (U0123ABC): a scheduled run's answer may go to your DM with the bot.",
		ptr:  func(s *Settings) any { return &s.SlackMemberID }},
	{key: "google_credentials_path", env: "GOOGLE_CREDENTIALS_PATH", def: "", path: true,
		desc: "Google OAuth credentials file for the Drive, Gmail and Calendar tools.",
		ptr:  func(s *Settings) any { return &s.GoogleCredentialsPath }},
	{key: "brave_search_api_key", env: "BRAVE_SEARCH_API_KEY", def: "", secret: true,
		desc: "Brave Search API key for web search.",
		ptr:  func(s *Settings) any { return &s.BraveSearchAPIKey }},
	{key: "auto_confirm", env: "CO_CLI_AUTO_CONFIRM", def: false,
		desc: "Approve tool calls without asking (deny rules still apply).",
		ptr:  func(s *Settings) any { return &s.AutoConfirm }},
	{key: "docker_image", env: "CO_CLI_DOCKER_IMAGE", def: "co-cli-sandbox",
		desc: "Docker image the sandbox runs shell commands in.",
		ptr:  func(s *Settings) any { return &s.DockerImage }},
	{key: "theme", env: "CO_CLI_THEME", def: "auto", allowed: []string{"auto", "light", "dark"},
		desc: "Colour theme: auto (ask the terminal for its background), light or dark.",
		ptr:  func(s *Settings) any { return &s.Theme }},
	{key: "notify", env: "CO_CLI_NOTIFY", def: "auto", allowed: []string{"auto", "off", "bell", "osc9", "osc777"},
		desc: "How the full-screen chat tells you a turn ended or an approval waits while its terminal is not focused: auto (picked for your terminal), off, bell, osc9 or osc777.",
		ptr:  func(s *Settings) any { return &s.Notify }},
	{key: "tool_retries", env: "CO_CLI_TOOL_RETRIES", def: 3, min: 0,
		desc: "How many times the model may retry a tool call it got wrong (a command that ran and failed is not one).",
		ptr:  func(s *Settings) any { return &s.ToolRetries }},
	{key: "max_request_limit", env: "CO_CLI_MAX_REQUEST_LIMIT", def: 25, min: 1,
		desc: "Most LLM requests in one turn.",
		ptr:  func(s *Settings) any { return &s.MaxRequestLimit }},
	{key: "llm_stall_timeout", env: "CO_CLI_LLM_STALL_TIMEOUT", def: 60, min: 1,
		desc: "Seconds without a streamed chunk before the turn ends.",
		ptr:  func(s *Settings) any { return &s.LLMStallTimeout }},
	{key: "sandbox_backend", env: "CO_CLI_SANDBOX_BACKEND", def: "auto", allowed: []string{"auto", "docker", "subprocess"},
		desc: "Where shell commands run: auto (Docker if it answers), docker or subprocess.",
		ptr:  func(s *Settings) any { return &s.SandboxBackend }},
	{key: "sandbox_fallback", env: "CO_CLI_SANDBOX_FALLBACK", def: "warn", allowed: []string{"warn", "error"},
		desc: "When auto finds no Docker: warn and run unisolated, or stop with an error.",
		ptr:  func(s *Settings) any { return &s.SandboxFallback }},
	{key: "sandbox_max_timeout", env: "CO_CLI_SANDBOX_MAX_TIMEOUT", def: 600, min: 1,
		desc: "Longest a shell command may run, in seconds.",
		ptr:  func(s *Settings) any { return &s.SandboxMaxTimeout }},
	{key: "sandbox_network", env: "CO_CLI_SANDBOX_NETWORK", def: "none", allowed: []string{"none", "bridge"},
		desc: "Sandbox network: none (no network) or bridge.",
		ptr:  func(s *Settings) any { return &s.SandboxNetwork }},
	{key: "sandbox_mem_limit", env: "CO_CLI_SANDBOX_MEM_LIMIT", def: "1g", check: isMemSize, format: memFormat,
		desc: "Sandbox memory limit, e.g. 512m or 1g.",
		ptr:  func(s *Settings) any { return &s.SandboxMemLimit }},
	{key: "sandbox_cpus", env: "CO_CLI_SANDBOX_CPUS", def: 1.0, min: 0, minExclusive: true,
		desc: "CPUs the sandbox may use, e.g. 1 or 1.5.",
		ptr:  func(s *Settings) any { return &s.SandboxCPUs }},
	{key: "sandbox_git_readonly", env: "CO_CLI_SANDBOX_GIT_READONLY", def: true,
		desc: "Mount the workspace's .git read-only in the sandbox.",
		ptr:  func(s *Settings) any { return &s.SandboxGitReadonly }},
	{key: "shell_safe_commands", env: "CO_CLI_SHELL_SAFE_COMMANDS", def: []string{
		"ls", "cat", "head", "tail", "grep", "rg", "find", "pwd", "echo", "wc", "which", "tree", "file", "stat",
		"date", "whoami", "uname", "sort", "uniq", "cut", "tr", "du", "df", "diff",
		"git status", "git log", "git diff", "git show", "git branch"},
		desc: "Read-only commands that run without asking.",
		ptr:  func(s *Settings) any { return &s.ShellSafeCommands }},
	{key: "shell_policy", env: "CO_CLI_SHELL_POLICY", def: []PolicyRule(nil),
		desc: "Shell rules: commands matching \"match\" are allowed, asked about or denied.",
		ptr:  func(s *Settings) any { return &s.ShellPolicy }},
	{key: "mcp_servers", env: "CO_CLI_MCP_SERVERS", def: []MCPServer(nil),
		desc: "MCP servers whose tools co offers: a name mapped to {\"command\", \"args\", \"env\", \"cwd\"} or {\"url\", \"headers\"}.",
		ptr:  func(s *Settings) any { return &s.MCPServers }},
	// No environment variable: a schedule installs an entry in the system's
	// scheduler, which must agree with the one file co edits.
	{key: "schedules", env: "", def: []Schedule(nil),
		desc: "Scheduled runs: a name mapped to {\"at\", \"prompt\", \"workspace\", \"tools\", \"approve\", \"notify\"} (co schedule add writes them).",
		ptr:  func(s *Settings) any { return &s.Schedules }},
	// No environment variable: a hook runs a command on the host, and
	// /hooks names the file each came from.
	{key: "hooks", env: "", def: hooks.Config(nil),
		desc: "Commands run at fixed points of a turn, in Claude Code's format: an event (PreToolUse, PostToolUse, …) mapped to [{\"matcher\", \"hooks\": [{\"type\": \"command\", \"command\", \"timeout\", \"on_failure\"}]}].",
		ptr:  func(s *Settings) any { return &s.Hooks }},
	{key: "max_cost", env: "CO_CLI_MAX_COST", def: 0.0, min: 0,
		desc: "Most a session may cost, in US dollars (lib/cost's prices): a turn that reaches it stops after that call; 0: no limit.",
		ptr:  func(s *Settings) any { return &s.MaxCost }},
	{key: "model_prices", env: "CO_CLI_MODEL_PRICES", def: cost.Prices(nil),
		desc: "Prices that override or add to co's table: a model mapped to {\"input\", \"cached_input\", \"output\", \"reasoning\"}, US dollars per million tokens.",
		ptr:  func(s *Settings) any { return &s.ModelPrices }},
	{key: "grant_max_uses", env: "CO_CLI_GRANT_MAX_USES", def: 20, min: 1,
		desc: "How many calls one approve-for-session grant covers.",
		ptr:  func(s *Settings) any { return &s.GrantMaxUses }},
	{key: "grant_ttl_minutes", env: "CO_CLI_GRANT_TTL_MINUTES", def: 30, min: 1,
		desc: "Minutes an approve-for-session grant lasts.",
		ptr:  func(s *Settings) any { return &s.GrantTTLMinutes }},
	{key: "yolo_unsandboxed", env: "CO_CLI_YOLO_UNSANDBOXED", def: false,
		desc: "Let /yolo approve everything even when commands run without isolation.",
		ptr:  func(s *Settings) any { return &s.YoloUnsandboxed }},
	{key: "yolo_max_uses", env: "CO_CLI_YOLO_MAX_USES", def: 50, min: 1,
		desc: "How many calls /yolo (or auto_confirm) approves before it turns itself off.",
		ptr:  func(s *Settings) any { return &s.YoloMaxUses }},
	{key: "yolo_ttl_minutes", env: "CO_CLI_YOLO_TTL_MINUTES", def: 30, min: 1,
		desc: "Minutes /yolo (or auto_confirm) lasts once on.",
		ptr:  func(s *Settings) any { return &s.YoloTTLMinutes }},
	{key: "tool_output_trim_chars", env: "CO_CLI_TOOL_OUTPUT_TRIM_CHARS", def: 2000, min: 0,
		desc: "Old tool outputs in the history are trimmed to this many characters.",
		ptr:  func(s *Settings) any { return &s.ToolOutputTrimChars }},
	{key: "max_history_messages", env: "CO_CLI_MAX_HISTORY_MESSAGES", def: 40, min: 4,
		desc: "Past this many messages, older history is summarised.",
		ptr:  func(s *Settings) any { return &s.MaxHistoryMessages }},
	{key: "reasoning_effort", env: "CO_CLI_REASONING_EFFORT", def: "", check: isEffort, format: `"low", "medium" or "high" (empty: the provider's default)`,
		desc: "How hard a thinking model reasons: low, medium or high; empty leaves the provider's default.",
		ptr:  func(s *Settings) any { return &s.ReasoningEffort }},
	{key: "llm_max_tokens", env: "CO_CLI_LLM_MAX_TOKENS", def: 0, min: 0,
		desc: "Most tokens in one reply; 0 means co's default bound, 8192 (32768 for a model that thinks) within the context window (max_completion_tokens for OpenAI's reasoning models, num_predict for Ollama).",
		ptr:  func(s *Settings) any { return &s.LLMMaxTokens }},
	// The range the providers take: docs/SOURCES.md#llm-providers-the-temperature-range.
	{key: "llm_temperature", env: "CO_CLI_LLM_TEMPERATURE", def: -1.0, min: 0, max: 2, maxSet: true, none: -1, noneSet: true,
		desc: "Sampling temperature, from 0 to 2; -1 sends none (the model's default). Never sent to gpt-5 or o-series models.",
		ptr:  func(s *Settings) any { return &s.LLMTemperature }},
	{key: "ollama_num_ctx", env: "CO_CLI_OLLAMA_NUM_CTX", def: 0, min: 0,
		desc: "Context window (tokens) asked of Ollama; 0: 32768, or the model's maximum when smaller.",
		ptr:  func(s *Settings) any { return &s.OllamaNumCtx }},
	{key: "llm_context_window", env: "CO_CLI_LLM_CONTEXT_WINDOW", def: 0, min: 0,
		desc: "The model's context window in tokens; 0: learned from the server (Ollama's num_ctx, llama.cpp's /props, vLLM's max_model_len) or co's table of models.",
		ptr:  func(s *Settings) any { return &s.LLMContextWindow }},
	{key: "llm_tool_groups", env: "CO_CLI_LLM_TOOL_GROUPS", def: []string(nil), check: isToolGroup, format: toolGroupFormat,
		desc: "The tool groups sent to the model (shell, files, todo, memory, web, notes, skills, google, slack, mcp, other); empty: all.",
		ptr:  func(s *Settings) any { return &s.LLMToolGroups }},
	{key: "show_reasoning", env: "CO_CLI_SHOW_REASONING", def: true,
		desc: "Show the model's reasoning (dimmed, collapsed once the answer starts).",
		ptr:  func(s *Settings) any { return &s.ShowReasoning }},
	{key: "summarization_model", env: "CO_CLI_SUMMARIZATION_MODEL", def: "",
		desc: "Model that summarises old history (empty: the chat model).",
		ptr:  func(s *Settings) any { return &s.SummarizationModel }},
	{key: "telemetry_capture_content", env: "CO_CLI_TELEMETRY_CAPTURE_CONTENT", def: true,
		desc: "Record prompts, replies and tool arguments in traces (secrets are redacted).",
		ptr:  func(s *Settings) any { return &s.TelemetryCaptureContent }},
	{key: "telemetry_retention_days", env: "CO_CLI_TELEMETRY_RETENTION_DAYS", def: 30, min: 1,
		desc: "Days traces are kept.",
		ptr:  func(s *Settings) any { return &s.TelemetryRetentionDays }},
	{key: "telemetry_max_mb", env: "CO_CLI_TELEMETRY_MAX_MB", def: 200, min: 1,
		desc: "Largest the trace database may grow, in MB.",
		ptr:  func(s *Settings) any { return &s.TelemetryMaxMB }},
	{key: "memory_enabled", env: "CO_CLI_MEMORY_ENABLED", def: true,
		desc: "Remember things across sessions: the memory tools, and relevant memories recalled into each turn.",
		ptr:  func(s *Settings) any { return &s.MemoryEnabled }},
	{key: "memory_auto_save", env: "CO_CLI_MEMORY_AUTO_SAVE", def: false,
		desc: "Save memories without asking (forgetting still asks).",
		ptr:  func(s *Settings) any { return &s.MemoryAutoSave }},
	{key: "web_allow_private", env: "CO_CLI_WEB_ALLOW_PRIVATE", def: false,
		desc: "Let web tools fetch private and loopback addresses.",
		ptr:  func(s *Settings) any { return &s.WebAllowPrivate }},
	{key: "context_files", env: "CO_CLI_CONTEXT_FILES", def: []string(nil), check: isFileName, format: fileNameFormat,
		desc: "More instruction files read beside AGENTS.md (e.g. CLAUDE.md, GEMINI.md): plain file names.",
		ptr:  func(s *Settings) any { return &s.ContextFiles }},
	{key: "brave_search_base_url", env: "BRAVE_SEARCH_BASE_URL", def: "https://api.search.brave.com/res/v1", check: isURL, format: urlFormat,
		desc: "Brave Search API endpoint.",
		ptr:  func(s *Settings) any { return &s.BraveSearchBaseURL }},
}

// Fields returns the table of settings in display order.
func Fields() []Field {
	out := make([]Field, len(table))
	for i := range table {
		f := &table[i]
		out[i] = Field{
			Key:         f.key,
			Env:         f.env,
			Kind:        f.kind(),
			Default:     cloneValue(f.def),
			Description: f.desc,
			Secret:      f.secret,
			Allowed:     slices.Clone(f.allowed),
			Constraint:  f.constraint(),
			UserOnly:    !projectMaySet(f.key),
			ProjectWhy:  projectWhy(f.key),
		}
	}
	return out
}

// lookupField returns the row for key, or nil.
func lookupField(key string) *field {
	for i := range table {
		if table[i].key == key {
			return &table[i]
		}
	}
	return nil
}

// kind derives the row's Kind from the type of its Settings field.
func (f *field) kind() Kind {
	var s Settings
	switch f.ptr(&s).(type) {
	case *bool:
		return KindBool
	case *int:
		return KindInt
	case *float64:
		return KindFloat
	case *[]string:
		return KindStringList
	case *[]PolicyRule:
		return KindPolicy
	case *[]MCPServer:
		return KindMCP
	case *[]Schedule:
		return KindSchedules
	case *hooks.Config:
		return KindHooks
	case *cost.Prices:
		return KindPrices
	}
	return KindString
}

// constraint says in words which values are allowed.
func (f *field) constraint() string {
	switch {
	case len(f.allowed) > 0:
		return orList(f.allowed)
	case f.check != nil:
		return f.format
	}
	switch f.kind() {
	case KindInt, KindFloat:
		num := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
		if f.maxSet {
			c := "from " + num(f.min) + " to " + num(f.max)
			if f.noneSet {
				c += ", or " + num(f.none) + " for none"
			}
			return c
		}
		op := ">="
		if f.minExclusive {
			op = ">"
		}
		return op + " " + num(f.min)
	case KindPolicy:
		return `decision "allow", "ask" or "deny"`
	}
	return ""
}

// expected says what a value of the row must be when it is not even of its
// kind ("a number", or "a number from 0 to 2" where the range is bounded).
func (f *field) expected() string {
	if f.maxSet {
		return f.kind().expected() + " " + f.constraint()
	}
	return f.kind().expected()
}

// validate checks a value of the row's kind and returns the full message
// (`"theme" must be "auto", "light" or "dark", got "blue"`), or "" when it is fine.
func (f *field) validate(v any) string {
	k := quoteKey(f.key)
	switch v := v.(type) {
	case string:
		if len(f.allowed) > 0 && !slices.Contains(f.allowed, v) {
			return k + "must be " + orList(f.allowed) + ", got " + quote(v)
		}
		if f.check != nil && v != "" && !f.check(v) {
			return k + "must be " + f.format + ", got " + quote(v)
		}
	case int:
		if !f.inRange(float64(v)) {
			return k + "must be an integer " + f.constraint() + ", got " + strconv.Itoa(v)
		}
	case float64:
		if !f.inRange(v) {
			return k + "must be a number " + f.constraint() + ", got " + strconv.FormatFloat(v, 'g', -1, 64)
		}
	case []string:
		if f.check != nil {
			for i, item := range v {
				if !f.check(item) {
					return fmt.Sprintf("%q[%d] must be %s, got %s", f.key, i, f.format, quote(item))
				}
			}
		}
	case []PolicyRule:
		for i, r := range v {
			if msg := validateRule(r); msg != "" {
				return fmt.Sprintf("%q[%d]%s", f.key, i, msg)
			}
		}
	case []Schedule:
		for _, s := range v {
			if msg := validateSchedule(s); msg != "" {
				return strconv.Quote(f.key) + "." + s.Name + msg
			}
		}
	}
	return ""
}

func (f *field) inRange(v float64) bool {
	if f.noneSet && v == f.none {
		return true
	}
	if f.maxSet && !(v <= f.max) {
		return false
	}
	if f.minExclusive {
		return v > f.min
	}
	return v >= f.min
}

// validateRule returns what is wrong with r (".decision must be ..."), or "".
func validateRule(r PolicyRule) string {
	if strings.TrimSpace(r.Match) == "" {
		return `.match must be a non-empty command prefix like "git push", got ` + quote(r.Match)
	}
	if !slices.Contains(decisions, r.Decision) {
		return ".decision must be " + orList(decisions) + ", got " + quote(r.Decision)
	}
	return ""
}

// decisions are the values PolicyRule.Decision may take.
var decisions = []string{"allow", "ask", "deny"}

const (
	urlFormat = "an http or https URL"
	memFormat = "a memory size of at least 6m (a number with an optional b, k, m or g suffix), like 512m or 1g"
)

// isFileName allows a plain file name: no directory, not "." or "..".
func isFileName(s string) bool {
	return s != "" && s != "." && s != ".." && !strings.ContainsAny(s, `/\`+"\x00")
}

// isToolGroup allows the tool groups of agent.ToolGroups.
func isToolGroup(s string) bool {
	switch s {
	case "shell", "files", "todo", "memory", "web", "notes", "skills", "google", "slack", "mcp", "other":
		return true
	}
	return false
}

const toolGroupFormat = `one of shell, files, todo, memory, web, notes, skills, google, slack, mcp, other`

const fileNameFormat = `a plain file name such as "CLAUDE.md" (no "/" or "\")`

// isURL allows absolute http and https URLs.
func isEffort(s string) bool { return s == "" || s == "low" || s == "medium" || s == "high" }

// isMemberID allows a Slack member ID: U… or W… (Enterprise Grid), then
// capitals and digits.
func isMemberID(s string) bool { return (s[0] == 'U' || s[0] == 'W') && slackTarget(s) }

const memberIDFormat = "a Slack member ID like U0123ABC (in Slack: your profile → ⋮ → Copy member ID)"

func isURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// isMemSize allows the sizes MemoryBytes accepts.
func isMemSize(s string) bool {
	_, err := MemoryBytes(s)
	return err == nil
}

// MemoryBytes parses a Docker memory size (a number with an optional b, k,
// m or g suffix, any case: "512m", "1g", "1.5g", "1073741824") into bytes.
// Docker refuses limits under 6 MiB, and so does MemoryBytes.
func MemoryBytes(s string) (int64, error) {
	num, mult := s, 1.0
	if n := len(s); n > 0 {
		switch s[n-1] {
		case 'b', 'B':
			num = s[:n-1]
		case 'k', 'K':
			num, mult = s[:n-1], 1<<10
		case 'm', 'M':
			num, mult = s[:n-1], 1<<20
		case 'g', 'G':
			num, mult = s[:n-1], 1<<30
		}
	}
	bad := fmt.Errorf("memory size %q: want a number with an optional b, k, m or g suffix, like 512m or 1g", s)
	if num == "" || strings.Trim(num, "0123456789.") != "" || strings.Count(num, ".") > 1 ||
		num[0] == '.' || num[len(num)-1] == '.' {
		return 0, bad
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v*mult > 1<<62 {
		return 0, bad
	}
	b := int64(v * mult)
	if b < 6<<20 {
		return 0, fmt.Errorf("memory size %q: Docker needs at least 6m", s)
	}
	return b, nil
}

// orList renders values as `"a"`, `"a" or "b"`, `"a", "b" or "c"`.
func orList(vs []string) string {
	q := make([]string, len(vs))
	for i, v := range vs {
		q[i] = strconv.Quote(v)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}

// quote quotes s for a message, shortened when long.
func quote(s string) string {
	const limit = 60
	if len(s) > limit {
		r := []rune(s)
		if len(r) > limit {
			s = string(r[:limit]) + "…"
		}
	}
	return strconv.Quote(s)
}

// cloneValue copies the slices in a setting value.
func cloneValue(v any) any {
	switch v := v.(type) {
	case []string:
		return slices.Clone(v)
	case []PolicyRule:
		return slices.Clone(v)
	case []MCPServer:
		return cloneMCP(v)
	case []Schedule:
		return cloneSchedules(v)
	case hooks.Config:
		return cloneHooks(v)
	case cost.Prices:
		return cost.Prices(nil).With(v)
	}
	return v
}
