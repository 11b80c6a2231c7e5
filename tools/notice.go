package tools

import "context"

type noticeKey struct{}

// WithNotice returns ctx carrying notify, through which a running tool tells
// the user something while it works ("starting the sandbox…"): the agent
// passes it to every call, and it shows as a notice in the chat, in --plain
// and in co run (stderr, or a "notice" event with --json).
func WithNotice(ctx context.Context, notify func(text string)) context.Context {
	return context.WithValue(ctx, noticeKey{}, notify)
}

// Notify tells the user text through ctx's notice function (WithNotice), if
// it has one. Call it from the goroutine running the tool, before Run
// returns. The text is co's own, never content from outside.
func Notify(ctx context.Context, text string) {
	if f, ok := ctx.Value(noticeKey{}).(func(string)); ok && f != nil {
		f(text)
	}
}
