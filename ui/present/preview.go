package present

import (
	"bytes"
	"encoding/json"
	"strings"
)

// InPreview reports, for each argument of a call, whether the approval
// preview already shows it whole, so a question shows the content once:
// the preview, then only the arguments it leaves out. A string argument is
// shown when its text (or its text trimmed, or JSON-quoted, as the MCP
// preview prints it) is in the preview, or when a unified diff preview
// holds it on one side (write_file's content, edit_file's old and new
// text). A list of strings is shown when each of them is (a memory's
// tags). When the preview holds the whole arguments object indented (the
// MCP tools' preview), every argument is shown. A diff cut short, or a
// preview that summarises ("too large to show as a diff"), does not hold
// the text, so that argument is still listed. Keys are as in the JSON.
func InPreview(args, preview string) map[string]bool {
	shown := map[string]bool{}
	if strings.TrimSpace(preview) == "" {
		return shown
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal([]byte(args), &obj) != nil {
		return shown
	}
	var pretty bytes.Buffer
	if json.Indent(&pretty, []byte(strings.TrimSpace(args)), "", "  ") == nil && len(obj) > 0 && strings.Contains(preview, pretty.String()) {
		for k := range obj {
			shown[k] = true
		}
		return shown
	}
	oldSide, newSide := diffSides(preview)
	for k, raw := range obj {
		var list []string
		if json.Unmarshal(raw, &list) == nil && len(list) > 0 {
			// A list of strings (a memory's tags): each one in the preview.
			all := true
			for _, s := range list {
				all = all && strings.TrimSpace(s) != "" && strings.Contains(preview, s)
			}
			shown[k] = all
			continue
		}
		var s string
		if json.Unmarshal(raw, &s) != nil || strings.TrimSpace(s) == "" {
			continue
		}
		quoted, _ := json.Marshal(s)
		t := strings.TrimSpace(s)
		for _, hay := range []string{preview, oldSide, newSide} {
			if hay != "" && (strings.Contains(hay, s) || strings.Contains(hay, t) || strings.Contains(hay, string(quoted))) {
				shown[k] = true
				break
			}
		}
	}
	return shown
}

// diffSides are the old and the new text a unified diff shows (context
// lines on both sides), or "" when preview is not a diff.
func diffSides(preview string) (oldSide, newSide string) {
	if !strings.HasPrefix(preview, "--- ") && !strings.HasPrefix(preview, "@@") && !strings.Contains(preview, "\n@@") {
		return "", ""
	}
	var o, n strings.Builder
	for _, l := range strings.SplitAfter(preview, "\n") {
		switch {
		case strings.HasPrefix(l, "--- "), strings.HasPrefix(l, "+++ "), strings.HasPrefix(l, "@@"), strings.HasPrefix(l, `\`):
		case strings.HasPrefix(l, "-"):
			o.WriteString(l[1:])
		case strings.HasPrefix(l, "+"):
			n.WriteString(l[1:])
		case strings.HasPrefix(l, " "):
			o.WriteString(l[1:])
			n.WriteString(l[1:])
		}
	}
	return o.String(), n.String()
}
