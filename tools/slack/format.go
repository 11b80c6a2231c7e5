package slack

import (
	"context"
	"html"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// control matches Slack's control sequences in message text: mentions of
// users, channels and groups, special mentions, and links.
// Compiled on first use, as are the other expressions of this package:
// every co process links it, few use Slack (TestOwnPackagesInitialiseLightly).
var control = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`<(@[UW][A-Z0-9]+|#[CGD][A-Z0-9]+|![a-z]+(?:\^[A-Z0-9]+)?|(?:https?|mailto):[^<>\s]+)(?:\|([^<>]*))?>`)
})

// render turns Slack message text into plain text: <@U123> becomes @name,
// <#C123|general> #general, <!here> @here, <url|label> "label (url)", and
// &amp; &lt; &gt; the characters.
func (w *Workspace) render(ctx context.Context, text string) string {
	out := control().ReplaceAllStringFunc(text, func(m string) string {
		sub := control().FindStringSubmatch(m)
		target, lbl := sub[1], sub[2]
		switch target[0] {
		case '@':
			return "@" + w.userName(ctx, target[1:])
		case '#':
			if lbl != "" {
				return "#" + lbl
			}
			if n := w.channelName(ctx, target[1:]); n != "" {
				return "#" + n
			}
			return "#" + target[1:]
		case '!':
			if lbl != "" {
				return lbl
			}
			name, _, _ := strings.Cut(target[1:], "^")
			return "@" + name
		}
		if lbl != "" && lbl != target {
			return lbl + " (" + target + ")"
		}
		return target
	})
	return html.UnescapeString(out)
}

// escape prepares text for chat.postMessage: &, < and > become entities,
// except in control sequences the model wrote on purpose (<@U123>,
// <#C123>, <!here>, <https://…|label>).
func escape(text string) string {
	var b strings.Builder
	last := 0
	for _, loc := range control().FindAllStringIndex(text, -1) {
		b.WriteString(escapePlain(text[last:loc[0]]))
		b.WriteString(text[loc[0]:loc[1]])
		last = loc[1]
	}
	b.WriteString(escapePlain(text[last:]))
	return b.String()
}

func escapePlain(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// tsTime is a Slack timestamp ("1715000000.123456") as a time.
func tsTime(ts string) (time.Time, bool) {
	sec, frac, _ := strings.Cut(ts, ".")
	s, err := strconv.ParseInt(sec, 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	var ns int64
	if frac != "" {
		frac = (frac + "000000000")[:9]
		ns, _ = strconv.ParseInt(frac, 10, 64)
	}
	return time.Unix(s, ns), true
}

// validTS matches a Slack message timestamp.
var validTS = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\d{9,11}(\.\d{1,9})?$`) })
