package extensions

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkLoad reads 100 skills and 20 commands (half the user's, half the
// workspace's) and an AGENTS.md: what co does in the background at start.
func BenchmarkLoad(b *testing.B) {
	base := b.TempDir()
	ws, config := filepath.Join(base, "ws"), filepath.Join(base, "config")
	write(b, filepath.Join(ws, ".git", "HEAD"), "ref: refs/heads/main\n")
	write(b, filepath.Join(ws, "AGENTS.md"), strings.Repeat("Run the tests before committing.\n", 100))
	body := strings.Repeat("Step: do the thing carefully.\n", 60)
	for i := range 100 {
		dir := filepath.Join(config, "skills")
		if i%2 == 1 {
			dir = filepath.Join(ws, ".agents", "skills")
		}
		name := fmt.Sprintf("skill-%03d", i)
		write(b, filepath.Join(dir, name, "SKILL.md"), skillFile(name, "Does task "+name+". Use when the user asks for "+name+".", body))
	}
	for i := range 20 {
		dir := filepath.Join(config, "commands")
		if i%2 == 1 {
			dir = filepath.Join(ws, ".co-cli", "commands")
		}
		write(b, filepath.Join(dir, fmt.Sprintf("cmd%02d.md", i)), "---\ndescription: command\n---\nDo $ARGUMENTS now.\n")
	}
	o := Options{Workspace: ws, ConfigDir: config}
	b.ResetTimer()
	for b.Loop() {
		s := Load(o)
		if len(s.Skills) != 100 || len(s.Commands) != 20 || len(s.Problems) != 0 {
			b.Fatalf("%d skills, %d commands, problems %v", len(s.Skills), len(s.Commands), s.Problems)
		}
		_ = s.Prompt()
	}
}

// BenchmarkStartupPath is what app.New does on the start-up path: make the
// Loader (nothing is read) and stat the skills folders (read_skill is
// registered only when one exists). The reading (BenchmarkLoad) happens
// in the background once the chat's first frame is out.
func BenchmarkStartupPath(b *testing.B) {
	ws := b.TempDir()
	write(b, filepath.Join(ws, ".agents", "skills", "x", "SKILL.md"), skillFile("x", "d", "b"))
	o := Options{Workspace: ws, ConfigDir: filepath.Join(ws, "config")}
	for b.Loop() {
		_ = New(o)
		if !MayHaveSkills(o) {
			b.Fatal("no skills folder found")
		}
	}
}
