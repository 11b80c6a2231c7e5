package message

import (
	"time"

	"github.com/co-cli/co/tools"
)

// CallStatus is how a tool call ended.
type CallStatus int

const (
	CallDone        CallStatus = iota // ran and returned a result
	CallFailed                        // ran and failed (infrastructure error or a non-zero exit)
	CallRetry                         // the model called it wrongly; the message went back to it
	CallDenied                        // denied by the user or by policy; it did not run
	CallInterrupted                   // cancelled by the user
	// CallWaiting: an unattended (scheduled) run could not make it alone;
	// it did not run and waits for the user's approval (co inbox).
	CallWaiting
)

func (s CallStatus) String() string {
	return [...]string{"done", "failed", "retry", "denied", "interrupted", "waiting"}[s]
}

// Source says who decided that a call runs (or does not).
type Source string

const (
	ByPolicy       Source = "policy allow"
	ByUser         Source = "user approved"
	ByUserDenied   Source = "user denied"
	BySessionGrant Source = "session grant"
	ByYolo         Source = "yolo"
	ByPolicyDeny   Source = "policy deny"
	// ByYes is `co run --yes`: approved as /yolo would have been.
	ByYes Source = "--yes"
	// ByHeadless is a call that needed approval with nobody there to give
	// it (co run): it did not run, and no one denied it.
	ByHeadless Source = "needs approval"
	// ByWaiting is a call an unattended (scheduled) run kept waiting for
	// the user's approval: it did not run, and no one denied it.
	ByWaiting Source = "waiting for approval"
	// BySchedule is a call of a tool the schedule's approve list names
	// (the user's settings): it ran unattended.
	BySchedule Source = "schedule's approve list"
	// ByDraft is a draft (a mail saved unsent) an unattended run made:
	// what the user reviews before anything leaves.
	ByDraft Source = "draft, unattended"
	// ByHook is a call a PreToolUse hook of the user's allowed without
	// asking (only where /yolo could have).
	ByHook Source = "hook allow"
	// ByHookDeny is a call a PreToolUse hook blocked: it did not run.
	ByHookDeny Source = "hook deny"
)

// ToolCallFinished says a tool call ended, whichever way.
type ToolCallFinished struct {
	CallID   string
	Name     string
	Status   CallStatus
	Result   tools.Result // what the tool returned (Display is shown verbatim)
	Err      string       // why it failed, was denied or must be retried
	Decision Source       // who let it run, or who stopped it
	Duration time.Duration
	Bang     bool
}

// Verdict is the user's answer for one call awaiting approval.
type Verdict int

const (
	Deny           Verdict = iota // do not run it
	ApproveOnce                   // run it this time
	ApproveSession                // run it and grant its scope for the session
	// Unattended: nobody was there to ask (co run); it does not run, and
	// it is recorded as needing approval, not as denied by the user.
	Unattended
	// Wait: nobody was there to ask (a scheduled run); it does not run
	// and is kept waiting for the user's approval (sessions.Pending).
	Wait
)

// String names a verdict for the saved record.
func (v Verdict) String() string {
	switch v {
	case ApproveOnce:
		return "approved once"
	case ApproveSession:
		return "approved for the session"
	case Unattended:
		return "needs approval (no one to ask)"
	case Wait:
		return "waiting for approval"
	default:
		return "denied"
	}
}

// Usage counts tokens as the provider reported them, and what they cost.
type Usage struct {
	InputTokens  int
	OutputTokens int
	// CachedTokens: the part of InputTokens the provider served from its
	// prompt cache (billed at its cached price); ReasoningTokens: the part
	// of OutputTokens spent reasoning.
	CachedTokens    int
	ReasoningTokens int
	// Cost is what the priced calls cost, in US dollars (lib/cost).
	Cost float64
	// Unpriced names a model some of the calls went to that has no
	// known price (their tokens are counted, their cost is not); "" when
	// every call was priced.
	Unpriced string
}

// Add returns u + o.
func (u Usage) Add(o Usage) Usage {
	s := Usage{
		InputTokens: u.InputTokens + o.InputTokens, OutputTokens: u.OutputTokens + o.OutputTokens,
		CachedTokens: u.CachedTokens + o.CachedTokens, ReasoningTokens: u.ReasoningTokens + o.ReasoningTokens,
		Cost: u.Cost + o.Cost, Unpriced: u.Unpriced,
	}
	if o.Unpriced != "" {
		s.Unpriced = o.Unpriced
	}
	return s
}

// Total is input + output.
func (u Usage) Total() int { return u.InputTokens + u.OutputTokens }
