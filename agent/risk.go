package agent

import (
	"fmt"
	"slices"
	"strings"

	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

// The rule that keeps what co reads from acting through co unseen.
//
// Every message that enters the conversation carries where its content came
// from (Message.Sources, from tools.Result.Origins). The conversation's Risk
// is the set of untrusted sources in it (web pages, strangers' mail and
// posts, shared documents, MCP results) and whether it holds the user's
// private data (workspace files, mail, memories, any tool result not known to
// be public). From the moment an untrusted source is there until /clear or
// a new session, a call whose Check is Outbound asks, and only the user can
// answer it: no session grant, yolo, --yes or "approve": "auto" covers it.
// Two exceptions keep ordinary reading pleasant: a destination the user gave
// exactly (Outbound.Exact: nothing the model chose leaves), and, until
// private data is in the conversation, a host the user named
// (Outbound.UserHost: the pages of the site the user asked about).

// Risk is what the conversation holds that matters to outbound calls.
type Risk struct {
	// Untrusted are the untrusted sources in the conversation, each once,
	// in the order they came in.
	Untrusted []tools.Origin
	// Private is true once the user's private data is in the conversation.
	Private bool
}

// Labels are the untrusted sources' names.
func (r Risk) Labels() []string { return Labels(r.Untrusted) }

// Labels are the names of origins, in order.
func Labels(origins []tools.Origin) []string {
	out := make([]string, len(origins))
	for i, o := range origins {
		out[i] = o.Label
	}
	return out
}

// RiskRaised says new untrusted content entered the conversation: from now
// on outbound calls ask. Untrusted is the whole list so far.
type RiskRaised struct {
	Untrusted []tools.Origin
	New       []tools.Origin
}

// AttachTag opens an attached file's block in a user message (ui/mention
// writes it): such a message holds workspace content, the user's data.
const AttachTag = "<attached-file path="

// splitAttached cuts a user message at its first attached file's block or
// its piped data, whichever comes first: what the user typed, and the
// text nobody typed (files the model may have written earlier, data piped
// to co run), which is not the user's word.
func splitAttached(prompt string) (typed, attached string) {
	cut := -1
	for _, mark := range []string{"\n" + AttachTag, message.PipedMark} {
		if i := strings.Index(prompt, mark); i >= 0 && (cut < 0 || i < cut) {
			cut = i
		}
	}
	if cut >= 0 {
		return prompt[:cut], prompt[cut:]
	}
	return prompt, ""
}

// privateMessage says whether m puts the user's private data in the
// conversation. A tool result is private unless every source it names is
// public (a result that names none is the workspace or the machine); a user
// message is, when it carries an attached file (text, an image or a PDF) or a
// private source (a summary of private messages).
func privateMessage(m message.Message) bool {
	switch m.Role {
	case message.RoleTool:
		if len(m.Sources) == 0 {
			return true
		}
		for _, s := range m.Sources {
			if !s.Public {
				return true
			}
		}
		return false
	case message.RoleUser:
		if strings.Contains(m.Content, AttachTag) || len(m.Attachments) > 0 {
			return true
		}
		for _, s := range m.Sources {
			if !s.Public {
				return true
			}
		}
	}
	return false
}

// add takes m's sources into r and returns the untrusted ones that are new.
func (r *Risk) add(m message.Message) (fresh []tools.Origin) {
	if privateMessage(m) {
		r.Private = true
	}
	for _, s := range m.Sources {
		if !s.Untrusted || r.has(s.Label) {
			continue
		}
		r.Untrusted = append(r.Untrusted, s)
		fresh = append(fresh, s)
	}
	return fresh
}

func (r *Risk) has(label string) bool {
	return slices.ContainsFunc(r.Untrusted, func(o tools.Origin) bool { return o.Label == label })
}

func (r Risk) clone() Risk {
	return Risk{Untrusted: slices.Clone(r.Untrusted), Private: r.Private}
}

// riskOf is the Risk of a whole history (a resumed conversation).
func riskOf(msgs []message.Message) Risk {
	var r Risk
	for _, m := range msgs {
		r.add(m)
	}
	return r
}

// summarySources are what a summary of msgs carries: their untrusted
// sources, and a private one when any of them was private, so a summarised
// conversation keeps its risk (and so does its saved copy).
func summarySources(msgs []message.Message) []tools.Origin {
	r := riskOf(msgs)
	out := slices.Clone(r.Untrusted)
	if r.Private {
		out = append(out, tools.Origin{Kind: "workspace", Label: "summarised messages"})
	}
	return out
}

// Risk is the conversation's risk state now.
func (a *Agent) Risk() Risk {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.risk.clone()
}

// RiskBrief is the first untrusted source in the conversation and how many
// there are ("", 0: none), for a status bar: it copies nothing.
func (a *Agent) RiskBrief() (first string, n int) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.risk.Untrusted) == 0 {
		return "", 0
	}
	return a.risk.Untrusted[0].Label, len(a.risk.Untrusted)
}

// RiskNotice is what a front end says when untrusted content enters.
func RiskNotice(e RiskRaised) string {
	return "Untrusted content entered the conversation: " + SourceList(Labels(e.New)) +
		". Until /clear, a call that sends data out, posts, or changes what runs later asks you, and only your answer runs it."
}

// HeldNotice is what a front end says of a conversation that holds
// untrusted content when it is shown again (a resumed session), "" when it
// holds none.
func HeldNotice(r Risk) string {
	if len(r.Untrusted) == 0 {
		return ""
	}
	return "This conversation holds untrusted content from " + SourceList(r.Labels()) +
		". Until /clear, a call that sends data out, posts, or changes what runs later asks you, and only your answer runs it."
}

// markPrivate records that private data is in the conversation (recalled
// memories in this turn's requests).
func (a *Agent) markPrivate() {
	a.mu.Lock()
	a.risk.Private = true
	a.mu.Unlock()
}

// guard applies the rule to one call's check: an outbound call after
// untrusted content asks, and nothing but the user may answer it. A denied
// call stays denied.
func (a *Agent) guard(c tools.Check) tools.Check {
	if c.Outbound == nil || c.Decision == tools.Deny || c.Outbound.Exact {
		return c
	}
	r := a.Risk()
	if len(r.Untrusted) == 0 || (c.Outbound.UserHost && !r.Private) {
		return c
	}
	c.Untrusted = r.Labels()
	why := "it follows untrusted content from " + SourceList(c.Untrusted)
	if c.Reason != "" && c.Decision == tools.Ask {
		// The check's own reason to ask still holds; a reason to run
		// without asking ("memory_auto_save is on") no longer does.
		why += "; " + c.Reason
	}
	c.Decision, c.AlwaysAsk = tools.Ask, true
	c.Reason = why
	return c
}

// SourceList names sources for a sentence: all of them up to three, then
// the first three and how many more.
func SourceList(labels []string) string {
	if len(labels) <= 3 {
		return strings.Join(labels, ", ")
	}
	return strings.Join(labels[:3], ", ") + fmt.Sprintf(" and %d more", len(labels)-3)
}
