// Package protect is the one list of the workspace paths that nothing co runs may change
// unasked: files that run code on this machine later (git hooks and config, direnv, editor
// tasks, CI workflows, co's own settings) and files that steer a model in later sessions
// (AGENTS.md and its kin, skills). The file tools always ask before writing one (no grant, no
// yolo), and the Docker sandbox undoes whatever a shell command did to them.
//
// A path matches at any depth (sub/dir/.envrc as well as .envrc), and names are compared without
// case, for case-insensitive file systems. A folder rule covers the folder and everything in it.
//
// Where the workspace holds a home folder (co started in ~, in /home or in /), the home rules
// (HomeRules) apply at that place, and the system rules (SystemRules) when it is /; co's own
// config and data folders, wherever they are inside the workspace, are protected too, and
// nothing may write in them at all (Set.In, Set.OwnAt).
//
// It is a leaf: it imports nothing of co's.
package protect

import (
	"strings"
)

// Kind is what a path names, as far as matching cares.
type Kind int

const (
	// File is a regular file (or a path the file tools would write as one).
	File Kind = iota
	// Dir is a directory.
	Dir
	// Other is anything else: a symlink, a FIFO, a socket, a device.
	Other
)

// Rule is one entry of the list.
type Rule struct {
	// Pattern is the name as written in the documentation: "AGENTS.md", ".git/",
	// ".github/workflows/". A trailing slash marks a folder rule.
	Pattern string
	// Reason says, in one sentence, why writing there must not happen unasked.
	Reason string
}

// The folder rules, lower case. .github/workflows is matched as two names.
const (
	gitDir       = ".git"
	settingsDir  = ".co-cli"
	skillsDir    = ".agents"
	vscodeDir    = ".vscode"
	ideaDir      = ".idea"
	githubDir    = ".github"
	workflowsDir = "workflows"
	xdgConfigDir = ".config"
	claudeDir    = ".claude"
	geminiDir    = ".gemini"
	cursorDir    = ".cursor"
)

var rules = []Rule{
	{"AGENTS.md", "AGENTS.md is read into the model's instructions in every later session"},
	{"CLAUDE.md", "CLAUDE.md is read into Claude Code's instructions in every session"},
	{"GEMINI.md", "GEMINI.md is read into Gemini CLI's instructions in every session"},
	{"context_files", "the context_files names are read into the model's instructions in every later session"},
	{".agents/", ".agents/ holds skills, instructions co gives the model in later sessions"},
	{".co-cli/", ".co-cli/ holds co's project settings (the shell policy among them)"},
	{".envrc", "direnv runs .envrc when you enter the directory"},
	{".vscode/", ".vscode/ holds editor tasks and settings that can run code"},
	{".idea/", ".idea/ holds JetBrains IDE run configurations and settings that can run code"},
	{".github/workflows/", ".github/workflows/ holds CI workflows, which run code"},
	{".git/", ".git/ holds git's hooks and config, which run code later"},
	{".mcp.json", ".mcp.json names MCP servers, programs that coding agents start"},
	// Other coding agents' project settings (docs/SOURCES.md#other-coding-agents-project-settings).
	{".claude/", ".claude/ holds Claude Code's project settings (hooks that run commands, MCP servers, what it may do unasked), commands, agents and skills"},
	{".gemini/", ".gemini/ holds Gemini CLI's project settings (MCP servers and tool commands it runs), commands and extensions"},
	{".cursor/", ".cursor/ holds Cursor's project MCP servers (programs it starts), hooks, rules and commands"},
	// A workspace holding your home folder holds these too (issue 29: a
	// schedule's approve list in co's settings is what its unattended
	// runs may do; a user unit runs a program on a timer).
	{".config/co-cli/", ".config/co-cli/ holds co's user settings: the schedules and what their unattended runs may do, approvals, keys, endpoints"},
	{".config/systemd/", ".config/systemd/ holds systemd user units and timers, which run programs later"},
}

// agentFiles are the entries of other coding agents' project folders that run code or steer
// them; the rest of those folders (caches, transcripts: in a home folder, large and busy) is not
// protected.
var agentFiles = map[string][]string{
	claudeDir: {"settings.json", "settings.local.json", "hooks", "commands", "agents", "skills"},
	geminiDir: {"settings.json", "commands", "extensions"},
	cursorDir: {"mcp.json", "hooks.json", "hooks", "rules", "commands"},
}

var parent2pattern = map[string]string{claudeDir: ".claude/", geminiDir: ".gemini/", cursorDir: ".cursor/"}

func agentFile(parent, name string) bool {
	for _, n := range agentFiles[strings.ToLower(parent)] {
		if strings.EqualFold(n, name) {
			return true
		}
	}
	return false
}

// Rules is the whole list, in the order the documentation gives it. The "context_files" entry
// stands for the names that setting adds.
func Rules() []Rule { return append([]Rule(nil), rules...) }

