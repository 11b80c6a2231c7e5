package agent

import (
	"encoding/json"
	"strings"

	"github.com/co-cli/co/message"
)

// Outcome rebuilds how a saved call ended from the result the agent gave
// the model (a resumed session): interrupted, denied (by the user or by
// policy), failed or sent back as a retry, or done with its display text.
// The agent writes these results, so it is the one that reads them back.
func Outcome(c message.ToolCall, result message.Message) ToolCallFinished {
	f := ToolCallFinished{CallID: c.ID, Name: c.Name, Status: message.CallDone}
	content := result.Content
	var obj struct {
		Display *string `json:"display"`
		Status  string  `json:"status"`
		By      string  `json:"denied_by"`
		Reason  string  `json:"reason"`
	}
	isJSON := json.Unmarshal([]byte(content), &obj) == nil
	switch {
	case content == message.InterruptedResult:
		f.Status, f.Err = message.CallInterrupted, content
	case isJSON && obj.Status == "waiting":
		f.Status, f.Decision, f.Err = message.CallWaiting, message.ByWaiting, Waiting
	case isJSON && obj.Status == "denied":
		f.Status, f.Decision, f.Err = message.CallDenied, message.ByUserDenied, "denied by the user"
		switch obj.By {
		case "policy":
			f.Decision, f.Err = message.ByPolicyDeny, PolicyDenied(obj.Reason)
		case "nobody":
			f.Decision, f.Err = message.ByHeadless, NeedsApproval
		case "hook":
			f.Decision, f.Err = message.ByHookDeny, "blocked by a hook"
			if obj.Reason != "" {
				f.Err += ": " + obj.Reason
			}
		}
	case strings.HasPrefix(content, errorPrefix):
		msg := strings.TrimSuffix(strings.TrimPrefix(content, errorPrefix), retryHint)
		f.Status, f.Err = message.CallRetry, msg
		switch {
		case strings.HasPrefix(msg, failedPrefix):
			// Why it failed on the first line; what a failed command
			// printed (tools.Failed) after it, shown as its output.
			why, out, _ := strings.Cut(strings.TrimPrefix(msg, failedPrefix), "\n")
			f.Status, f.Err, f.Result.Display = message.CallFailed, why, out
		case c.Name == shellToolName && oldShellFailure(msg):
			// Saved before a command's failure was its own kind: it
			// ran and failed, the model did not call it wrongly.
			why, out, _ := strings.Cut(msg, "\n")
			f.Status, f.Err, f.Result.Display = message.CallFailed, why, out
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

// oldShellFailure reports whether a shell call's error, saved by a co that
// sent a command's non-zero exit or timeout back as a retry, says it ran
// and failed.
func oldShellFailure(msg string) bool {
	return strings.HasPrefix(msg, "the command exited with code ") || strings.HasPrefix(msg, "the command timed out after ")
}
