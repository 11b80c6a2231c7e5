package extensions

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxFileBytes is the largest SKILL.md or command file read.
const MaxFileBytes = 256 * 1024

// Skill is one skill: a folder whose SKILL.md starts with front matter
// naming and describing it (https://agentskills.io/specification).
type Skill struct {
	Name        string
	Description string // as shown in the system prompt: one line, at most 1024 characters
	Dir         string // the skill's folder
	Path        string // its SKILL.md
	User        bool   // from the user's config directory (else from the workspace)
	confine     string // project skills stay inside the workspace
}

// Command is one custom command: a Markdown file NAME.md whose text, with
// $ARGUMENTS replaced, is sent as the user's message.
type Command struct {
	Name        string
	Description string // the front matter's description, else the first line of the text
	Path        string
	User        bool
	text        string
}

// Limits from the Agent Skills specification
// (https://agentskills.io/specification, "Frontmatter").
const (
	maxNameLen        = 64
	maxDescriptionLen = 1024
)

// validName checks a skill's name as the specification says: 1-64
// characters, lowercase letters, digits and hyphens, no hyphen at either
// end, no "--".
func validName(name string) bool {
	if name == "" || utf8.RuneCountInString(name) > maxNameLen || strings.HasPrefix(name, "-") || strings.HasSuffix(name, "-") || strings.Contains(name, "--") {
		return false
	}
	for _, r := range name {
		if r != '-' && !unicode.IsDigit(r) && !(unicode.IsLetter(r) && unicode.IsLower(r)) {
			return false
		}
	}
	return true
}

const nameRule = "1-64 lowercase letters, digits and hyphens, not starting or ending with a hyphen and without \"--\" (agentskills.io/specification)"

// readLimited reads a file opened by checker.open, refusing big ones.
func readLimited(c *checker, path, confine string) ([]byte, error) {
	f, fi, err := c.open(path, confine)
	if err != nil {
		return nil, err
	}
	if f == nil {
		return nil, fs.ErrNotExist
	}
	defer f.Close()
	if fi.Size() > MaxFileBytes {
		return nil, fmt.Errorf("not read: it is %d bytes; the limit is %d", fi.Size(), MaxFileBytes)
	}
	// The size is known: one read (and no growing buffer) for the whole.
	buf := make([]byte, fi.Size())
	n, err := io.ReadFull(f, buf)
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		err = nil // it shrank meanwhile
	}
	return buf[:n], err
}

// oneLine folds whitespace (newlines included) into single spaces, so a
// description is one line of the prompt's list.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// loadSkill reads dir/SKILL.md. ok is false when the skill is not usable.
func loadSkill(c *checker, dir, confine string, user bool) (sk Skill, problems []Problem, ok bool) {
	path := filepath.Join(dir, "SKILL.md")
	data, err := readLimited(c, path, confine)
	if errors.Is(err, fs.ErrNotExist) {
		return Skill{}, nil, false // not a skill folder
	}
	if err != nil {
		return Skill{}, []Problem{{Path: path, Msg: err.Error() + "; the skill was not loaded"}}, false
	}
	fm, p := parseFrontMatter(path, data, true)
	if p != nil {
		p.Msg += "; the skill was not loaded"
		return Skill{}, []Problem{*p}, false
	}
	name, nline, p := fm.text(path, "name")
	if p == nil && name == "" {
		p = &Problem{Path: path, Line: 2, Msg: "the front matter has no name: add a line \"name: " + filepath.Base(dir) + "\""}
	}
	if p == nil && !validName(name) {
		p = &Problem{Path: path, Line: nline, Msg: fmt.Sprintf("name %q must be %s", name, nameRule)}
	}
	if p != nil {
		p.Msg += "; the skill was not loaded"
		return Skill{}, []Problem{*p}, false
	}
	desc, dline, p := fm.text(path, "description")
	if p == nil && strings.TrimSpace(desc) == "" {
		p = &Problem{Path: path, Line: 2, Msg: "the front matter has no description: add \"description: what the skill does and when to use it\" (the model picks skills by it)"}
	}
	if p != nil {
		p.Msg += "; the skill was not loaded"
		return Skill{}, []Problem{*p}, false
	}
	if base := filepath.Base(dir); base != name {
		// The specification asks for the folder's name; clients load such
		// skills anyway (agentskills.io, "Integrating skills": lenient
		// validation).
		problems = append(problems, Problem{Path: path, Line: nline, Msg: fmt.Sprintf("name %q is not the folder's name %q (the specification asks for the same); loaded as %q", name, base, name)})
	}
	desc = oneLine(desc)
	if n := utf8.RuneCountInString(desc); n > maxDescriptionLen {
		problems = append(problems, Problem{Path: path, Line: dline, Msg: fmt.Sprintf("description is %d characters; the limit is %d (agentskills.io/specification): it was cut", n, maxDescriptionLen)})
		desc = string([]rune(desc)[:maxDescriptionLen])
	}
	return Skill{Name: name, Description: desc, Dir: dir, Path: path, User: user, confine: confine}, problems, true
}

