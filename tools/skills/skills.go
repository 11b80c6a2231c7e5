// Package skills is read_skill: the model loads a skill's instructions, or
// one of the files beside them, by the skill's name. The system prompt
// lists only the skills' names and descriptions (package extensions); a
// skill's body reaches the model only through this tool or when the user
// runs /NAME. Reads stay inside the skill's folder (tools/internal/pathsafe).
package skills

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/co-cli/co/extensions"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/internal/pathsafe"
)

// maxFile is the largest file of a skill read_skill returns.
const maxFile = 1 << 20

// Tool is read_skill.
type Tool struct{ l *extensions.Loader }

// New makes read_skill over the skills l finds.
func New(l *extensions.Loader) *Tool { return &Tool{l: l} }

func (t *Tool) Name() string { return "read_skill" }

func (t *Tool) Description() string {
	return "Load a skill listed in the system prompt under Skills: its instructions (SKILL.md without the front matter), " +
		"its folder and the files beside it. With \"file\" (a path relative to the skill's folder, as the instructions name it), " +
		"read that file instead. Runs without asking."
}

// Schema names the skills as an enum, as the Agent Skills client guide
// suggests, so the model cannot ask for one that does not exist. It waits
// for the skills to be read (a few milliseconds after start-up; the
// first request waits for them anyway).
func (t *Tool) Schema() json.RawMessage {
	names := []string{}
	for _, s := range t.l.Get().Skills {
		names = append(names, s.Name)
	}
	name := map[string]any{"type": "string", "description": "The skill's name."}
	if len(names) > 0 {
		name["enum"] = names
	}
	b, _ := json.Marshal(map[string]any{
		"type": "object",
		"properties": map[string]any{
			"name": name,
			"file": map[string]any{"type": "string", "description": "A file of the skill, relative to its folder (e.g. references/guide.md); omit to load the instructions."},
		},
		"required":             []string{"name"},
		"additionalProperties": false,
	})
	return b
}

func (t *Tool) Class() tools.Class { return tools.ReadOnly }

type args struct {
	Name string `json:"name"`
	File string `json:"file"`
}

func (t *Tool) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a args
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	set, err := t.l.Wait(ctx)
	if err != nil {
		return tools.Result{}, err
	}
	sk, ok := set.Skill(a.Name)
	if !ok {
		var names []string
		for _, s := range set.Skills {
			names = append(names, s.Name)
		}
		if len(names) == 0 {
			return tools.Result{}, tools.Retryf("there is no skill %q: no skills are installed", a.Name)
		}
		return tools.Result{}, tools.Retryf("there is no skill %q; the skills are: %s", a.Name, strings.Join(names, ", "))
	}
	if strings.TrimSpace(a.File) == "" || a.File == "SKILL.md" {
		text, err := sk.Activate()
		if err != nil {
			return tools.Result{}, err
		}
		return tools.Text(text), nil
	}
	root, err := pathsafe.Open(sk.Dir, "skill folder")
	if err != nil {
		return tools.Result{}, err
	}
	defer root.Close()
	rel, err := root.Clean(a.File)
	if err != nil {
		return tools.Result{}, tools.Retryf("%s", err)
	}
	data, _, err := root.ReadFile(rel, maxFile)
	if err != nil {
		if pe, ok := err.(*pathsafe.Error); ok {
			return tools.Result{}, tools.Retryf("%s", pe.Msg)
		}
		return tools.Result{}, fmt.Errorf("skill %s: %w", sk.Name, err)
	}
	if !utf8.Valid(data) {
		return tools.Result{}, tools.Retryf("%s of skill %s is not text (it is a binary file)", rel, sk.Name)
	}
	return tools.Text(fmt.Sprintf("<skill_file name=%q file=%q>\n%s\n</skill_file>", sk.Name, rel, data)), nil
}
