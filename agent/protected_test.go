package agent_test

import (
	"strings"
	"testing"

	"github.com/co-cli/co/agent"
)

// The warning of the protected paths' check: what was undone, what was left and why, what co
// cannot see, each under its own words.
func TestProtectedNotice(t *testing.T) {
	for _, tc := range []struct {
		name string
		cs   []agent.ProtectedChange
		want []string
		not  []string
	}{
		{"undone", []agent.ProtectedChange{{Path: ".envrc", Change: "created", Reason: "direnv runs it"}},
			[]string{"(found at before request 2); co undid it:\n  - .envrc (created): direnv runs it"}, []string{"not undone", "cannot read"}},
		{"left", []agent.ProtectedChange{{Path: "AGENTS.md", Change: "changed", Failed: "changed while no turn ran"}},
			[]string{"warning: protected files changed (found at before request 2):\n  - AGENTS.md (changed) — not undone: changed while no turn ran"}, []string{"undid"}},
		{"unreadable", []agent.ProtectedChange{{Path: "vol/", Change: "unreadable", Failed: "co cannot read this folder"}},
			[]string{"co cannot read these folders, so it cannot see protected files made in them: vol/"}, []string{"undid", "protected files changed"}},
		{"folder", []agent.ProtectedChange{{Path: ".co-cli/", Change: "created", Files: 2}},
			[]string{"- .co-cli/ (created, with 2 entries in it)"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := agent.ProtectedNotice("before request 2", tc.cs)
			for _, w := range tc.want {
				if !strings.Contains(got, w) {
					t.Errorf("lacks %q:\n%s", w, got)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(got, n) {
					t.Errorf("has %q:\n%s", n, got)
				}
			}
		})
	}
}
