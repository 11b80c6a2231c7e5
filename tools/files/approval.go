package files

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/co-cli/co/lib/protect"
	"github.com/co-cli/co/tools"

	udiff "github.com/aymanbagabas/go-udiff"
)

// alwaysAsk says why a write to rel must always ask (no grant, no yolo), or
// "" when it need not: rel is on the list of protected paths
// (lib/protect), places that run code later outside co's approval (git
// hooks and config, direnv, editor tasks, CI, co's own settings) or that
// steer the model in later sessions (AGENTS.md and its kin, skills): a lasting
// prompt injection, which is why memory saves ask too. The shell sandbox
// undoes changes to the same list.
func (w *Workspace) alwaysAsk(rel string) string {
	_, why, _ := w.protected.Match(rel, protect.File)
	return why
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
