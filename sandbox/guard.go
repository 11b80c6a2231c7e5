package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/co-cli/co/lib/protect"
)

// The guard keeps shell commands from leaving changes to the workspace's
// protected paths (lib/protect) on the host: before a command it brings its
// picture of them up to date, after it compares and undoes what the
// command created, changed or deleted. Why a check and not only read-only
// mounts, what it keeps and how it stays cheap and safe from planted
// links: the package documentation, "The protected-paths guard".

// Limits of what the guard keeps.
const (
	racyWindow   = 2 * time.Second
	keepFileMax  = 2 << 20  // larger protected files are kept as their stat only
	keepTotalMax = 32 << 20 // content kept for all protected files together
)

// Protected is one change a command made to a protected path.
type Protected struct {
	// Path is relative to the workspace, slash-separated; a folder ends in "/".
	Path string
	// Change is "created", "changed", "deleted" or "replaced" (by another kind of file).
	Change string
	// Reason says why the path is protected.
	Reason string
	// Files is, for a folder created whole, how many entries it held.
	Files int
	// Failed is why co could not undo the change ("" when it did).
	Failed string
}

// fstat is what the guard compares of a file.
type fstat struct {
	mode         uint32 // type and permission bits
	uid, gid     uint32
	size         int64
	mtime, ctime int64 // ns
	ino, dev     uint64
}

func toFstat(st *unix.Stat_t) fstat {
	return fstat{
		mode: uint32(st.Mode), uid: st.Uid, gid: st.Gid, size: st.Size,
		mtime: st.Mtim.Nano(), ctime: st.Ctim.Nano(), ino: uint64(st.Ino), dev: uint64(st.Dev),
	}
}

func (s fstat) typ() uint32  { return s.mode & unix.S_IFMT }
func (s fstat) perm() uint32 { return s.mode & 0o7777 }
func (s fstat) isDir() bool  { return s.typ() == unix.S_IFDIR }

func kindOf(s fstat) protect.Kind {
	switch s.typ() {
	case unix.S_IFREG:
		return protect.File
	case unix.S_IFDIR:
		return protect.Dir
	}
	return protect.Other
}

func typeName(s fstat) string {
	switch s.typ() {
	case unix.S_IFREG:
		return "file"
	case unix.S_IFDIR:
		return "folder"
	case unix.S_IFLNK:
		return "symlink"
	case unix.S_IFIFO:
		return "FIFO"
	case unix.S_IFSOCK:
		return "socket"
	}
	return "device"
}

func lstat(p string) (fstat, error) {
	var st unix.Stat_t
	if err := unix.Lstat(p, &st); err != nil {
		return fstat{}, err
	}
	return toFstat(&st), nil
}

type devIno struct{ dev, ino uint64 }

// node is a directory of the workspace as the guard last read it.
type node struct {
	st     fstat
	racy   bool  // read too soon after its last change to trust its ctime
	opaque bool  // a read-only mount: commands cannot change anything in it
	blind  bool  // co cannot read it
	kids   []kid // its entries
}

type kid struct {
	name string
	dir  bool
	kind protect.Kind
	why  string // why name is protected where it stands (protect.Set.ChildAt), or ""
}

// prot says which protected path covers a path, and why.
type prot struct{ root, why string }

// entry is a protected path as the baseline holds it.
type entry struct {
	prot
	st      fstat
	racy    bool
	content []byte // a regular file's content, when kept
	kept    bool
	link    string // a symlink's target
}

// cur is a protected path as it is now.
type cur struct {
	prot
	st fstat
}

// fixer undoes, in the container as the command's user, what co's own user could not: remove
// paths and put entries back. rel paths are relative to the workspace.
type fixer func(remove []string, restore map[string]*entry) error

type guard struct {
	ws      string
	set     protect.Set
	skipGit bool // the workspace's own .git is not guarded: sandbox_git_readonly is off
	// skip, when set, leaves an entry out of the picture: neither walked nor compared (the
	// Watch's: git's own data, what an IDE writes by itself, co's own files).
	skip   func(dir, name string, k protect.Kind) bool
	asRoot bool // co runs as root: what it puts back gets its owner back

	mu      sync.Mutex
	active  int               // commands running
	dirty   bool              // a command ran since the last check made with none running
	primed  bool              // tree holds the whole workspace
	tree    map[string]*node  // every directory read, by path ("" is the workspace)
	base    map[string]*entry // every protected path before the commands running now
	linked  map[string]prot   // paths that protected symlinks lead to, inside the workspace
	mounts  map[string]devIno // read-only mounts of the current container, by the path they were made at
	mounted map[devIno]bool   // the same by device and inode: a mount moves with a renamed parent
	gone    map[string]*node  // directories the latest refreshTree found gone, as they were
	blind   map[string]bool   // directories co cannot read; true once reported
	stop    func() bool       // while priming: give up
}

func newGuard(ws string, set protect.Set, skipGit bool) *guard {
	return &guard{
		ws: ws, set: set, skipGit: skipGit, asRoot: os.Geteuid() == 0,
		tree: map[string]*node{}, base: map[string]*entry{}, blind: map[string]bool{},
	}
}

