// Package message is co's conversation model: the messages, the tool calls
// and how they ended, and the asides a conversation shows beside them. It is
// plain data, below both the agent that makes a conversation and the stores
// that keep one (sessions), so that storage does not depend on the turn
// loop.
package message

import (
	"encoding/json"

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
	// Attachments are the images and PDFs a user message carries
	// (attachment.go).
	Attachments []Attachment `json:"attachments,omitempty"`
	// InputTokens, for an assistant message, is the prompt tokens the
	// server counted for the request that produced it: saved, never sent,
	// so a resumed conversation knows how full the window was.
	InputTokens int `json:"input_tokens,omitempty"`
}

// InterruptedResult is the tool result given to a call the user interrupted.
const InterruptedResult = "Interrupted by the user."

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
	out := append([]Message(nil), msgs...)
	// Results must follow their assistant message; walk assistant messages
	// and insert missing results right after that message's existing ones.
	for i := 0; i < len(out); i++ {
		j, missing := unansweredAt(out, i)
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

// Unanswered returns the results PatchDangling would add, in order.
func Unanswered(msgs []Message) []Message {
	var out []Message
	for i := range msgs {
		_, missing := unansweredAt(msgs, i)
		out = append(out, missing...)
	}
	return out
}

// unansweredAt returns, for an assistant message at i, an "Interrupted by
// the user." result for each of its calls that the tool messages right
// after it do not answer, and where they go. Ids are matched there only:
// servers that number calls per response repeat them across turns.
func unansweredAt(msgs []Message, i int) (int, []Message) {
	m := msgs[i]
	if m.Role != RoleAssistant || len(m.ToolCalls) == 0 {
		return i + 1, nil
	}
	answered := map[string]int{}
	j := i + 1
	for ; j < len(msgs) && msgs[j].Role == RoleTool; j++ {
		answered[msgs[j].ToolCallID]++
	}
	var missing []Message
	for _, tc := range m.ToolCalls {
		if answered[tc.ID] > 0 {
			answered[tc.ID]--
			continue
		}
		missing = append(missing, Message{Role: RoleTool, ToolCallID: tc.ID, ToolName: tc.Name, Content: InterruptedResult})
	}
	return j, missing
}

// ResultOf returns the result of the call id made by the assistant
// message at i: the first tool message right after it that answers id.
func ResultOf(msgs []Message, i int, id string) (Message, bool) {
	for j := i + 1; j < len(msgs) && msgs[j].Role == RoleTool; j++ {
		if msgs[j].ToolCallID == id {
			return msgs[j], true
		}
	}
	return Message{}, false
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