func reason(pattern string) string {
	for _, r := range rules {
		if r.Pattern == pattern {
			return r.Reason
		}
	}
	panic("protect: no rule " + pattern)
}

// Set is the list with the context_files names of one configuration. The zero Set is the list
// without them.
type Set struct {
	instruction []string // context_files names
	// at are the rules tied to one place (Set.In): lower-case folder relative to the workspace
	// ("" the top) → lower-case name in it → why.
	at    map[string]map[string]string
	own   []Own // co's own folders inside the workspace
	homes bool  // a home folder is inside the workspace
}

// New returns the list with the instruction file names the context_files setting adds (read
// into the prompt beside AGENTS.md).
func New(instructionFiles []string) Set {
	var names []string
	for _, n := range instructionFiles {
		if n = strings.TrimSpace(n); n != "" {
			names = append(names, n)
		}
	}
	return Set{instruction: names}
}

// Match says whether rel is protected. rel is slash-separated and relative to the workspace
// ("sub/.envrc"); k is what its last element is (every earlier element is a folder). root is
// the shortest protected prefix of rel (rel itself, or the folder a folder rule covers: "sub/.git"
// for "sub/.git/hooks/pre-commit") and why that prefix's reason.
func (s Set) Match(rel string, k Kind) (root, why string, ok bool) {
	rel = strings.Trim(rel, "/")
	if rel == "" || rel == "." {
		return "", "", false
	}
	end := 0
	prev := ""
	for end < len(rel) {
		i := strings.IndexByte(rel[end:], '/')
		last := i < 0
		next := len(rel)
		if !last {
			next = end + i
		}
		name := rel[end:next]
		kind := Dir
		if last {
			kind = k
		}
		if why := s.at[strings.ToLower(strings.TrimSuffix(rel[:end], "/"))][strings.ToLower(name)]; why != "" {
			return rel[:next], why, true
		}
		if why := s.Child(prev, name, kind); why != "" {
			return rel[:next], why, true
		}
		prev = name
		end = next + 1
	}
	return "", "", false
}

// ChildAt is [Set.Child] for a walker that knows the folder dir (relative to the workspace,
// slash-separated, "" the top) that name is in: it also applies the rules tied to one place
// ([Set.In]: a home folder's, co's own folders).
func (s Set) ChildAt(dir, name string, k Kind) string {
	if len(s.at) > 0 {
		if why := s.at[strings.ToLower(dir)][strings.ToLower(name)]; why != "" {
			return why
		}
	}
	parent := dir
	if i := strings.LastIndexByte(dir, '/'); i >= 0 {
		parent = dir[i+1:]
	}
	return s.Child(parent, name, k)
}

// Child says why a path whose last element is name is protected by that element alone, or "":
// it is the step of [Set.Match] for one element, for walkers that already know the path above
// is not protected. parent is the element above name ("" at the top), needed for
// .github/workflows.
func (s Set) Child(parent, name string, k Kind) string {
	switch {
	case strings.EqualFold(name, gitDir):
		// A .git file is a pointer to a git directory elsewhere, with its own hooks and config.
		return reason(".git/")
	case strings.EqualFold(name, settingsDir):
		return reason(".co-cli/")
	case strings.EqualFold(name, vscodeDir):
		return reason(".vscode/")
	case strings.EqualFold(name, ideaDir):
		return reason(".idea/")
	case agentFile(parent, name):
		return reason(parent2pattern[strings.ToLower(parent)])
	case strings.EqualFold(name, workflowsDir) && strings.EqualFold(parent, githubDir):
		return reason(".github/workflows/")
	case strings.EqualFold(name, "co-cli") && strings.EqualFold(parent, xdgConfigDir):
		return reason(".config/co-cli/")
	case strings.EqualFold(name, "systemd") && strings.EqualFold(parent, xdgConfigDir):
		return reason(".config/systemd/")
	case strings.EqualFold(name, skillsDir):
		// co reads skills from a folder (or a link to one): a plain file of that name is
		// nothing to it.
		if k == File {
			return ""
		}
		return reason(".agents/")
	case strings.EqualFold(name, ".envrc"):
		return reason(".envrc")
	case strings.EqualFold(name, ".mcp.json"):
		return reason(".mcp.json")
	case strings.EqualFold(name, "AGENTS.md"):
		return reason("AGENTS.md")
	}
	// Configured names win over the built-in reasons of CLAUDE.md and GEMINI.md: co reads them.
	for _, n := range s.instruction {
		if strings.EqualFold(name, n) {
			return name + " is read into the model's instructions in every later session (context_files)"
		}
	}
	switch {
	case strings.EqualFold(name, "CLAUDE.md"):
		return reason("CLAUDE.md")
	case strings.EqualFold(name, "GEMINI.md"):
		return reason("GEMINI.md")
	}
	return ""
}