func (g *guard) abs(rel string) string {
	if rel == "" {
		return g.ws
	}
	return g.ws + "/" + rel
}

func join(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}

func racy(st fstat, since time.Time) bool { return st.ctime >= since.Add(-racyWindow).UnixNano() }

// setMounts tells the guard which directories (or files) the current container has mounted
// read-only: nothing in them can be changed by a command while they are the ones mounted.
func (g *guard) setMounts(m map[string]devIno) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.mounts = m
	g.mounted = make(map[devIno]bool, len(m))
	for _, di := range m {
		g.mounted[di] = true
	}
	for rel, n := range g.tree {
		want := rel != "" && g.isMount(rel, n.st)
		switch {
		case n.opaque && !want:
			n.opaque, n.racy = false, true // read it next time
		case !n.opaque && want:
			n.opaque, n.kids = true, nil
			g.dropUnder(rel)
		}
	}
}

func (g *guard) isMount(rel string, st fstat) bool {
	return g.mounted[devIno{st.dev, st.ino}]
}

// maxGitMounts caps the .git folders below the top mounted read-only (a folder of many
// repositories); the rest are checked after each command like any protected folder.
const maxGitMounts = 64

// gitDirs are the .git folders below the top of the workspace that the tree holds, shallowest
// first: what the Docker backend mounts read-only beside the top one.
func (g *guard) gitDirs() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	var out []string
	for rel := range g.tree {
		if i := strings.LastIndexByte(rel, '/'); i >= 0 && strings.EqualFold(rel[i+1:], ".git") {
			out = append(out, rel)
		}
	}
	slices.SortFunc(out, func(a, b string) int {
		if c := strings.Count(a, "/") - strings.Count(b, "/"); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	if len(out) > maxGitMounts {
		out = out[:maxGitMounts]
	}
	return out
}

// prime reads the whole workspace, if it has not been read yet: the Docker backend calls it
// while the container is being made, so that the first command only pays for an update. It
// gives up when ctx is done (co is exiting), leaving the reading to the first command.
func (g *guard) prime(ctx context.Context) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.primed {
		return
	}
	g.stop = func() bool { return ctx.Err() != nil }
	defer func() { g.stop = nil }()
	if err := g.refreshTree(); err != nil || ctx.Err() != nil {
		g.primed, g.tree = false, map[string]*node{}
	}
}

// begin is called before a command runs. The first of concurrent commands takes the baseline.
func (g *guard) begin() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.active == 0 {
		if err := g.snapshot(); err != nil {
			return err
		}
	}
	g.active++
	g.dirty = true
	return nil
}

// end is called after a command: it undoes the changes to protected paths made since the
// baseline (with fix for what co's user cannot undo, when not nil) and reports them.
func (g *guard) end(fix fixer) []Protected {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.active--
	ps := g.check(fix)
	if g.active == 0 {
		g.dirty = false
	}
	return ps
}

// final checks once more, when no process of any command is left (the container is gone).
func (g *guard) final() []Protected {
	g.mu.Lock()
	defer g.mu.Unlock()
	if !g.dirty {
		return nil
	}
	g.dirty = false
	return g.check(nil)
}

