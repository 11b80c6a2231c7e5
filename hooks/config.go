// Package hooks runs the user's own commands at fixed points of a turn, in
// the settings format Claude Code's users already write:
//
//	"hooks": {"PreToolUse": [{"matcher": "run_shell_command",
//	  "hooks": [{"type": "command", "command": "~/bin/guard", "timeout": 10}]}]}
//
// A hook gets the event as JSON on its standard input; exit 0 continues
// (its standard output may hold a JSON decision), exit 2 blocks with its
// standard error as the reason, any other failure lets the action through
// unless the hook says "on_failure": "block". Hooks run on the host as the
// user, never in the sandbox, each in its own process group, killed at its
// timeout. Each run is a span.
//
// The package decides nothing about approvals: Run reports what the hooks
// said (Outcome), and the agent weighs it against the policy, which a hook
// can never widen.
package hooks

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// Event is a point of a turn at which hooks run.
type Event string

// The events, named as Claude Code names them.
const (
	SessionStart     Event = "SessionStart"     // a chat or run begins (source: startup or resume)
	UserPromptSubmit Event = "UserPromptSubmit" // the user sent a prompt, before the model sees it
	PreToolUse       Event = "PreToolUse"       // a tool call, before it is approved and run
	PostToolUse      Event = "PostToolUse"      // a tool call that ran, with its result
	Stop             Event = "Stop"             // the model finished its reply
	Notification     Event = "Notification"     // co waits for the user (an approval, a form)
	PreCompact       Event = "PreCompact"       // before the conversation is summarised
)

// Events are the events co runs hooks at, in the order of a turn.
var Events = []Event{SessionStart, UserPromptSubmit, PreToolUse, PostToolUse, Stop, Notification, PreCompact}

// claudeOnly are Claude Code's events co has no counterpart for: a file
// that names them still loads (its other hooks work), with a warning.
var claudeOnly = []string{"SessionEnd", "SubagentStop", "SubagentStart", "PostToolUseFailure", "PermissionRequest",
	"PermissionDenied", "PostCompact", "PreCompactDone", "TeammateIdle", "TaskCompleted", "ConfigChange",
	"WorktreeCreate", "WorktreeRemove", "UserPromptExpansion", "InstructionsLoaded", "Elicitation", "ElicitationResult"}

// matched are the events whose matcher is tested: against the tool's name
// (PreToolUse, PostToolUse), SessionStart's source, PreCompact's trigger
// and Notification's type. Elsewhere a matcher is ignored, as in Claude
// Code.
func matched(ev Event) bool {
	switch ev {
	case PreToolUse, PostToolUse, SessionStart, PreCompact, Notification:
		return true
	}
	return false
}

// DefaultTimeout is a hook's timeout when it gives none. Claude Code's is
// 600 s; co's is shorter because a PreToolUse hook that hangs holds the
// turn: a hook that needs longer says so with "timeout".
const DefaultTimeout = 60 * time.Second

// MaxTimeout bounds "timeout" (seconds).
const MaxTimeout = 3600

// OnFailure values.
const (
	FailOpen  = "continue" // the default: a crash, timeout or exit other than 0 and 2 lets the action through
	FailBlock = "block"    // the same failures block, as exit 2 does
)

// Hook is one command to run.
type Hook struct {
	Type      string `json:"type"`                 // "command" (the only type co runs)
	Command   string `json:"command"`              // run by bash -c (sh -c where there is no bash)
	Timeout   int    `json:"timeout,omitempty"`    // seconds; 0: DefaultTimeout
	OnFailure string `json:"on_failure,omitempty"` // "", "continue" or "block"
}

// timeout is the hook's timeout.
func (h Hook) timeout() time.Duration {
	if h.Timeout > 0 {
		return time.Duration(h.Timeout) * time.Second
	}
	return DefaultTimeout
}

// Group is a matcher and the hooks it runs.
type Group struct {
	// Matcher picks the calls (or sources, triggers) a group runs for, as
	// Claude Code reads it: "", "*" or absent match everything; a value of
	// only letters, digits, "_", "-" and "|" is a list of exact names
	// ("write_file|edit_file"); anything else is a regular expression
	// that may match anywhere in the name ("^mcp__github__").
	Matcher string `json:"matcher,omitempty"`
	Hooks   []Hook `json:"hooks"`
}