// commandNameOK: custom command names are file names usable after "/".
func commandNameOK(name string) bool {
	if name == "" || len(name) > maxNameLen {
		return false
	}
	for i, r := range name {
		ok := r == '-' || r == '_' || (r < utf8.RuneSelf && (unicode.IsLetter(r) || unicode.IsDigit(r)))
		if !ok || (i == 0 && (r == '-' || r == '_')) {
			return false
		}
	}
	return true
}

// loadCommand reads one NAME.md.
func loadCommand(c *checker, path, confine string, user bool) (Command, *Problem) {
	name := strings.TrimSuffix(filepath.Base(path), ".md")
	if !commandNameOK(name) {
		return Command{}, &Problem{Path: path, Msg: fmt.Sprintf("%q cannot be a command name: use 1-64 ASCII letters, digits, \"-\" and \"_\", starting with a letter or digit; the command was not loaded", name)}
	}
	data, err := readLimited(c, path, confine)
	if err != nil {
		return Command{}, &Problem{Path: path, Msg: err.Error() + "; the command was not loaded"}
	}
	fm, p := parseFrontMatter(path, data, false)
	if p != nil {
		p.Msg += "; the command was not loaded"
		return Command{}, p
	}
	desc, _, p := fm.text(path, "description")
	if p != nil {
		p.Msg += "; the command was not loaded"
		return Command{}, p
	}
	if desc = oneLine(desc); desc == "" {
		for _, l := range strings.Split(fm.body, "\n") {
			if l = strings.TrimSpace(strings.TrimLeft(l, "# ")); l != "" {
				desc = l
				break
			}
		}
		if r := []rune(desc); len(r) > 60 {
			desc = string(r[:59]) + "…"
		}
	}
	return Command{Name: name, Description: desc, Path: path, User: user, text: fm.body}, nil
}

// Expand is the message /NAME ARGS sends: the command's text with every
// $ARGUMENTS replaced by args. When the text has no $ARGUMENTS and args
// were given, they follow the text on a line of their own, so they are
// never lost.
func (c Command) Expand(args string) string {
	text := strings.TrimSpace(c.text)
	if strings.Contains(text, "$ARGUMENTS") {
		return strings.ReplaceAll(text, "$ARGUMENTS", args)
	}
	if args = strings.TrimSpace(args); args != "" {
		text += "\n\n" + args
	}
	return text
}

// Instructions reads the skill's SKILL.md again (it may have changed since
// start-up) and returns its body, the front matter left out.
func (s Skill) Instructions() (string, error) {
	data, err := readLimited(newChecker(), s.Path, s.confine)
	if err != nil {
		return "", fmt.Errorf("skill %s: %s: %w", s.Name, s.Path, err)
	}
	fm, p := parseFrontMatter(s.Path, data, true)
	if p != nil {
		return "", fmt.Errorf("skill %s: %s", s.Name, p)
	}
	return strings.TrimSpace(fm.body), nil
}

// maxListed caps the files Activate lists.
const maxListed = 50

