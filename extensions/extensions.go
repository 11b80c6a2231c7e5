// Package extensions finds what the user and the repository add to co
// without code: instruction files (AGENTS.md, and the names context_files
// adds) from co's config directory and from the repository root down to
// the workspace; skills (folders with a SKILL.md, the Agent Skills format,
// https://agentskills.io/specification) in ~/.config/co-cli/skills,
// .agents/skills and .co-cli/skills; and custom commands (NAME.md) in
// ~/.config/co-cli/commands and .co-cli/commands.
//
// All of it only ever becomes prompt text. Nothing here starts a process or
// touches a setting, the policy or an approval: the files are untrusted
// input from a repository. Files from the repository must stay inside it
// (a symlink that leads out is refused), and only regular files are read.
//
// Load reads everything; a Loader does it once in the background (the
// chat's first frame never waits for it) and Loader.Wait gives the result,
// which the first request waits for.
package extensions

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// Options say where to look.
type Options struct {
	// Workspace is the working directory (absolute).
	Workspace string
	// ConfigDir is co's config directory (~/.config/co-cli): the global
	// AGENTS.md, skills/ and commands/. Empty: none.
	ConfigDir string
	// ContextFiles are more instruction file names read beside AGENTS.md
	// (the context_files setting).
	ContextFiles []string
	// MaxBytes caps the instruction files in the prompt, all together;
	// 0: DefaultMaxBytes.
	MaxBytes int
}

func (o Options) maxBytes() int {
	if o.MaxBytes > 0 {
		return o.MaxBytes
	}
	return DefaultMaxBytes
}

// Set is what was found.
type Set struct {
	Instructions []InstructionFile
	Skills       []Skill   // sorted by name
	Commands     []Command // sorted by name
	// Problems are the files that could not be used, or were used with a
	// warning, each with its path and line.
	Problems []Problem

	instructions string // the system prompt's project instructions block
	maxBytes     int
}

// Load finds and reads everything o names.
func Load(o Options) *Set {
	s := &Set{maxBytes: o.maxBytes()}
	c := newChecker()
	files, ps := findInstructions(o, c)
	s.Problems = append(s.Problems, ps...)
	for _, f := range files {
		s.Instructions = append(s.Instructions, f.InstructionFile)
	}
	s.instructions = instructionsPrompt(files, s.maxBytes)
	s.Skills, ps = findSkills(o, c)
	s.Problems = append(s.Problems, ps...)
	s.Commands, ps = findCommands(o, c)
	s.Problems = append(s.Problems, ps...)
	return s
}

// MaxBytes is the cap the instruction files were read with.
func (s *Set) MaxBytes() int { return s.maxBytes }

// Skill returns the skill called name.
func (s *Set) Skill(name string) (Skill, bool) {
	for _, sk := range s.Skills {
		if sk.Name == name {
			return sk, true
		}
	}
	return Skill{}, false
}

// Prompt is what the set adds to the system prompt: the project
// instructions, then the skills' names and descriptions (never their
// bodies: the model loads those with read_skill). "" when there is
// nothing.
func (s *Set) Prompt() string {
	var b strings.Builder
	b.WriteString(s.instructions)
	if len(s.Skills) > 0 {
		// The catalog and its instruction, as the Agent Skills client
		// guide describes them (agentskills.io, "Integrating skills",
		// step 3).
		b.WriteString("\n### Skills\n")
		b.WriteString("Skills are instructions for particular tasks. When a task matches a skill's description, call read_skill with its name to load its instructions before you start, then follow them; " +
			"read_skill with \"file\" reads the other files of a skill. A skill's steps go through the same approvals as anything else.\n")
		for _, sk := range s.Skills {
			fmt.Fprintf(&b, "- %s: %s\n", sk.Name, sk.Description)
		}
	}
	return b.String()
}

// Loader is a Load run once, in the background.
type Loader struct {
	o    Options
	once sync.Once
	done chan struct{}
	set  *Set
}

// New makes a Loader for o. Nothing is read until Start, Wait or Get: the
// full-screen chat starts it once its first frame is out, so that the
// reading (a few milliseconds of CPU for a hundred skills) never competes
// with drawing it.
func New(o Options) *Loader { return &Loader{o: o, done: make(chan struct{})} }

// Start runs Load in the background (once; later calls do nothing). A
// panic is recovered and reported as a problem; the set is then empty.
func (l *Loader) Start() {
	l.once.Do(func() {
		go func() {
			defer close(l.done)
			defer func() {
				if r := recover(); r != nil {
					l.set = &Set{maxBytes: l.o.maxBytes(), Problems: []Problem{{Path: l.o.Workspace, Msg: fmt.Sprintf("reading instructions, skills and commands failed: %v", r)}}}
				}
			}()
			l.set = Load(l.o)
		}()
	})
}

// Start makes a Loader for o and starts it.
func Start(o Options) *Loader {
	l := New(o)
	l.Start()
	return l
}

// Wait starts the loading if it has not begun and returns the set once it
// is read, or ctx's error.
func (l *Loader) Wait(ctx context.Context) (*Set, error) {
	l.Start()
	select {
	case <-l.done:
		return l.set, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Get is Wait without a deadline (reading takes milliseconds).
func (l *Loader) Get() *Set {
	l.Start()
	<-l.done
	return l.set
}