// refreshTree brings the directory tree up to date: it stats every directory it knows, drops
// those that are gone, and reads again those whose ctime changed (or whose last reading was too
// soon after a change to trust), walking the directories that are new in them.
func (g *guard) refreshTree() error {
	start := time.Now()
	if !g.primed {
		fd, err := unix.Open(g.ws, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
		if err != nil {
			return fmt.Errorf("sandbox: reading the workspace for protected files: %w", err)
		}
		g.tree = map[string]*node{}
		n, err := g.load(fd, "", start)
		if err != nil {
			return fmt.Errorf("sandbox: reading the workspace for protected files: %w", err)
		}
		g.tree[""] = n
		g.primed = true
		return nil
	}
	var gone, reread []string
	g.gone = map[string]*node{}
	for rel, n := range g.tree {
		st, err := lstat(g.abs(rel))
		switch {
		case err != nil || !st.isDir() || st.dev != n.st.dev || st.ino != n.st.ino:
			if rel == "" {
				return fmt.Errorf("sandbox: the workspace %s is gone or replaced", g.ws)
			}
			gone = append(gone, rel)
			g.gone[rel] = n
		case n.opaque:
			n.st = st
		case st.ctime != n.st.ctime || n.racy || n.blind:
			reread = append(reread, rel)
		}
	}
	g.dropAll(gone)
	slices.Sort(reread) // parents first
	for _, rel := range reread {
		old, ok := g.tree[rel]
		if !ok {
			continue // dropped with a parent
		}
		fd, err := unix.Open(g.abs(rel), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			if errors.Is(err, unix.EACCES) {
				old.blind = true
				g.noteBlind(rel)
				continue
			}
			g.dropAll([]string{rel})
			continue
		}
		n, err := g.load(fd, rel, start)
		if err != nil || n.st.dev != old.st.dev || n.st.ino != old.st.ino {
			g.dropAll([]string{rel}) // replaced since it was stat'ed: its parent shows the new one
			continue
		}
		left := map[string]bool{}
		for _, k := range old.kids {
			if k.dir {
				left[k.name] = true
			}
		}
		for _, k := range n.kids {
			if k.dir {
				delete(left, k.name)
			}
		}
		for name := range left {
			g.dropAll([]string{join(rel, name)})
		}
		g.tree[rel] = n
	}
	return nil
}

// load reads the directory open as fd (at rel) into a node, and walks the directories in it that
// the tree does not hold. It closes fd.
func (g *guard) load(fd int, rel string, start time.Time) (*node, error) {
	f := os.NewFile(uintptr(fd), rel)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	n := &node{st: toFstat(&st)}
	n.racy = racy(n.st, start)
	if rel != "" && g.isMount(rel, n.st) {
		n.opaque = true
		return n, nil
	}
	ents, err := f.ReadDir(-1)
	if err != nil {
		n.blind = true
		g.noteBlind(rel)
	}
	n.kids = make([]kid, 0, len(ents))
	for _, e := range ents {
		name := e.Name()
		if rel == "" && g.skipGit && strings.EqualFold(name, ".git") {
			continue
		}
		t := e.Type()
		k := kid{name: name, dir: t.IsDir(), kind: protect.Other}
		switch {
		case t.IsDir():
			k.kind = protect.Dir
		case t.IsRegular():
			k.kind = protect.File
		}
		if g.skip != nil && g.skip(rel, name, k.kind) {
			continue
		}
		k.why = g.set.ChildAt(rel, name, k.kind)
		n.kids = append(n.kids, k)
	}
	for _, k := range n.kids {
		if !k.dir {
			continue
		}
		if g.stop != nil && g.stop() {
			break
		}
		krel := join(rel, k.name)
		if _, ok := g.tree[krel]; ok {
			continue
		}
		cfd, err := unix.Openat(fd, k.name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			if errors.Is(err, unix.EACCES) {
				var cst unix.Stat_t
				if unix.Fstatat(fd, k.name, &cst, unix.AT_SYMLINK_NOFOLLOW) == nil {
					g.tree[krel] = &node{st: toFstat(&cst), blind: true}
					g.noteBlind(krel)
				}
			}
			continue // gone since, or not a directory any more
		}
		if cn, err := g.load(cfd, krel, start); err == nil {
			g.tree[krel] = cn
		}
	}
	return n, nil
}

func (g *guard) noteBlind(rel string) {
	if _, ok := g.blind[rel]; !ok {
		g.blind[rel] = false
	}
}

// dropAll forgets the directories gone and everything under them.
func (g *guard) dropAll(gone []string) {
	if len(gone) == 0 {
		return
	}
	set := make(map[string]bool, len(gone))
	for _, r := range gone {
		set[r] = true
	}
	for rel := range g.tree {
		if underAny(rel, set) {
			delete(g.tree, rel)
		}
	}
}

// dropUnder forgets what is under rel, keeping rel.
func (g *guard) dropUnder(rel string) {
	for r := range g.tree {
		if strings.HasPrefix(r, rel+"/") {
			delete(g.tree, r)
		}
	}
}

// underAny says whether rel or one of its parents is in set.
func underAny(rel string, set map[string]bool) bool {
	for p := rel; ; {
		if set[p] {
			return true
		}
		i := strings.LastIndexByte(p, '/')
		if i < 0 {
			return false
		}
		p = p[:i]
	}
}

// current lists the protected paths as they are now (after refreshTree).
func (g *guard) current() map[string]*cur {
	out := map[string]*cur{}
	g.visit("", g.tree[""], nil, out)
	return out
}

func (g *guard) visit(rel string, n *node, p *prot, out map[string]*cur) {
	if n == nil || n.opaque {
		return
	}
	for _, k := range n.kids {
		if p == nil && k.why == "" && !k.dir && len(g.linked) == 0 {
			continue // an ordinary file
		}
		krel := join(rel, k.name)
		kp := p
		if kp == nil {
			if k.why != "" {
				kp = &prot{root: krel, why: k.why}
			} else if lp, ok := g.linked[krel]; ok {
				kp = &lp
			}
		}
		var kn *node
		if k.dir {
			kn = g.tree[krel]
		}
		if kp != nil {
			c := &cur{prot: *kp}
			if kn != nil {
				c.st = kn.st
			} else if st, err := lstat(g.abs(krel)); err == nil {
				c.st = st
			} else {
				continue // gone since the directory was read
			}
			out[krel] = c
		}
		if kn != nil {
			g.visit(krel, kn, kp, out)
		}
	}
}

// linkTargets are the paths inside the workspace that protected symlinks lead to (CLAUDE.md →
// docs/agents.md): what a command writes there, every later session reads through the link.
func (g *guard) linkTargets(c map[string]*cur) map[string]prot {
	var m map[string]prot
	wsReal, err := filepath.EvalSymlinks(g.ws)
	if err != nil {
		return nil
	}
	for rel, x := range c {
		if x.st.typ() != unix.S_IFLNK {
			continue
		}
		t, err := filepath.EvalSymlinks(g.abs(rel))
		if err != nil || !strings.HasPrefix(t, wsReal+"/") {
			continue // dangling, or outside the workspace, where commands cannot go
		}
		r := strings.TrimPrefix(t, wsReal+"/")
		if rel == r || strings.HasPrefix(rel, r+"/") {
			continue // a link to a folder above itself would cover the workspace
		}
		if st, err := lstat(t); err != nil {
			continue
		} else if _, _, ok := g.set.Match(r, kindOf(st)); ok {
			continue // protected anyway (CLAUDE.md → AGENTS.md)
		}
		if m == nil {
			m = map[string]prot{}
		}
		m[r] = prot{root: r, why: x.why + " (" + rel + " leads to " + r + ")"}
	}
	return m
}

// snapshot takes the baseline: every protected path with its content, reusing what was read
// before for files whose stat did not change.
func (g *guard) snapshot() error {
	start := time.Now()
	if err := g.refreshTree(); err != nil {
		return err
	}
	c := g.current()
	if l := g.linkTargets(c); !sameProts(l, g.linked) {
		g.linked = l
		c = g.current()
	}
	rels := make([]string, 0, len(c))
	for rel := range c {
		rels = append(rels, rel)
	}
	// Smallest first: when the copies would pass keepTotalMax, the files left without one are the
	// largest (a nested repository's packs), never hooks or settings.
	slices.SortFunc(rels, func(a, b string) int {
		if d := c[a].st.size - c[b].st.size; d != 0 {
			return int(max(-1, min(1, d)))
		}
		return strings.Compare(a, b)
	})
	base := make(map[string]*entry, len(c))
	var kept int64
	for _, rel := range rels {
		x := c[rel]
		e := &entry{prot: x.prot, st: x.st, racy: racy(x.st, start)}
		old := g.base[rel]
		same := old != nil && old.st == x.st && !old.racy
		switch x.st.typ() {
		case unix.S_IFREG:
			switch {
			case x.st.size > keepFileMax || kept+x.st.size > keepTotalMax:
			case same && old.kept:
				e.content, e.kept = old.content, true
			default:
				if b, err := g.readFile(rel, keepFileMax); err == nil {
					e.content, e.kept = b, true
				}
			}
			kept += int64(len(e.content))
		case unix.S_IFLNK:
			if same {
				e.link = old.link
			} else {
				e.link, _ = g.readLink(rel)
			}
		}
		base[rel] = e
	}
	g.base = base
	return nil
}

func sameProts(a, b map[string]prot) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// diff is one protected path that is not as the baseline has it.
type diff struct {
	rel    string
	change string // created, changed, deleted, replaced
	b      *entry // nil when created
	c      *cur   // nil when deleted
}

func (g *guard) compare(c map[string]*cur) []diff {
	var ds []diff
	for rel, b := range g.base {
		x, ok := c[rel]
		switch {
		case !ok:
			ds = append(ds, diff{rel, "deleted", b, nil})
		case x.st.typ() != b.st.typ():
			ds = append(ds, diff{rel, "replaced", b, x})
		case x.st.perm() != b.st.perm():
			ds = append(ds, diff{rel, "changed", b, x})
		case x.st == b.st && !b.racy:
		case x.st.typ() == unix.S_IFREG && g.contentChanged(rel, b, x):
			ds = append(ds, diff{rel, "changed", b, x})
		case x.st.typ() == unix.S_IFLNK:
			if l, err := g.readLink(rel); err != nil || l != b.link {
				ds = append(ds, diff{rel, "changed", b, x})
			}
		}
	}
	for rel, x := range c {
		if g.base[rel] == nil {
			ds = append(ds, diff{rel, "created", nil, x})
		}
	}
	slices.SortFunc(ds, func(a, b diff) int { return strings.Compare(a.rel, b.rel) })
	return ds
}

func (g *guard) contentChanged(rel string, b *entry, x *cur) bool {
	if !b.kept {
		// Only the stat to go by: a racy stat that did not change cannot be told apart.
		return x.st.size != b.st.size || x.st.mtime != b.st.mtime || x.st.ctime != b.st.ctime || x.st.ino != b.st.ino
	}
	if x.st.size != int64(len(b.content)) {
		return true
	}
	now, err := g.readFile(rel, int64(len(b.content)))
	return err != nil || !bytes.Equal(now, b.content)
}

// check compares the protected paths with the baseline, undoes the differences and reports them.
func (g *guard) check(fix fixer) []Protected {
	if err := g.refreshTree(); err != nil {
		return []Protected{{Path: "./", Change: "unknown", Failed: err.Error()}}
	}
	moved := g.moveBack()
	if len(moved) > 0 {
		if err := g.refreshTree(); err != nil {
			return []Protected{{Path: "./", Change: "unknown", Failed: err.Error()}}
		}
	}
	ds := g.compare(g.current())
	if len(ds) == 0 {
		return append(moved, g.blindReport()...)
	}
	errs, notes := g.revert(ds)
	if fix != nil {
		var rm []string
		put := map[string]*entry{}
		for _, d := range ds {
			if err := errs[d.rel]; err == nil || !isPerm(err) {
				continue
			}
			if d.change == "created" || d.change == "replaced" {
				rm = append(rm, d.rel)
			}
			if d.b != nil && (d.b.kept || d.b.st.typ() != unix.S_IFREG) {
				put[d.rel] = d.b
			}
		}
		if len(rm)+len(put) > 0 {
			if err := fix(rm, put); err != nil {
				for _, d := range ds {
					if errs[d.rel] != nil {
						errs[d.rel] = fmt.Errorf("%w; in the container too: %v", errs[d.rel], err)
					}
				}
			}
		}
	}
	// What still differs was not undone.
	left := map[string]bool{}
	if err := g.refreshTree(); err == nil {
		for _, d := range g.compare(g.current()) {
			left[d.rel] = true
		}
	}
	return append(append(moved, g.report(ds, errs, notes, left)...), g.blindReport()...)
}

// moveBack puts back, whole, the folders holding protected paths (or a read-only mount) that the
// command renamed or moved within the workspace — found by their device and inode at another
// path — so that mv pkg lib leaves pkg as it was rather than its AGENTS.md alone. A symlink
// standing at the old path is removed first; anything else there, and the folder is left where
// it is (its protected paths are then put back one by one).
func (g *guard) moveBack() []Protected {
	if len(g.gone) == 0 {
		return nil
	}
	holds := func(rel string) bool {
		for r := range g.base {
			if strings.HasPrefix(r, rel+"/") {
				return true
			}
		}
		for r := range g.mounts {
			if r == rel || strings.HasPrefix(r, rel+"/") {
				return true
			}
		}
		return false
	}
	now := make(map[devIno]string, len(g.tree))
	for rel, n := range g.tree {
		now[devIno{n.st.dev, n.st.ino}] = rel
	}
	olds := make([]string, 0, len(g.gone))
	for rel := range g.gone {
		olds = append(olds, rel)
	}
	slices.Sort(olds) // parents first
	rootFd, err := unix.Open(g.ws, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(rootFd)
	var ps []Protected
	done := map[string]bool{}
	for _, old := range olds {
		was := g.gone[old]
		to, ok := now[devIno{was.st.dev, was.st.ino}]
		if !ok || to == old || underAny(old, done) || !sameDir(was, g.tree[to]) || !holds(old) {
			continue
		}
		p := Protected{Path: old + "/", Change: "moved to " + to + "/; moved back whole, as it holds protected files"}
		// A folder holding a read-only mount (co's own folders) cannot be put back file by
		// file: what the command made in its place is moved aside.
		aside, err := g.moveDir(rootFd, to, old, holdsMount(g.mounts, old))
		if err != nil {
			continue // its protected paths are put back one by one
		}
		if aside != "" {
			p.Change += "; what the command made in its place is now " + aside + "/"
		}
		done[old] = true
		ps = append(ps, p)
	}
	return ps
}

// sameDir says whether the folder now is the one that was, moved: same device and inode, and,
// since a deleted folder's inode may be given at once to a new one, still holding one of its
// entries (a mounted folder cannot be deleted: its inode is its own).
func sameDir(was, now *node) bool {
	if was.opaque || len(was.kids) == 0 {
		return true
	}
	names := make(map[string]bool, len(was.kids))
	for _, k := range was.kids {
		names[k.name] = true
	}
	for _, k := range now.kids {
		if names[k.name] {
			return true
		}
	}
	return false
}

// moveDir renames the folder at from to to, without following symlinks on either side. With
// displace, a file or folder standing at to is first renamed beside it (its new path is
// returned); without, it is an error.
func (g *guard) moveDir(rootFd int, from, to string, displace bool) (aside string, err error) {
	tfd, tname, err := parentAt(rootFd, to, true, g.asRoot)
	if err != nil {
		return "", err
	}
	defer unix.Close(tfd)
	var st unix.Stat_t
	switch err := unix.Fstatat(tfd, tname, &st, unix.AT_SYMLINK_NOFOLLOW); {
	case err == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK:
		if err := unix.Unlinkat(tfd, tname, 0); err != nil {
			return "", err
		}
	case err == nil && displace:
		name := tname + ".co-displaced-" + randomHex(6)
		if err := unix.Renameat(tfd, tname, tfd, name); err != nil {
			return "", err
		}
		aside = path.Join(path.Dir(to), name)
	case err == nil:
		return "", fmt.Errorf("%s is taken", to)
	case !errors.Is(err, unix.ENOENT):
		return "", err
	}
	ffd, fname, err := parentAt(rootFd, from, false, g.asRoot)
	if err != nil {
		return aside, err
	}
	defer unix.Close(ffd)
	return aside, unix.Renameat(ffd, fname, tfd, tname)
}

// holdsMount says whether one of the read-only mounts is at rel or under it.
func holdsMount(mounts map[string]devIno, rel string) bool {
	for r := range mounts {
		if r == rel || strings.HasPrefix(r, rel+"/") {
			return true
		}
	}
	return false
}

// blindReport names, once, the directories co could not read: protected files made in them
// are not seen.
func (g *guard) blindReport() []Protected {
	var ps []Protected
	for rel, done := range g.blind {
		if !done {
			g.blind[rel] = true
			ps = append(ps, Protected{Path: rel + "/", Change: "unreadable",
				Failed: "co cannot read this folder, so it cannot see protected files a command makes in it"})
		}
	}
	slices.SortFunc(ps, func(a, b Protected) int { return strings.Compare(a.Path, b.Path) })
	return ps
}

func isPerm(err error) bool { return errors.Is(err, unix.EACCES) || errors.Is(err, unix.EPERM) }

// errNoCopy: a protected file too large to keep changed, or was deleted.
var errNoCopy = errors.New("co kept no copy of it (over 2 MiB, or 32 MiB of protected files in all)")

// revert undoes ds: what was created is removed (a folder whole), what was changed, replaced or
// deleted is put back. It returns the errors by path, and notes on what was done instead.
func (g *guard) revert(ds []diff) (errs map[string]error, notes map[string]string) {
	errs, notes = map[string]error{}, map[string]string{}
	rootFd, err := unix.Open(g.ws, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		for _, d := range ds {
			errs[d.rel] = err
		}
		return errs, notes
	}
	defer unix.Close(rootFd)
	removed := map[string]bool{}
	for _, d := range ds {
		if (d.change != "created" && d.change != "replaced") || underAny(d.rel, removed) {
			continue
		}
		if err := g.removePath(rootFd, d.rel); err != nil {
			errs[d.rel] = err
			continue
		}
		removed[d.rel] = true
	}
	for _, d := range ds {
		if d.change == "created" || errs[d.rel] != nil {
			continue
		}
		if d.b.st.typ() == unix.S_IFREG && !d.b.kept {
			if d.change == "changed" {
				if err := g.removePath(rootFd, d.rel); err != nil {
					errs[d.rel] = err
					continue
				}
				notes[d.rel] = "co kept no copy of it (over 2 MiB), so it removed it"
				delete(g.base, d.rel)
				continue
			}
			errs[d.rel] = errNoCopy
			continue
		}
		if err := g.restore(rootFd, d.rel, d.b); err != nil {
			errs[d.rel] = err
		}
	}
	return errs, notes
}

// removePath removes rel (a folder with everything in it) without following symlinks.
func (g *guard) removePath(rootFd int, rel string) error {
	pfd, name, err := parentAt(rootFd, rel, false, g.asRoot)
	if err != nil {
		if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ELOOP) || errors.Is(err, unix.ENOTDIR) {
			return nil // not there as such any more
		}
		return err
	}
	defer unix.Close(pfd)
	return removeAt(pfd, name)
}

// restore puts the baseline entry b back at rel, making its parent folders as needed.
func (g *guard) restore(rootFd int, rel string, b *entry) error {
	pfd, name, err := parentAt(rootFd, rel, true, g.asRoot)
	if err != nil {
		return err
	}
	defer unix.Close(pfd)
	switch b.st.typ() {
	case unix.S_IFDIR:
		err := unix.Mkdirat(pfd, name, b.st.perm())
		if errors.Is(err, unix.EEXIST) {
			var st unix.Stat_t
			if err = unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW); err == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR {
				if err = removeAt(pfd, name); err == nil {
					err = unix.Mkdirat(pfd, name, b.st.perm())
				}
			}
		}
		if err != nil {
			return err
		}
		fd, err := unix.Openat(pfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil {
			return err
		}
		defer unix.Close(fd)
		if g.asRoot {
			_ = unix.Fchown(fd, int(b.st.uid), int(b.st.gid))
		}
		return unix.Fchmod(fd, b.st.perm())
	case unix.S_IFREG:
		return g.putFile(pfd, name, b)
	case unix.S_IFLNK:
		tmp := ".co-restore-" + randomHex(12)
		if err := unix.Symlinkat(b.link, pfd, tmp); err != nil {
			return err
		}
		if g.asRoot {
			_ = unix.Fchownat(pfd, tmp, int(b.st.uid), int(b.st.gid), unix.AT_SYMLINK_NOFOLLOW)
		}
		return renameOver(pfd, tmp, name)
	}
	return fmt.Errorf("co cannot put back a %s", typeName(b.st))
}

// putFile writes b's content at name in pfd: in place when the file there is still b's (so its
// hard links keep it), else through a new file renamed over whatever is there.
func (g *guard) putFile(pfd int, name string, b *entry) error {
	var st unix.Stat_t
	if unix.Fstatat(pfd, name, &st, unix.AT_SYMLINK_NOFOLLOW) == nil && st.Mode&unix.S_IFMT == unix.S_IFREG && uint64(st.Ino) == b.st.ino {
		fd, err := unix.Openat(pfd, name, unix.O_WRONLY|unix.O_TRUNC|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		if err == nil {
			err = g.fill(fd, b)
			if cerr := unix.Close(fd); err == nil {
				err = cerr
			}
			if err == nil {
				g.setTimes(pfd, name, b)
				return nil
			}
		}
	}
	tmp := ".co-restore-" + randomHex(12)
	fd, err := unix.Openat(pfd, tmp, unix.O_WRONLY|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o600)
	if err != nil {
		return err
	}
	err = g.fill(fd, b)
	if cerr := unix.Close(fd); err == nil {
		err = cerr
	}
	if err == nil {
		err = renameOver(pfd, tmp, name)
	}
	if err != nil {
		_ = unix.Unlinkat(pfd, tmp, 0)
		return err
	}
	g.setTimes(pfd, name, b)
	return nil
}

func (g *guard) fill(fd int, b *entry) error {
	for rest := b.content; len(rest) > 0; {
		n, err := unix.Write(fd, rest)
		if err != nil {
			return err
		}
		rest = rest[n:]
	}
	if err := unix.Ftruncate(fd, int64(len(b.content))); err != nil {
		return err
	}
	if g.asRoot {
		_ = unix.Fchown(fd, int(b.st.uid), int(b.st.gid))
	}
	return unix.Fchmod(fd, b.st.perm())
}

func (g *guard) setTimes(pfd int, name string, b *entry) {
	ts := unix.NsecToTimespec(b.st.mtime)
	_ = unix.UtimesNanoAt(pfd, name, []unix.Timespec{ts, ts}, unix.AT_SYMLINK_NOFOLLOW)
}

// renameOver renames tmp to name in dir fd, removing first a folder that stands at name.
func renameOver(fd int, tmp, name string) error {
	err := unix.Renameat(fd, tmp, fd, name)
	if errors.Is(err, unix.EISDIR) || errors.Is(err, unix.ENOTEMPTY) || errors.Is(err, unix.EEXIST) || errors.Is(err, unix.ENOTDIR) {
		if err = removeAt(fd, name); err == nil {
			err = unix.Renameat(fd, tmp, fd, name)
		}
	}
	if err != nil {
		_ = unix.Unlinkat(fd, tmp, 0)
	}
	return err
}

// parentAt opens the folder rel is in, from the workspace down, never following a symlink. With
// create, a missing folder is made, and a symlink standing where a folder was is replaced by one
// (a link is only a pointer: nothing is lost); any other file in the way is an error.
func parentAt(rootFd int, rel string, create, asRoot bool) (int, string, error) {
	dir, name := path.Split(rel)
	fd, err := unix.Dup(rootFd)
	if err != nil {
		return -1, "", err
	}
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" {
		return fd, name, nil
	}
	done := ""
	for _, c := range strings.Split(dir, "/") {
		nfd, err := unix.Openat(fd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		if err != nil && create {
			var st unix.Stat_t
			switch serr := unix.Fstatat(fd, c, &st, unix.AT_SYMLINK_NOFOLLOW); {
			case errors.Is(serr, unix.ENOENT):
				err = mkdirOwned(fd, c, asRoot)
			case serr == nil && st.Mode&unix.S_IFMT == unix.S_IFLNK:
				if err = unix.Unlinkat(fd, c, 0); err == nil {
					err = mkdirOwned(fd, c, asRoot)
				}
			case serr == nil && st.Mode&unix.S_IFMT != unix.S_IFDIR:
				err = fmt.Errorf("%s is no longer a folder (a %s stands there)", join(done, c), typeName(toFstat(&st)))
			}
			if err == nil {
				nfd, err = unix.Openat(fd, c, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			}
		}
		unix.Close(fd)
		if err != nil {
			return -1, "", err
		}
		fd = nfd
		done = join(done, c)
	}
	return fd, name, nil
}

// mkdirOwned makes a folder in fd owned, when co runs as root, by fd's owner.
func mkdirOwned(fd int, name string, asRoot bool) error {
	if err := unix.Mkdirat(fd, name, 0o755); err != nil {
		return err
	}
	if asRoot {
		var st unix.Stat_t
		if unix.Fstat(fd, &st) == nil {
			_ = unix.Fchownat(fd, name, int(st.Uid), int(st.Gid), unix.AT_SYMLINK_NOFOLLOW)
		}
	}
	return nil
}

// removeAt removes name in dirfd, a folder with everything in it, without following symlinks.
// A folder it cannot empty it makes writable first, when it may.
func removeAt(dirfd int, name string) error {
	err := unix.Unlinkat(dirfd, name, 0)
	if err == nil || errors.Is(err, unix.ENOENT) {
		return nil
	}
	if !errors.Is(err, unix.EISDIR) && !errors.Is(err, unix.EPERM) {
		return err
	}
	unlinkErr := err
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.EACCES) {
		if unix.Fchmodat(dirfd, name, 0o700, 0) == nil {
			fd, err = unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
		}
	}
	if err != nil {
		if errors.Is(err, unix.ENOTDIR) || errors.Is(err, unix.ELOOP) {
			return unlinkErr // a file we may not remove
		}
		return err
	}
	f := os.NewFile(uintptr(fd), name)
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return err
	}
	madeWritable := false
	for _, n := range names {
		e := removeAt(fd, n)
		if e != nil && isPerm(e) && !madeWritable {
			madeWritable = true
			if unix.Fchmod(fd, 0o700) == nil {
				e = removeAt(fd, n)
			}
		}
		if e != nil {
			return e
		}
	}
	if err := unix.Unlinkat(dirfd, name, unix.AT_REMOVEDIR); err != nil && !errors.Is(err, unix.ENOENT) {
		return err
	}
	return nil
}

// readFile reads at most max bytes of the regular file rel, without following symlinks; a
// longer file is an error.
func (g *guard) readFile(rel string, max int64) ([]byte, error) {
	rootFd, err := unix.Open(g.ws, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	pfd, name, err := parentAt(rootFd, rel, false, false)
	unix.Close(rootFd)
	if err != nil {
		return nil, err
	}
	fd, err := unix.Openat(pfd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	unix.Close(pfd)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(fd), rel)
	defer f.Close()
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return nil, fmt.Errorf("%s is not a regular file", rel)
	}
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is over %d bytes", rel, max)
	}
	return b, nil
}

