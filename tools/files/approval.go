package files

import (
	"bytes"
	"fmt"
	"github.com/co-cli/co/tools"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// runsCodeLater says why a write to rel must always ask (no grant, no
// yolo), or "" when it need not: these places hold things that run code
// later, outside co's approval (git hooks, direnv, editor tasks, CI, co's
// own settings). Names are compared without case, for case-insensitive
// file systems.
func runsCodeLater(rel string) string {
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		switch {
		case strings.EqualFold(p, ".git"):
			return ".git/ holds git's hooks and config, which run code later"
		case strings.EqualFold(p, ".co-cli"):
			return ".co-cli/ holds co's project settings (the shell policy among them)"
		case strings.EqualFold(p, ".vscode"):
			return ".vscode/ holds editor tasks and settings that can run code"
		case strings.EqualFold(p, ".github") && i+1 < len(parts) && strings.EqualFold(parts[i+1], "workflows"):
			return ".github/workflows/ holds CI workflows, which run code"
		}
	}
	if strings.EqualFold(parts[len(parts)-1], ".envrc") {
		return "direnv runs .envrc when you enter the directory"
	}
	return ""
}

// alwaysAsk says why a write to rel must always ask, or "": rel runs code
// later (runsCodeLater) or steers the model in later sessions
// (steersModelLater).
func (w *Workspace) alwaysAsk(rel string) string {
	if why := runsCodeLater(rel); why != "" {
		return why
	}
	return steersModelLater(rel, w.instructionNames)
}

// steersModelLater says why a write to rel must always ask because co reads
// it into the prompt of later sessions, or "": AGENTS.md and the
// context_files names (names) at any depth, since instruction files are read
// from the repository root down to wherever co is started, and anything
// under .agents/ (skills). Writing one would plant instructions every later
// session follows: a lasting prompt injection, which is why memory saves
// ask too. Names are compared without case.
func steersModelLater(rel string, names []string) string {
	parts := strings.Split(rel, "/")
	for _, p := range parts[:len(parts)-1] {
		if strings.EqualFold(p, ".agents") {
			return ".agents/ holds skills, instructions co gives the model in later sessions"
		}
	}
	base := parts[len(parts)-1]
	if strings.EqualFold(base, "AGENTS.md") {
		return "AGENTS.md is read into the model's instructions in every later session"
	}
	for _, n := range names {
		if strings.EqualFold(base, n) {
			return base + " is read into the model's instructions in every later session (context_files)"
		}
	}
	return ""
}

// scope is the grant scope of a write to rel: the tool and the top-level
// directory, so "approve for this session" covers, say, every write_file
// under src/ and nothing else. Files at the top of the workspace share the
// scope "<tool>:./".
func scope(tool, rel string) (scope, label string) {
	top, _, nested := strings.Cut(rel, "/")
	if !nested {
		return tool + ":./", tool + " on files at the top of the workspace"
	}
	return tool + ":" + top + "/", tool + " under " + top + "/"
}

// diffPreview is the unified diff from old to new for the approval modal,
// cut to a readable size. exists is false for a new file.
func diffPreview(rel string, old []byte, exists bool, new []byte) string {
	if exists && bytes.Equal(old, new) {
		return "(no changes: the file already has this content)"
	}
	if len(old) > maxDiffBytes || len(new) > maxDiffBytes || binary(old) || binary(new) {
		what := "too large to show as a diff"
		if binary(old) || binary(new) {
			what = "binary"
		}
		if !exists {
			return fmt.Sprintf("(new file %s, %s: %s)", rel, tools.Size(int64(len(new))), what)
		}
		return fmt.Sprintf("(%s: %s → %s, %s)", rel, tools.Size(int64(len(old))), tools.Size(int64(len(new))), what)
	}
	from := "a/" + rel
	if !exists {
		from = "/dev/null"
	}
	edits := udiff.Lines(string(old), string(new))
	d, err := udiff.ToUnified(from, "b/"+rel, string(old), edits, udiff.DefaultContextLines)
	if err != nil {
		return fmt.Sprintf("(the diff could not be computed: %v)", err)
	}
	return cutPreview(d)
}

func cutPreview(d string) string {
	lines := strings.SplitAfter(d, "\n")
	var b strings.Builder
	for i, l := range lines {
		if i == maxPreviewLines || b.Len()+len(l) > maxPreviewChars {
			fmt.Fprintf(&b, "… (%d more lines of diff)\n", len(lines)-i)
			break
		}
		b.WriteString(l)
	}
	return b.String()
}
