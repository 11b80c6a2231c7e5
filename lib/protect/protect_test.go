package protect

import (
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	s := New([]string{"AI.md", " "})
	protected := []struct {
		rel  string
		k    Kind
		root string
		why  string
	}{
		{"AGENTS.md", File, "AGENTS.md", "model's instructions"},
		{"sub/dir/agents.md", File, "sub/dir/agents.md", "model's instructions"},
		{"CLAUDE.md", File, "CLAUDE.md", "Claude Code"},
		{"x/GEMINI.md", File, "x/GEMINI.md", "Gemini CLI"},
		{"docs/ai.MD", File, "docs/ai.MD", "(context_files)"},
		{".envrc", File, ".envrc", "direnv runs .envrc"},
		{"a/b/.envrc", Other, "a/b/.envrc", "direnv"},
		{".mcp.json", File, ".mcp.json", "MCP servers"},
		{".git", Dir, ".git", "hooks and config"},
		{".git", File, ".git", "hooks and config"},
		{".git/hooks/pre-commit", File, ".git", "hooks"},
		{"sub/.GIT/config", File, "sub/.GIT", "hooks"},
		{".co-cli/settings.json", File, ".co-cli", "shell policy"},
		{".vscode/tasks.json", File, ".vscode", "editor tasks"},
		{".idea/workspace.xml", File, ".idea", "JetBrains"},
		{".github/workflows/ci.yml", File, ".github/workflows", "CI workflows"},
		{".Github/Workflows", Dir, ".Github/Workflows", "CI"},
		{"pkg/.github/workflows/x.yml", File, "pkg/.github/workflows", "CI"},
		{".agents/skills/x/SKILL.md", File, ".agents", "skills"},
		{".agents", Dir, ".agents", "skills"},
		{".agents", Other, ".agents", "skills"},
		{"AGENTS.md/inside", File, "AGENTS.md", "model's instructions"},
		{"./.envrc/", Dir, ".envrc", "direnv"},
		{".config/co-cli/settings.json", File, ".config/co-cli", "schedules"},
		{".config/systemd/user/x.timer", File, ".config/systemd", "timers"},
		// Other coding agents' project settings: hooks and MCP servers they run.
		{".claude/settings.json", File, ".claude/settings.json", "hooks"},
		{"sub/.Claude/settings.local.json", File, "sub/.Claude/settings.local.json", "Claude Code"},
		{".claude/hooks/pre.sh", File, ".claude/hooks", "Claude Code"},
		{".claude/commands/deploy.md", File, ".claude/commands", "Claude Code"},
		{".gemini/settings.json", File, ".gemini/settings.json", "Gemini CLI"},
		{".gemini/commands/x.toml", File, ".gemini/commands", "Gemini CLI"},
		{".cursor/mcp.json", File, ".cursor/mcp.json", "Cursor"},
		{".cursor/rules/x.mdc", File, ".cursor/rules", "Cursor"},
	}
	for _, tc := range protected {
		root, why, ok := s.Match(strings.TrimPrefix(tc.rel, "./"), tc.k)
		if !ok || root != tc.root || !strings.Contains(why, tc.why) {
			t.Errorf("Match(%q, %d) = %q, %q, %v; want root %q, a reason with %q", tc.rel, tc.k, root, why, ok, tc.root, tc.why)
		}
	}
	for _, rel := range []string{"", ".", "src/git.go", ".gitignore", ".github/CODEOWNERS", ".github", "envrc",
		"docs/.vscodeish", "AGENTS.md.bak", "docs/agents/x.md", "workflows/x.yml", ".gitmodules", ".envrc.example",
		".config/nvim/init.lua", "co-cli/settings.json", "systemd/x.timer",
		".claude/projects/x/transcript.jsonl", ".claude", "settings.json", ".gemini/tmp/x", ".cursor/extensions/x/package.json"} {
		if root, why, ok := s.Match(rel, File); ok {
			t.Errorf("Match(%q) = %q, %q: must not be protected", rel, root, why)
		}
	}
	// A plain file named .agents is nothing to co; a folder or link of that name is.
	if _, _, ok := s.Match(".agents", File); ok {
		t.Error(".agents as a file must not be protected")
	}
	// Without context_files, AI.md is an ordinary file; CLAUDE.md never is.
	if _, _, ok := New(nil).Match("AI.md", File); ok {
		t.Error("AI.md protected without context_files")
	}
	if _, why, _ := New([]string{"claude.md"}).Match("CLAUDE.md", File); !strings.Contains(why, "context_files") {
		t.Errorf("a configured name gives co's reason: %q", why)
	}
}

func TestRulesHaveReasons(t *testing.T) {
	seen := map[string]bool{}
	for _, r := range Rules() {
		if r.Pattern == "" || r.Reason == "" || seen[r.Pattern] {
			t.Errorf("rule %+v", r)
		}
		seen[r.Pattern] = true
	}
	for _, p := range []string{"AGENTS.md", "CLAUDE.md", "GEMINI.md", ".agents/", ".co-cli/", ".envrc", ".vscode/",
		".idea/", ".github/workflows/", ".git/", ".mcp.json", "context_files"} {
		if !seen[p] {
			t.Errorf("no rule for %s", p)
		}
	}
}

func BenchmarkMatch(b *testing.B) {
	s := New([]string{"AI.md"})
	for b.Loop() {
		s.Match("src/internal/pkg/sub/file_test.go", File)
	}
}
