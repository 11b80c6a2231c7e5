package sandbox

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/co-cli/co/lib/protect"
)

// Watch is the second wall around the workspace's protected paths (lib/protect): the guard's
// machinery (the picture, the comparison, the undo, the limits) with its own picture, checked
// around turns rather than commands, so that what a process co ran does after its command's check
// is caught too. Its moments and what it leaves out: the package documentation, "The Watch".
//
// All methods are safe for concurrent use.
type Watch struct {
	g *guard

	mu       sync.Mutex
	turn     bool        // a turn is running
	approved int         // approved calls running
	pending  []Protected // undone at the start of an approved call, for the next Check to report
	pictured bool        // g.base is a picture: primed at start or left by a turn
}

// NewWatch returns a Watch of the protected paths of cfg.Workspace: the same set as the Docker
// guard's (protectedSet), so every rule of lib/protect is covered. skip are absolute paths (files
// or folders) it never looks at: co's own files inside the workspace. It reads nothing yet.
func NewWatch(cfg Config, skip []string) *Watch {
	ws, err := filepath.Abs(cfg.Workspace)
	if err != nil {
		ws = cfg.Workspace
	}
	g := newGuard(ws, protectedSet(cfg), false)
	skipRel := map[string]bool{}
	for _, p := range skip {
		for _, root := range roots(ws) {
			if r, err := filepath.Rel(root, p); err == nil && r != "." && !strings.HasPrefix(r, "..") {
				skipRel[filepath.ToSlash(r)] = true
			}
		}
	}
	g.skip = func(dir, name string, k protect.Kind) bool {
		if skipRel[join(dir, name)] {
			return true
		}
		return watchSkips(dir, name, k)
	}
	return &Watch{g: g}
}

// protectedSet is the set of protected paths for cfg, as the Docker guard builds it (newDocker).
func protectedSet(cfg Config) protect.Set {
	return protect.New(cfg.InstructionFiles).In(cfg.Workspace, cfg.Places)
}

// roots are the workspace as given and as its links resolve: co's files may be named either way.
func roots(ws string) []string {
	out := []string{ws}
	if r, err := filepath.EvalSymlinks(ws); err == nil && r != ws {
		out = append(out, r)
	}
	return out
}

// gitData are the folders of a git directory that hold git's data, not what runs code.
var gitData = map[string]bool{
	"objects": true, "refs": true, "logs": true, "info": true, "lfs": true, "rr-cache": true,
	"branches": true, "rebase-merge": true, "rebase-apply": true, "sequencer": true,
	"fsmonitor--daemon": true, "filter-repo": true, "svn": true,
}

// gitCode are the files of a git directory that run code or lead to config that does.
var gitCode = map[string]bool{"config": true, "config.worktree": true, "commondir": true}

// watchSkips says whether the Watch leaves name in dir (slash-separated, relative to the
// workspace) out: git's data, and .idea/.
func watchSkips(dir, name string, k protect.Kind) bool {
	if strings.EqualFold(name, ".idea") {
		return true
	}
	parts := strings.Split(dir, "/")
	if toolState(parts[len(parts)-1], name, k) {
		return true
	}
	git := -1
	for i, p := range parts {
		if strings.EqualFold(p, ".git") {
			git = i
		}
	}
	if git < 0 || dir == "" {
		return false
	}
	for _, p := range parts[git+1:] {
		if strings.EqualFold(p, "hooks") {
			return false // every hook runs
		}
	}
	lower := strings.ToLower(name)
	if k == protect.Dir {
		return gitData[lower]
	}
	return !gitCode[lower]
}

// toolState says whether name in a folder called parent is a file that ssh or gpg rewrite
// whenever the user uses them, in a home folder inside the workspace: a host learned by ssh in
// another terminal during a turn must not be undone. None of them runs code or says who may log
// in; the Docker guard still undoes a command's change to them.
func toolState(parent, name string, k protect.Kind) bool {
	lower := strings.ToLower(name)
	switch strings.ToLower(parent) {
	case ".ssh":
		return lower == "known_hosts" || lower == "known_hosts.old"
	case ".gnupg":
		// random_seed, lock files (NAME.lock, .#lk…), gpg-agent's sockets (S.gpg-agent…).
		return lower == "random_seed" || strings.HasSuffix(lower, ".lock") || strings.HasPrefix(lower, ".#lk") || k == protect.Other
	}
	return false
}

