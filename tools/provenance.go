package tools

import (
	"strings"
	"unicode/utf8"
)

// Origin says where content that entered the conversation came from: a
// tool's result, an attached file, a recalled memory. The agent keeps the
// origins of everything in the conversation; once an untrusted one is there,
// every outbound call (Check.Outbound) must be answered by the user.
//
// A result with no Origins is the workspace or the machine (files, notes,
// the shell without network, todos): trusted, and the user's private data.
type Origin struct {
	// Kind is the family of the source: web, search, mail, calendar, slack,
	// drive, mcp, shell, workspace, memory.
	Kind string `json:"kind"`
	// Label names the source for the user, without any escape sequence:
	// "web 127.0.0.1:8765/page", "mail from x@example.com",
	// "slack #general from U123", "mcp fetch.fetch".
	Label string `json:"label"`
	// Untrusted is content written by someone other than the user (a web
	// page, a stranger's mail or post, a shared document, an MCP result):
	// it may carry instructions the model could follow.
	Untrusted bool `json:"untrusted,omitempty"`
	// Public is content that holds nothing private of the user's (a public
	// web page or search result): reading it does not put private data in
	// the conversation.
	Public bool `json:"public,omitempty"`
}

// UntrustedPublic is an Origin of outside content that holds none of the user's
// private data (the web).
func UntrustedPublic(kind, label string) Origin {
	return Origin{Kind: kind, Label: CleanLabel(label), Untrusted: true, Public: true}
}

// UntrustedPrivate is an Origin of outside content that is also the user's
// private data (a mail in their inbox, a message in their Slack, a document
// shared with them, an MCP result).
func UntrustedPrivate(kind, label string) Origin {
	return Origin{Kind: kind, Label: CleanLabel(label), Untrusted: true}
}

// maxLabel bounds an Origin's label: it is shown in a status bar and a
// question.
const maxLabel = 80

// CleanLabel makes s fit to show as a source's name: control characters
// (escape sequences among them) become spaces, runs of spaces one, and it is
// cut to 80 characters with an ellipsis.
func CleanLabel(s string) string {
	var b strings.Builder
	space := false
	n := 0
	for _, r := range s {
		if r == utf8.RuneError || r < 0x20 || (r >= 0x7f && r < 0xa0) || r == 0x2028 || r == 0x2029 || (r >= 0x202a && r <= 0x202e) || (r >= 0x2066 && r <= 0x2069) {
			r = ' '
		}
		if r == ' ' {
			if space || b.Len() == 0 {
				continue
			}
			space = true
		} else {
			space = false
		}
		if n == maxLabel-1 {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
		n++
	}
	return strings.TrimRight(b.String(), " ")
}

// Outbound describes a call that sends data off the machine, changes what
// others see, or changes what runs or steers co later (a web request, a
// post, a mail draft, an MCP call, a shell command with network, a write to
// a protected file, a memory). Once untrusted content is in the
// conversation such a call always asks, and the question shows To and What.
type Outbound struct {
	// To is where it goes: the whole URL with its query, "#general on
	// Slack", "mail to a@example.com", "MCP server fetch".
	To string
	// What is what leaves, when To does not already show it: the text of a
	// post, a search query, a command.
	What string
	// Exact: the user gave exactly this destination and the model chose
	// nothing that leaves (a URL the user typed, fetched as typed). It may
	// run after untrusted content as before.
	Exact bool
	// UserHost: the destination is a host the user named in this
	// conversation (or the search endpoint they configured). Until private
	// data enters the conversation, following it after untrusted content
	// does not ask: reading the pages of a site the user named stays
	// pleasant. Once private data is there, it asks like any other.
	UserHost bool
}