// Files lists the files beside SKILL.md (relative, slash-separated, hidden
// ones and SKILL.md itself left out), at most maxListed; more reports
// whether there were more.
func (s Skill) Files() (files []string, more bool) {
	_ = filepath.WalkDir(s.Dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		rel, _ := filepath.Rel(s.Dir, path)
		if rel == "." {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() || rel == "SKILL.md" {
			return nil
		}
		if len(files) == maxListed {
			more = true
			return filepath.SkipAll
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	sort.Strings(files)
	return files, more
}

// Activate is what the model gets when a skill is used: its instructions
// wrapped in a skill_content tag, its folder and the files beside it (not
// their text: the model reads those with read_skill's file), as the
// Agent Skills client guide suggests ("Structured wrapping",
// agentskills.io/client-implementation/integrating-skills).
func (s Skill) Activate() (string, error) {
	body, err := s.Instructions()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "<skill_content name=%q>\n%s\n\n", s.Name, body)
	fmt.Fprintf(&b, "Skill directory: %s\nRelative paths in this skill are relative to the skill directory; read_skill with \"file\" reads them.\n", s.Dir)
	if files, more := s.Files(); len(files) > 0 {
		b.WriteString("<skill_resources>\n")
		for _, f := range files {
			fmt.Fprintf(&b, "  <file>%s</file>\n", f)
		}
		if more {
			fmt.Fprintf(&b, "  (only the first %d files are listed)\n", maxListed)
		}
		b.WriteString("</skill_resources>\n")
	}
	b.WriteString("</skill_content>")
	return b.String(), nil
}

// UserMessage is the message /NAME ARGS sends for a skill: the request to
// use it, with its instructions attached so that the model need not load
// them first.
func (s Skill) UserMessage(args string) (string, error) {
	content, err := s.Activate()
	if err != nil {
		return "", err
	}
	args = strings.TrimSpace(args)
	ask := fmt.Sprintf("Use the skill %q for this request.", s.Name)
	if args != "" {
		ask = fmt.Sprintf("Use the skill %q for this request: %s", s.Name, args)
	}
	return ask + "\n\nThe skill's instructions (loaded by co; no need to call read_skill for them):\n" + content, nil
}

// skillRoots are where skills are looked for, in precedence order lowest
// first: the user's, then the workspace's .agents/skills, then its
// .co-cli/skills. A later one wins a name (project skills override the
// user's: the Agent Skills client guide's "universal convention").
type root struct {
	dir     string
	confine string
	user    bool
}

func skillRoots(o Options) []root {
	var rs []root
	if o.ConfigDir != "" {
		rs = append(rs, root{dir: filepath.Join(o.ConfigDir, "skills"), user: true})
	}
	return append(rs,
		root{dir: filepath.Join(o.Workspace, ".agents", "skills"), confine: o.Workspace},
		root{dir: filepath.Join(o.Workspace, ".co-cli", "skills"), confine: o.Workspace})
}

func commandRoots(o Options) []root {
	var rs []root
	if o.ConfigDir != "" {
		rs = append(rs, root{dir: filepath.Join(o.ConfigDir, "commands"), user: true})
	}
	return append(rs, root{dir: filepath.Join(o.Workspace, ".co-cli", "commands"), confine: o.Workspace})
}

// MayHaveSkills reports, with a few stats and no reading, whether any
// skills folder exists: read_skill is registered only then.
func MayHaveSkills(o Options) bool {
	for _, r := range skillRoots(o) {
		if fi, err := os.Stat(r.dir); err == nil && fi.IsDir() {
			return true
		}
	}
	return false
}

func scope(user bool) string {
	if user {
		return "the user's"
	}
	return "the workspace's"
}

// readRoot lists a skills or commands folder; one that does not exist is
// no problem, one that cannot be read is.
func readRoot(dir string, problems *[]Problem) []os.DirEntry {
	entries, err := os.ReadDir(dir)
	if err != nil && !os.IsNotExist(err) {
		*problems = append(*problems, Problem{Path: dir, Msg: "not read: " + err.Error()})
	}
	return entries
}

func findSkills(o Options, c *checker) ([]Skill, []Problem) {
	byName := map[string]Skill{}
	var problems []Problem
	for _, r := range skillRoots(o) {
		for _, e := range readRoot(r.dir, &problems) {
			if strings.HasPrefix(e.Name(), ".") {
				continue
			}
			dir := filepath.Join(r.dir, e.Name())
			if !e.IsDir() {
				if fi, err := os.Stat(dir); e.Type()&fs.ModeSymlink == 0 || err != nil || !fi.IsDir() {
					continue // a file beside the skills (README.md)
				}
			}
			sk, ps, ok := loadSkill(c, dir, r.confine, r.user)
			problems = append(problems, ps...)
			if !ok {
				continue
			}
			if prev, dup := byName[sk.Name]; dup {
				problems = append(problems, Problem{Path: prev.Path, Msg: fmt.Sprintf("skill %q is also in %s, which wins (%s)", sk.Name, sk.Path, scope(sk.User))})
			}
			byName[sk.Name] = sk
		}
	}
	return byNameSorted(byName), problems
}

func findCommands(o Options, c *checker) ([]Command, []Problem) {
	byName := map[string]Command{}
	var problems []Problem
	for _, r := range commandRoots(o) {
		for _, e := range readRoot(r.dir, &problems) {
			if !strings.HasSuffix(e.Name(), ".md") || strings.HasPrefix(e.Name(), ".") || e.IsDir() {
				continue
			}
			cmd, p := loadCommand(c, filepath.Join(r.dir, e.Name()), r.confine, r.user)
			if p != nil {
				problems = append(problems, *p)
				continue
			}
			if prev, dup := byName[cmd.Name]; dup {
				problems = append(problems, Problem{Path: prev.Path, Msg: fmt.Sprintf("command /%s is also in %s, which wins (%s)", cmd.Name, cmd.Path, scope(cmd.User))})
			}
			byName[cmd.Name] = cmd
		}
	}
	return byNameSorted(byName), problems
}

// byNameSorted lists the values of m, keyed by their names, by name.
func byNameSorted[T any](m map[string]T) []T {
	out := make([]T, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		out = append(out, m[k])
	}
	return out
}
