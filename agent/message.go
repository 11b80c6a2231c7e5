package agent

import (
	"encoding/json"
	"strings"

	openai "github.com/sashabaranov/go-openai"

	"github.com/co-cli/co/tools"
)

// Role of a message in the conversation.
type Role string

const (
	RoleUser      Role = "user"
	RoleAssistant Role = "assistant"
	RoleTool      Role = "tool"
)

// ToolCall is one call the model made.
type ToolCall struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Args string `json:"args"`
	// Extra is the extra_content the provider attached to the call, kept
	// byte for byte and sent back as received (Gemini's
	// {"google":{"thought_signature":…}}; Vertex's under "vertex").
	Extra json.RawMessage `json:"extra,omitempty"`
}

// Message is one entry of the conversation history as co keeps it. It is
// plain data: no styling, no provider types.
type Message struct {
	Role    Role   `json:"role"`
	Content string `json:"content,omitempty"`
	// ToolCalls are the calls an assistant message made.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID and ToolName identify the call a tool message answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	ToolName   string `json:"tool_name,omitempty"`
	// Interrupted marks an assistant reply cut short by the user.
	Interrupted bool `json:"interrupted,omitempty"`
	// Reasoning is the reasoning ("thinking") the model streamed before an
	// assistant message, and ReasoningField the wire field it came in
	// (reasoning_content, reasoning or thinking): it goes back in that
	// field, to the provider that produced it, for turns that used tools.
	Reasoning      string `json:"reasoning,omitempty"`
	ReasoningField string `json:"reasoning_field,omitempty"`
	// Origin is the endpoint that produced an assistant message
	// (Provider.Origin) and Model the model it was asked for: reasoning and
	// signatures are only sent back where they came from.
	Origin string `json:"origin,omitempty"`
	Model  string `json:"model,omitempty"`
	// Shown, for a user message, is what the user typed when the model
	// got other text (a /NAME custom command or skill stands for its
	// file's text): saved, shown on resume, never sent.
	Shown string `json:"shown,omitempty"`
	// Sources say where the content came from when it is not the
	// workspace or the user (tools.Result.Origins; a summary's, those of
	// what it summarises): the conversation's Risk. Saved, never sent.
	Sources []tools.Origin `json:"sources,omitempty"`
}

// InterruptedResult is the tool result given to a call the user interrupted.
const InterruptedResult = "Interrupted by the user."

const interruptedNote = "\n\n[reply interrupted by the user]"

// PatchDangling returns msgs with an "Interrupted by the user." tool result
// appended for every tool call that has none, so the history is valid to send
// to a provider again. msgs itself is not modified.
func PatchDangling(msgs []Message) []Message {
	out, _ := PatchDanglingAsides(msgs, nil)
	return out
}

// PatchDanglingAsides is PatchDangling for a history with asides: each
// aside moves with the message it follows.
func PatchDanglingAsides(msgs []Message, xs []Aside) ([]Message, []Aside) {
	answered := map[string]bool{}
	for _, m := range msgs {
		if m.Role == RoleTool {
			answered[m.ToolCallID] = true
		}
	}
	out := append([]Message(nil), msgs...)
	// Results must follow their assistant message; walk assistant messages
	// and insert missing results right after that message's existing ones.
	for i := 0; i < len(out); i++ {
		m := out[i]
		if m.Role != RoleAssistant || len(m.ToolCalls) == 0 {
			continue
		}
		j := i + 1
		for j < len(out) && out[j].Role == RoleTool {
			j++
		}
		var missing []Message
		for _, tc := range m.ToolCalls {
			if !answered[tc.ID] {
				answered[tc.ID] = true
				missing = append(missing, Message{Role: RoleTool, ToolCallID: tc.ID, ToolName: tc.Name, Content: InterruptedResult})
			}
		}
		if len(missing) > 0 {
			out = append(out[:j], append(missing, out[j:]...)...)
			i = j + len(missing) - 1
			if len(xs) > 0 {
				xs = shiftAsides(xs, j, len(missing))
			}
		}
	}
	return out, xs
}

// shiftAsides returns xs with those after position at moved by n (n
// messages were inserted there).
func shiftAsides(xs []Aside, at, n int) []Aside {
	out := append([]Aside(nil), xs...)
	for i := range out {
		if out[i].After >= at {
			out[i].After += n
		}
	}
	return out
}

// toOpenAI converts the system prompt and history into the provider's form.
func toOpenAI(system string, msgs []Message) []openai.ChatCompletionMessage {
	out := make([]openai.ChatCompletionMessage, 0, len(msgs)+1)
	if system != "" {
		out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleSystem, Content: system})
	}
	for _, m := range msgs {
		switch m.Role {
		case RoleUser:
			out = append(out, openai.ChatCompletionMessage{Role: openai.ChatMessageRoleUser, Content: m.Content})
		case RoleAssistant:
			om := openai.ChatCompletionMessage{Role: openai.ChatMessageRoleAssistant, Content: m.Content}
			if m.Interrupted {
				om.Content += interruptedNote
			}
			for _, tc := range m.ToolCalls {
				args := tc.Args
				if !json.Valid([]byte(args)) {
					args = "{}"
				}
				om.ToolCalls = append(om.ToolCalls, openai.ToolCall{
					ID: tc.ID, Type: openai.ToolTypeFunction,
					Function: openai.FunctionCall{Name: tc.Name, Arguments: args},
				})
			}
			out = append(out, om)
		case RoleTool:
			out = append(out, openai.ChatCompletionMessage{
				Role: openai.ChatMessageRoleTool, Content: m.Content, ToolCallID: m.ToolCallID,
			})
		}
	}
	return out
}

// Outcome rebuilds how a saved call ended from the result the agent gave
// the model (a resumed session): interrupted, denied (by the user or by
// policy), failed or sent back as a retry, or done with its display text.
// The agent writes these results, so it is the one that reads them back.
func Outcome(c ToolCall, result Message) ToolCallFinished {
	f := ToolCallFinished{CallID: c.ID, Name: c.Name, Status: CallDone}
	content := result.Content
	var obj struct {
		Display *string `json:"display"`
		Status  string  `json:"status"`
		By      string  `json:"denied_by"`
		Reason  string  `json:"reason"`
	}
	isJSON := json.Unmarshal([]byte(content), &obj) == nil
	switch {
	case content == InterruptedResult:
		f.Status, f.Err = CallInterrupted, content
	case isJSON && obj.Status == "denied":
		f.Status, f.Decision, f.Err = CallDenied, ByUserDenied, "denied by the user"
		switch obj.By {
		case "policy":
			f.Decision, f.Err = ByPolicyDeny, PolicyDenied(obj.Reason)
		case "nobody":
			f.Decision, f.Err = ByHeadless, NeedsApproval
		}
	case strings.HasPrefix(content, errorPrefix):
		msg := strings.TrimSuffix(strings.TrimPrefix(content, errorPrefix), retryHint)
		f.Status, f.Err = CallRetry, msg
		if strings.HasPrefix(msg, failedPrefix) {
			f.Status, f.Err = CallFailed, strings.TrimPrefix(msg, failedPrefix)
		}
	case isJSON && obj.Display != nil:
		f.Result.Display = *obj.Display
	default:
		f.Result.Display = content
	}
	return f
}

// The shapes of error results sent to the model (see runOne).
const (
	errorPrefix  = "error: "
	failedPrefix = "the tool failed: "
	retryHint    = "\nFix the call and try again."
)
