package extensions

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func skillFile(name, desc, body string) string {
	return fmt.Sprintf("---\nname: %s\ndescription: %s\n---\n%s", name, desc, body)
}

// Skills from the three folders: names and descriptions reach the prompt,
// bodies do not; a project skill wins a name over the user's, with a
// warning.
func TestSkillsCatalog(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.config, "skills", "pdf", "SKILL.md"), skillFile("pdf", "User's PDF skill.", "USER PDF BODY"))
	write(t, filepath.Join(tr.config, "skills", "notes", "SKILL.md"), skillFile("notes", "Take notes.\n  Use when asked to remember.", "NOTES BODY"))
	write(t, filepath.Join(tr.config, "skills", "README.md"), "not a skill")
	write(t, filepath.Join(tr.ws, ".agents", "skills", "pdf", "SKILL.md"), skillFile("pdf", "Project's PDF skill.", "PROJECT PDF BODY"))
	write(t, filepath.Join(tr.ws, ".co-cli", "skills", "review", "SKILL.md"), skillFile("review", "Review code.", "REVIEW BODY"))
	write(t, filepath.Join(tr.ws, ".co-cli", "skills", "review", "references", "checklist.md"), "- tests")
	write(t, filepath.Join(tr.ws, ".co-cli", "skills", "empty", "notes.txt"), "no SKILL.md here")
	s := Load(tr.opts())
	var names []string
	for _, sk := range s.Skills {
		names = append(names, sk.Name)
	}
	if strings.Join(names, ",") != "notes,pdf,review" {
		t.Fatalf("skills = %v; problems:\n%s", names, problems(s))
	}
	p := s.Prompt()
	for _, want := range []string{"- pdf: Project's PDF skill.\n", "- notes: Take notes. Use when asked to remember.\n", "- review: Review code.\n", "call read_skill"} {
		if !strings.Contains(p, want) {
			t.Errorf("prompt lacks %q:\n%s", want, p)
		}
	}
	for _, body := range []string{"BODY", "User's PDF"} {
		if strings.Contains(p, body) {
			t.Errorf("prompt has %q:\n%s", body, p)
		}
	}
	if ps := problems(s); !strings.Contains(ps, filepath.Join(tr.config, "skills", "pdf", "SKILL.md")+`: skill "pdf" is also in `+filepath.Join(tr.ws, ".agents", "skills", "pdf", "SKILL.md")+", which wins (the workspace's)") {
		t.Errorf("no shadowing warning:\n%s", ps)
	}
	rv, _ := s.Skill("review")
	act, err := rv.Activate()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<skill_content name="review">` + "\nREVIEW BODY\n", "<file>references/checklist.md</file>", "Skill directory: " + rv.Dir} {
		if !strings.Contains(act, want) {
			t.Errorf("Activate lacks %q:\n%s", want, act)
		}
	}
	if strings.Contains(act, "name: review") {
		t.Error("Activate kept the front matter")
	}
}

// Bad front matter: a message naming the file and the line, and the other
// skills still load.
func TestSkillsBadFrontMatter(t *testing.T) {
	tr := newTree(t)
	dir := filepath.Join(tr.ws, ".co-cli", "skills")
	write(t, filepath.Join(dir, "good", "SKILL.md"), skillFile("good", "Fine.", "x"))
	write(t, filepath.Join(dir, "colon", "SKILL.md"), "---\nname: colon\ndescription: Use when: the user asks\n---\nx")
	write(t, filepath.Join(dir, "upper", "SKILL.md"), "---\ndescription: d\nname: Upper_Case\n---\nx")
	write(t, filepath.Join(dir, "nodesc", "SKILL.md"), "---\nname: nodesc\n---\nx")
	write(t, filepath.Join(dir, "nofm", "SKILL.md"), "# just markdown\n")
	write(t, filepath.Join(dir, "open", "SKILL.md"), "---\nname: open\ndescription: never closed\n")
	write(t, filepath.Join(dir, "list", "SKILL.md"), "---\nname: list\ndescription:\n  - a\n  - b\n---\n")
	write(t, filepath.Join(dir, "other", "SKILL.md"), skillFile("mismatch", "Folder differs.", "x"))
	long := strings.Repeat("d", 1100)
	write(t, filepath.Join(dir, "long", "SKILL.md"), skillFile("long", long, "x"))
	s := Load(tr.opts())
	var names []string
	for _, sk := range s.Skills {
		names = append(names, sk.Name)
	}
	if strings.Join(names, ",") != "good,long,mismatch" {
		t.Errorf("skills = %v", names)
	}
	ps := problems(s)
	for _, want := range []string{
		filepath.Join(dir, "colon", "SKILL.md") + `:3: the front matter is not valid YAML: mapping values are not allowed in this context (a value containing ": " must be quoted, e.g. description: "Use when: …"); the skill was not loaded`,
		filepath.Join(dir, "upper", "SKILL.md") + `:3: name "Upper_Case" must be 1-64 lowercase letters`,
		filepath.Join(dir, "nodesc", "SKILL.md") + `:2: the front matter has no description`,
		filepath.Join(dir, "nofm", "SKILL.md") + `:1: the file must start with YAML front matter`,
		filepath.Join(dir, "open", "SKILL.md") + `:1: the front matter opened by "---" on line 1 is never closed`,
		filepath.Join(dir, "list", "SKILL.md") + `:4: description must be a single line of text, not a list or a mapping; the skill was not loaded`,
		filepath.Join(dir, "other", "SKILL.md") + `:2: name "mismatch" is not the folder's name "other"`,
		filepath.Join(dir, "long", "SKILL.md") + `:3: description is 1100 characters; the limit is 1024`,
	} {
		if !strings.Contains(ps, want) {
			t.Errorf("problems lack\n  %s\nin:\n%s", want, ps)
		}
	}
	lk, _ := s.Skill("long")
	if len(lk.Description) != 1024 {
		t.Errorf("long description kept at %d characters", len(lk.Description))
	}
}