// Config is the "hooks" setting: for each event, its groups in order.
type Config map[Event][]Group

// Empty reports whether c holds no hook.
func (c Config) Empty() bool {
	for _, gs := range c {
		for _, g := range gs {
			if len(g.Hooks) > 0 {
				return false
			}
		}
	}
	return true
}

// Decode reads and checks a "hooks" setting. A Claude Code event co does
// not have is a warning, not an error, so a file brought over still loads;
// anything else wrong is an error that names the place and the fix.
func Decode(raw json.RawMessage) (Config, []string, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(raw, &top); err != nil || top == nil {
		return nil, nil, fmt.Errorf(`hooks: want an object from event name to a list of {"matcher": …, "hooks": [{"type": "command", "command": …}]}`)
	}
	c := Config{}
	var warnings []string
	names := make([]string, 0, len(top))
	for k := range top {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		ev := Event(name)
		if !slices.Contains(Events, ev) {
			if slices.Contains(claudeOnly, name) {
				warnings = append(warnings, fmt.Sprintf("hooks.%s: co has no %s event; those hooks never run (co's events: %s)", name, name, eventList()))
				continue
			}
			return nil, nil, fmt.Errorf("hooks.%s: no such event; co's events are %s", name, eventList())
		}
		var groups []Group
		if err := json.Unmarshal(top[name], &groups); err != nil {
			return nil, nil, fmt.Errorf(`hooks.%s: want a list of {"matcher": "…", "hooks": [{"type": "command", "command": "…"}]}: %v`, name, err)
		}
		for i, g := range groups {
			where := fmt.Sprintf("hooks.%s[%d]", name, i)
			if _, err := matcherFunc(g.Matcher); err != nil {
				return nil, nil, fmt.Errorf("%s.matcher %q is not a regular expression (Go's RE2 syntax): %v", where, g.Matcher, err)
			}
			if g.Matcher != "" && !matched(ev) {
				warnings = append(warnings, fmt.Sprintf("%s.matcher: %s hooks take no matcher; it is ignored", where, name))
			}
			if len(g.Hooks) == 0 {
				return nil, nil, fmt.Errorf(`%s: "hooks" is empty or missing: give at least one {"type": "command", "command": "…"}`, where)
			}
			for j, h := range g.Hooks {
				if err := check(h); err != nil {
					return nil, nil, fmt.Errorf("%s.hooks[%d]: %v", where, j, err)
				}
			}
		}
		c[ev] = groups
	}
	return c, warnings, nil
}

func check(h Hook) error {
	switch {
	case h.Type != "command":
		return fmt.Errorf(`"type" is %q: co runs only "command" hooks`, h.Type)
	case strings.TrimSpace(h.Command) == "":
		return fmt.Errorf(`"command" is empty: give the command to run`)
	case h.Timeout < 0 || h.Timeout > MaxTimeout:
		return fmt.Errorf(`"timeout" is %d: give seconds from 1 to %d (0 or none: %d)`, h.Timeout, MaxTimeout, int(DefaultTimeout/time.Second))
	case h.OnFailure != "" && h.OnFailure != FailOpen && h.OnFailure != FailBlock:
		return fmt.Errorf(`"on_failure" is %q: give "block" (a crash or timeout blocks) or "continue"`, h.OnFailure)
	}
	return nil
}

func eventList() string {
	s := make([]string, len(Events))
	for i, e := range Events {
		s[i] = string(e)
	}
	return strings.Join(s, ", ")
}

// matcherFunc reads a matcher as Claude Code does (its hooks reference,
// "Matcher patterns", https://code.claude.com/docs/en/hooks): everything,
// a list of exact names, or an unanchored regular expression.
func matcherFunc(m string) (func(string) bool, error) {
	m = strings.TrimSpace(m)
	if m == "" || m == "*" {
		return func(string) bool { return true }, nil
	}
	if !strings.ContainsFunc(m, func(r rune) bool {
		return !(r == '_' || r == '-' || r == '|' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		names := strings.Split(m, "|")
		return func(s string) bool { return slices.Contains(names, s) }, nil
	}
	re, err := regexp.Compile(m)
	if err != nil {
		return nil, err
	}
	return re.MatchString, nil
}