func (g *guard) readLink(rel string) (string, error) {
	rootFd, err := unix.Open(g.ws, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", err
	}
	defer unix.Close(rootFd)
	pfd, name, err := parentAt(rootFd, rel, false, false)
	if err != nil {
		return "", err
	}
	defer unix.Close(pfd)
	buf := make([]byte, 4096)
	n, err := unix.Readlinkat(pfd, name, buf)
	if err != nil {
		return "", err
	}
	return string(buf[:n]), nil
}

// report turns what was found and done into the Protected list: a protected folder created or
// deleted whole is one item.
func (g *guard) report(ds []diff, errs map[string]error, notes map[string]string, left map[string]bool) []Protected {
	var ps []Protected
	whole := map[string]int{} // protected folders created or deleted whole → index in ps
	for _, d := range ds {
		st := d.c
		var s fstat
		if st != nil {
			s = st.st
		} else {
			s = d.b.st
		}
		pr := d.prot()
		if d.rel != pr.root && (d.change == "created" || d.change == "deleted") {
			if i, ok := whole[pr.root]; ok && ps[i].Change == d.change {
				ps[i].Files++
				if ps[i].Failed == "" && left[d.rel] {
					ps[i].Failed = failure(errs[d.rel])
				}
				continue
			}
		}
		p := Protected{Path: d.rel, Change: d.change, Reason: pr.why}
		if s.isDir() {
			p.Path += "/"
		}
		if n := notes[d.rel]; n != "" {
			p.Change += ": " + n
		}
		if left[d.rel] { // what co could not do on the host, the fixer may have done
			p.Failed = failure(errs[d.rel])
		}
		if d.rel == pr.root && (d.change == "created" || d.change == "deleted") {
			whole[d.rel] = len(ps)
		}
		ps = append(ps, p)
	}
	return ps
}