func TestValidName(t *testing.T) {
	for name, ok := range map[string]bool{
		"pdf-processing": true, "a": true, "x1-2y": true, strings.Repeat("a", 64): true, "café": true,
		"": false, "-pdf": false, "pdf-": false, "pdf--x": false, "PDF": false, "a_b": false, "a b": false, "a/b": false, strings.Repeat("a", 65): false,
	} {
		if validName(name) != ok {
			t.Errorf("validName(%q) = %v", name, !ok)
		}
	}
}

// A project skill that is a symlink out of the workspace is not read.
func TestProjectSkillSymlinkOut(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.outside, "elsewhere", "SKILL.md"), skillFile("elsewhere", "Outside.", "SECRET"))
	if err := os.MkdirAll(filepath.Join(tr.ws, ".co-cli", "skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(tr.outside, "elsewhere"), filepath.Join(tr.ws, ".co-cli", "skills", "elsewhere")); err != nil {
		t.Fatal(err)
	}
	s := Load(tr.opts())
	if len(s.Skills) != 0 || !strings.Contains(problems(s), "outside "+tr.ws) {
		t.Fatalf("skills %v, problems:\n%s", s.Skills, problems(s))
	}
}

func TestCommands(t *testing.T) {
	tr := newTree(t)
	write(t, filepath.Join(tr.config, "commands", "fix.md"), "---\ndescription: Fix an issue\n---\nFix issue $ARGUMENTS, then test. ($ARGUMENTS)\n")
	write(t, filepath.Join(tr.config, "commands", "plain.md"), "# Summarise the branch\nSummarise what changed.\n")
	write(t, filepath.Join(tr.ws, ".co-cli", "commands", "plain.md"), "Project's own summary.\n")
	write(t, filepath.Join(tr.ws, ".co-cli", "commands", "bad.md"), "---\ndescription: [unclosed\n---\nx")
	write(t, filepath.Join(tr.ws, ".co-cli", "commands", "bad name.md"), "x")
	write(t, filepath.Join(tr.ws, ".co-cli", "commands", "notes.txt"), "not a command")
	s := Load(tr.opts())
	var names []string
	for _, c := range s.Commands {
		names = append(names, c.Name+"="+c.Description)
	}
	if strings.Join(names, "|") != "fix=Fix an issue|plain=Project's own summary." {
		t.Fatalf("commands = %v; problems:\n%s", names, problems(s))
	}
	if got := s.Commands[0].Expand("#42"); got != "Fix issue #42, then test. (#42)" {
		t.Errorf("Expand = %q", got)
	}
	if got := s.Commands[1].Expand("and the tests"); got != "Project's own summary.\n\nand the tests" {
		t.Errorf("Expand without $ARGUMENTS = %q", got)
	}
	ps := problems(s)
	for _, want := range []string{
		filepath.Join(tr.ws, ".co-cli", "commands", "bad.md") + ":2: the front matter is not valid YAML",
		`"bad name" cannot be a command name`,
		"command /plain is also in " + filepath.Join(tr.ws, ".co-cli", "commands", "plain.md") + ", which wins",
	} {
		if !strings.Contains(ps, want) {
			t.Errorf("problems lack %q:\n%s", want, ps)
		}
	}
	// The first line stands in for a missing description.
	c, _ := loadCommand(newChecker(), filepath.Join(tr.config, "commands", "plain.md"), "", true)
	if c.Description != "Summarise the branch" {
		t.Errorf("description = %q", c.Description)
	}
}