// Prime reads the whole workspace and takes its picture, if nothing has yet: at start, in the
// background, so that the first turn pays only for an update and has a picture to compare
// with. It gives up when ctx is done.
func (w *Watch) Prime(ctx context.Context) {
	w.g.prime(ctx)
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pictured || ctx.Err() != nil {
		return
	}
	w.g.mu.Lock()
	defer w.g.mu.Unlock()
	if w.g.primed && w.g.snapshot() == nil {
		w.pictured = true
	}
}

// TurnStarted takes the baseline of a turn. It returns what changed since the last picture
// (the end of the last turn, or start), left as it is: co cannot tell the user's edit from
// anything else while no turn ran.
func (w *Watch) TurnStarted() []Protected {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.g.mu.Lock()
	defer w.g.mu.Unlock()
	var ps []Protected
	if w.pictured {
		ps = w.look(idleNote)
	}
	w.turn, w.approved, w.pending = true, 0, nil
	if err := w.g.snapshot(); err != nil {
		w.pictured = false
		return append(ps, Protected{Path: "./", Change: "unknown", Failed: err.Error()})
	}
	w.pictured = true
	return ps
}

// idleNote is why a change found outside a turn is left: what Failed says of it.
const idleNote = "changed while no turn ran, so co left it: it may be your own edit; check it"

// Check undoes and returns the changes since the baseline that no approved call made, and the
// baseline moves on (a change co could not undo is reported once). Outside a turn it does
// nothing.
func (w *Watch) Check() []Protected {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.turn {
		return nil
	}
	return w.checkLocked()
}

func (w *Watch) checkLocked() []Protected {
	w.g.mu.Lock()
	defer w.g.mu.Unlock()
	found := w.g.check(nil)
	ps := append(w.pending, found...)
	w.pending = nil
	if len(found) == 0 && !w.racy() {
		return ps // the baseline is the picture still: no second walk
	}
	if err := w.g.snapshot(); err != nil {
		ps = append(ps, Protected{Path: "./", Change: "unknown", Failed: err.Error()})
	}
	return ps
}

// racy says whether a protected path of the baseline was read too soon after a change to
// trust its stat: a new snapshot trusts it once it has settled. g.mu held.
func (w *Watch) racy() bool {
	for _, e := range w.g.base {
		if e.racy {
			return true
		}
	}
	return false
}

// TurnEnded checks as Check does, for the last time in the turn; the picture it leaves is what
// Exit and the next TurnStarted compare with.
func (w *Watch) TurnEnded() []Protected {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.turn {
		return nil
	}
	ps := w.checkLocked()
	w.turn, w.approved = false, 0
	return ps
}

// BeginApproved is called before a call that may change protected paths with approval runs:
// what changed before it is undone now (and reported by the next Check).
func (w *Watch) BeginApproved() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.turn {
		return
	}
	w.approved++
	if w.approved > 1 {
		return
	}
	w.g.mu.Lock()
	defer w.g.mu.Unlock()
	w.pending = append(w.pending, w.g.check(nil)...)
	_ = w.g.snapshot()
}

// EndApproved is called after such a call: what changed while it ran joins the baseline.
func (w *Watch) EndApproved() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.turn || w.approved == 0 {
		return
	}
	w.approved--
	if w.approved > 0 {
		return
	}
	w.g.mu.Lock()
	defer w.g.mu.Unlock()
	_ = w.g.snapshot()
}

// Exit is the check when co exits. A turn still running is checked as by Check (undone);
// otherwise what changed since the last turn ended is reported and left as it is.
func (w *Watch) Exit() []Protected {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.turn {
		ps := w.checkLocked()
		w.turn = false
		return ps
	}
	if !w.pictured {
		return nil
	}
	w.g.mu.Lock()
	defer w.g.mu.Unlock()
	ps := w.look(idleNote)
	_ = w.g.snapshot()
	return ps
}

// look compares the protected paths with the baseline and reports the differences, each with
// Failed set to note, changing nothing; g.mu held.
func (w *Watch) look(note string) []Protected {
	if err := w.g.refreshTree(); err != nil {
		return []Protected{{Path: "./", Change: "unknown", Failed: err.Error()}}
	}
	ps := w.g.report(w.g.compare(w.g.current()), nil, nil, nil)
	for i := range ps {
		ps[i].Failed = note
	}
	slices.SortFunc(ps, func(a, b Protected) int { return strings.Compare(a.Path, b.Path) })
	return ps
}