func (d diff) prot() prot {
	if d.c != nil {
		return d.c.prot
	}
	return d.b.prot
}

func failure(err error) string {
	if err == nil {
		return "it still differs after co tried"
	}
	return err.Error()
}

// ProtectedNote is the text added to a command's output when it changed protected paths: what
// was reverted and why those paths are protected, what could not be, and which folders co
// cannot see into.
func ProtectedNote(ps []Protected) string {
	const maxItems = 12
	var b strings.Builder
	var undone, failed, blind []Protected
	for _, p := range ps {
		switch {
		case p.Change == "unreadable":
			blind = append(blind, p)
		case p.Failed != "":
			failed = append(failed, p)
		default:
			undone = append(undone, p)
		}
	}
	item := func(p Protected) string {
		s := "\n- " + p.Path + " (" + p.Change
		switch {
		case p.Files == 1:
			s += ", with 1 entry in it"
		case p.Files > 1:
			s += fmt.Sprintf(", with %d entries in it", p.Files)
		}
		s += ")"
		if p.Reason != "" {
			s += ": " + p.Reason
		}
		if p.Failed != "" {
			s += " — NOT undone: " + p.Failed
		}
		return s
	}
	list := func(ps []Protected) {
		for i, p := range ps {
			if i == maxItems {
				fmt.Fprintf(&b, "\n- … and %d more", len(ps)-maxItems)
				break
			}
			b.WriteString(item(p))
		}
	}
	if len(undone) > 0 {
		b.WriteString("[co refused and reverted this command's changes to protected files:")
		list(undone)
		b.WriteString("\nShell commands may not change these files; to change one, use write_file or edit_file, which ask the user.]")
	}
	if len(failed) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("[co could not revert this command's changes to protected files; the user must check them:")
		list(failed)
		b.WriteString("]")
	}
	if len(blind) > 0 {
		if b.Len() > 0 {
			b.WriteString("\n")
		}
		b.WriteString("[co cannot read these folders, so it cannot see protected files made in them:")
		for _, p := range blind {
			b.WriteString(" " + p.Path)
		}
		b.WriteString("]")
	}
	return b.String()
}
