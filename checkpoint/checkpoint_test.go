package checkpoint

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// state is a workspace as a test compares it: path → kind, mode, owner,
// content or link target.
func state(t testing.TB, ws string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == ws {
			return nil
		}
		rel, _ := filepath.Rel(ws, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		e := entryOf(fi)
		desc := fi.Mode().String() + " " + strconv.Itoa(e.UID) + ":" + strconv.Itoa(e.GID)
		switch {
		case fi.Mode()&fs.ModeSymlink != 0:
			l, _ := os.Readlink(p)
			desc += " -> " + l
		case fi.Mode().IsRegular():
			b, _ := os.ReadFile(p)
			desc += " " + string(b)
		}
		out[rel] = desc
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func diffStates(t *testing.T, want, got map[string]string) {
	t.Helper()
	for p, w := range want {
		if g, ok := got[p]; !ok {
			t.Errorf("%s missing after restore, want %q", p, w)
		} else if g != w {
			t.Errorf("%s = %q, want %q", p, g, w)
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			t.Errorf("%s left after restore: %q", p, g)
		}
	}
}

func write(t testing.TB, p, s string, mode fs.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(s), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func must(t testing.TB, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func newStore(t testing.TB, opts Options) (*Store, string) {
	t.Helper()
	ws := filepath.Join(t.TempDir(), "ws")
	must(t, os.Mkdir(ws, 0o755))
	s, err := Open(filepath.Join(t.TempDir(), "data", "checkpoints"), ws, opts)
	must(t, err)
	return s, ws
}

// seed is a workspace with files, folders, a symlink, an executable and
// a git repository's folder.
func seed(t *testing.T, ws string) {
	write(t, filepath.Join(ws, "a.txt"), "alpha\n", 0o644)
	write(t, filepath.Join(ws, "run.sh"), "#!/bin/sh\necho hi\n", 0o755)
	write(t, filepath.Join(ws, "src/main.go"), "package main\n", 0o644)
	write(t, filepath.Join(ws, "src/deep/x.txt"), "x\n", 0o600)
	write(t, filepath.Join(ws, "gone/inner/y.txt"), "y\n", 0o640)
	must(t, os.Chmod(filepath.Join(ws, "gone/inner"), 0o750))
	must(t, os.Symlink("a.txt", filepath.Join(ws, "link")))
	write(t, filepath.Join(ws, ".git/HEAD"), "ref: refs/heads/main\n", 0o644)
}

func TestATurnIsTakenBackExactly(t *testing.T) {
	s, ws := newStore(t, Options{})
	seed(t, ws)
	before := state(t, ws)
	must(t, s.Begin("t1"))

	write(t, filepath.Join(ws, "a.txt"), "alpha edited\n", 0o644)              // edit
	write(t, filepath.Join(ws, "new/dir/created.txt"), "new\n", 0o600)         // create with folders
	must(t, os.Remove(filepath.Join(ws, "src/main.go")))                       // delete
	must(t, os.RemoveAll(filepath.Join(ws, "gone")))                           // delete folders
	must(t, os.Chmod(filepath.Join(ws, "run.sh"), 0o644))                      // chmod
	must(t, os.Chmod(filepath.Join(ws, "src/deep"), 0o700))                    // a folder's mode
	must(t, os.Remove(filepath.Join(ws, "link")))                              // a symlink retargeted
	must(t, os.Symlink("src/deep/x.txt", filepath.Join(ws, "link")))           //
	must(t, os.Symlink("../outside", filepath.Join(ws, "newlink")))            // a symlink created
	must(t, os.Remove(filepath.Join(ws, "src/deep/x.txt")))                    // a file replaced by a folder
	write(t, filepath.Join(ws, "src/deep/x.txt/inside"), "i\n", 0o644)         //
	write(t, filepath.Join(ws, ".git/HEAD"), "ref: refs/heads/other\n", 0o644) // not checkpointed
	sum, err := s.End("t1")
	must(t, err)
	if !sum.Stored || sum.Created == 0 || sum.Deleted == 0 || sum.Modified == 0 || sum.Attrs == 0 {
		t.Fatalf("End = %+v", sum)
	}

	rep, err := s.Restore("t1", false)
	must(t, err)
	if len(rep.Conflicts) != 0 || len(rep.NotRestorable) != 0 {
		t.Fatalf("Restore = %+v", rep)
	}
	if !slices.Contains(rep.Removed, "new/dir/created.txt") || !slices.Contains(rep.Restored, "a.txt") || !slices.Contains(rep.Restored, "gone/inner/y.txt") {
		t.Errorf("report %+v", rep)
	}
	after := state(t, ws)
	// .git is the user's: the turn's change there stays.
	if !strings.HasSuffix(after[".git/HEAD"], "refs/heads/other\n") {
		t.Errorf(".git/HEAD was touched: %q", after[".git/HEAD"])
	}
	delete(before, ".git/HEAD")
	delete(after, ".git/HEAD")
	diffStates(t, before, after)

	again, err := s.Restore("t1", false)
	must(t, err)
	if !slices.Equal(again.AlreadyUndone, []string{"t1"}) || len(again.Restored) != 0 {
		t.Errorf("a second Restore: %+v", again)
	}
}

func TestAConflictIsKeptAndNamedUnlessForced(t *testing.T) {
	s, ws := newStore(t, Options{})
	write(t, filepath.Join(ws, "notes.md"), "one\n", 0o644)
	write(t, filepath.Join(ws, "other.md"), "other\n", 0o644)
	must(t, s.Begin("t1"))
	write(t, filepath.Join(ws, "notes.md"), "two\n", 0o644)
	write(t, filepath.Join(ws, "other.md"), "other, edited\n", 0o644)
	_, err := s.End("t1")
	must(t, err)
	// An editor changes notes.md after the turn.
	write(t, filepath.Join(ws, "notes.md"), "the user's\n", 0o644)

	rep, err := s.Restore("t1", false)
	must(t, err)
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].Path != "notes.md" || !strings.Contains(rep.Conflicts[0].Reason, "after the turn") {
		t.Fatalf("conflicts %+v", rep.Conflicts)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.md")); string(b) != "the user's\n" {
		t.Errorf("notes.md overwritten: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "other.md")); string(b) != "other\n" {
		t.Errorf("other.md not restored: %q", b)
	}
	if r, _, _ := s.Turn("t1"); r.Undone {
		t.Error("a turn with a conflict left was marked undone")
	}

	rep, err = s.Restore("t1", true)
	must(t, err)
	if len(rep.Conflicts) != 0 || !slices.Equal(rep.Restored, []string{"notes.md"}) {
		t.Errorf("forced: %+v", rep)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "notes.md")); string(b) != "one\n" {
		t.Errorf("force did not restore notes.md: %q", b)
	}
}

func TestAnUnchangedTurnStoresNothing(t *testing.T) {
	s, ws := newStore(t, Options{})
	seed(t, ws)
	must(t, s.Begin("warm"))
	_, err := s.End("warm")
	must(t, err)
	size, err := s.Size()
	must(t, err)
	objs, _ := s.objects()

	must(t, s.Begin("t1"))
	sum, err := s.End("t1")
	must(t, err)
	if sum.Stored {
		t.Errorf("End = %+v", sum)
	}
	if _, ok, _ := s.Turn("t1"); ok {
		t.Error("a record was written")
	}
	size2, _ := s.Size()
	objs2, _ := s.objects()
	if size2 != size || len(objs2) != len(objs) {
		t.Errorf("store grew from %d to %d bytes, %d to %d objects", size, size2, len(objs), len(objs2))
	}
	rep, err := s.Restore("t1", false)
	must(t, err)
	if !slices.Equal(rep.Missing, []string{"t1"}) {
		t.Errorf("Restore of an empty turn: %+v", rep)
	}
}

func TestABigFileIsNotRestorableAndSaidSo(t *testing.T) {
	s, ws := newStore(t, Options{MaxFileSize: 1 << 10})
	big := bytes.Repeat([]byte("b"), 4<<10)
	must(t, os.WriteFile(filepath.Join(ws, "big.bin"), big, 0o644))
	write(t, filepath.Join(ws, "small.txt"), "s\n", 0o644)
	must(t, s.Begin("t1"))
	must(t, os.WriteFile(filepath.Join(ws, "big.bin"), bytes.Repeat([]byte("c"), 4<<10), 0o644))
	write(t, filepath.Join(ws, "small.txt"), "t\n", 0o644)
	must(t, os.WriteFile(filepath.Join(ws, "made.bin"), big, 0o644))
	sum, err := s.End("t1")
	must(t, err)
	if len(sum.NotRestorable) != 1 || sum.NotRestorable[0].Path != "big.bin" || !strings.Contains(sum.NotRestorable[0].Reason, "larger than") {
		t.Fatalf("End = %+v", sum)
	}
	rep, err := s.Restore("t1", false)
	must(t, err)
	if len(rep.NotRestorable) != 1 || rep.NotRestorable[0].Path != "big.bin" {
		t.Errorf("Restore = %+v", rep)
	}
	if !slices.Equal(rep.Removed, []string{"made.bin"}) || !slices.Equal(rep.Restored, []string{"small.txt"}) {
		t.Errorf("Restore = %+v", rep)
	}
}

// A file rewritten with the same size and mtime (in one timestamp tick)
// is still found changed.
func TestASameSizeSameMtimeRewriteIsFound(t *testing.T) {
	s, ws := newStore(t, Options{})
	p := filepath.Join(ws, "f.txt")
	write(t, p, "aaaa", 0o644)
	tick := time.Now().Truncate(time.Second)
	must(t, os.Chtimes(p, tick, tick))
	must(t, s.Begin("t1"))
	write(t, p, "bbbb", 0o644)
	must(t, os.Chtimes(p, tick, tick))
	sum, err := s.End("t1")
	must(t, err)
	if sum.Modified != 1 {
		t.Fatalf("End = %+v", sum)
	}
	rep, err := s.Restore("t1", false)
	must(t, err)
	if b, _ := os.ReadFile(p); string(b) != "aaaa" || len(rep.Conflicts) != 0 {
		t.Errorf("restored %q, %+v", b, rep)
	}
}

// The racy rule itself: an entry whose stat is unchanged is hashed again
// when it was modified within racyWindow of the scan that saw it, and
// trusted otherwise (ctime cannot be set by a test, so the rule is shown
// on the entries).
func TestRacyEntriesAreHashedAgain(t *testing.T) {
	s, ws := newStore(t, Options{})
	old := filepath.Join(ws, "old.txt")
	recent := filepath.Join(ws, "recent.txt")
	write(t, old, "old", 0o644)
	write(t, recent, "new", 0o644)
	long := time.Now().Add(-time.Hour)
	must(t, os.Chtimes(old, long, long))
	// The scans start just after recent.txt's ctime, however long the
	// machine took to get here: racy by the rule, not by the test's speed.
	var st syscall.Stat_t
	must(t, syscall.Stat(recent, &st))
	s.scanClock = func() time.Time { return time.Unix(0, ctime(&st)).Add(time.Millisecond) }
	sc, err := s.scan(&scan{entries: map[string]*Entry{}})
	must(t, err)
	if sc.entries["recent.txt"].Racy != true {
		t.Error("a file whose ctime is now is not racy")
	}
	// Both entries keep their stat; give them a wrong hash to see which is trusted.
	sc.entries["old.txt"].Racy = false
	sc.entries["old.txt"].Hash = "stale"
	sc.entries["recent.txt"].Hash = "stale"
	next, err := s.scan(sc)
	must(t, err)
	if next.entries["old.txt"].Hash != "stale" {
		t.Error("an entry neither changed nor racy was hashed again")
	}
	if next.entries["recent.txt"].Hash == "stale" {
		t.Error("a racy entry was trusted")
	}
}

func TestRewindTakesBackSeveralTurnsNewestFirst(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s, ws := newStore(t, Options{Now: func() time.Time { now = now.Add(time.Second); return now }})
	p := filepath.Join(ws, "f.txt")
	write(t, p, "v0", 0o644)
	for i, v := range []string{"v1", "v2", "v3"} {
		id := "t" + strconv.Itoa(i+1)
		must(t, s.Begin(id))
		write(t, p, v, 0o644)
		if v == "v2" {
			write(t, filepath.Join(ws, "extra.txt"), "e", 0o644)
		}
		_, err := s.End(id)
		must(t, err)
	}
	// Restoring t1 alone is a conflict: t2 and t3 changed f.txt after it.
	rep, err := s.Restore("t1", false)
	must(t, err)
	if len(rep.Conflicts) != 1 {
		t.Fatalf("t1 alone: %+v", rep)
	}
	rep, err = s.Rewind([]string{"t1", "t3", "t2"}, false)
	must(t, err)
	if len(rep.Conflicts) != 0 || !slices.Equal(rep.Turns, []string{"t3", "t2", "t1"}) {
		t.Fatalf("rewind: %+v", rep)
	}
	if b, _ := os.ReadFile(p); string(b) != "v0" {
		t.Errorf("f.txt = %q", b)
	}
	if _, err := os.Lstat(filepath.Join(ws, "extra.txt")); !os.IsNotExist(err) {
		t.Errorf("extra.txt still there: %v", err)
	}
}

func TestATurnByAShellCommandIsTakenBack(t *testing.T) {
	s, ws := newStore(t, Options{})
	seed(t, ws)
	before := state(t, ws)
	must(t, s.Begin("t1"))
	cmd := exec.Command("sh", "-c", `set -e
sed -i 's/alpha/omega/' a.txt
mkdir -p build/out && printf 'bin' > build/out/app && chmod 700 build/out/app
rm -r gone src/main.go
chmod 600 run.sh
ln -sf run.sh link`)
	cmd.Dir = ws
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	_, err := s.End("t1")
	must(t, err)
	rep, err := s.Restore("t1", false)
	must(t, err)
	if len(rep.Conflicts)+len(rep.NotRestorable) != 0 {
		t.Fatalf("%+v", rep)
	}
	diffStates(t, before, state(t, ws))
}

func TestOpenRefusesAStoreInsideTheWorkspace(t *testing.T) {
	ws := t.TempDir()
	for _, dir := range []string{filepath.Join(ws, ".co", "checkpoints"), ws} {
		if _, err := Open(dir, ws, Options{}); err == nil || !strings.Contains(err.Error(), "outside the workspace") {
			t.Errorf("Open(%s) = %v", dir, err)
		}
	}
	// Through a symlink to the workspace too.
	link := filepath.Join(t.TempDir(), "ln")
	must(t, os.Symlink(ws, link))
	if _, err := Open(filepath.Join(link, "cp"), ws, Options{}); err == nil {
		t.Error("a store inside the workspace through a link was accepted")
	}
}

func TestATreeOverTheCapIsRefusedClearly(t *testing.T) {
	s, ws := newStore(t, Options{MaxEntries: 5})
	for i := range 10 {
		write(t, filepath.Join(ws, "f"+strconv.Itoa(i)), "x", 0o644)
	}
	err := s.Begin("t1")
	if tl, ok := err.(*TooLargeError); !ok || tl.Max != 5 || !strings.Contains(err.Error(), "not checkpointed") {
		t.Fatalf("Begin = %v", err)
	}
	if _, err := s.End("t1"); err == nil {
		t.Error("End after a refused Begin succeeded")
	}
}

func TestAHalfWrittenRecordIsNotTakenForOne(t *testing.T) {
	s, ws := newStore(t, Options{})
	write(t, filepath.Join(ws, "f"), "1", 0o644)
	must(t, s.Begin("t1"))
	write(t, filepath.Join(ws, "f"), "2", 0o644)
	_, err := s.End("t1")
	must(t, err)
	// A write cut short leaves a temporary file beside the records.
	must(t, os.WriteFile(filepath.Join(s.dir, "turns", ".tmp-123"), []byte(`{"turn":"t2","chan`), 0o600))
	recs, err := s.Turns()
	must(t, err)
	if len(recs) != 1 || recs[0].Turn != "t1" {
		t.Errorf("Turns = %+v", recs)
	}
	// A damaged kept copy is reported, never restored wrong.
	rec, _, _ := s.Turn("t1")
	obj := s.objectPath(rec.Changes[0].Before.Hash)
	must(t, os.WriteFile(obj, []byte("garbage"), 0o600))
	rep, err := s.Restore("t1", false)
	must(t, err)
	if len(rep.NotRestorable) != 1 || !strings.Contains(rep.NotRestorable[0].Reason, "damaged") {
		t.Errorf("%+v", rep)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "f")); string(b) != "2" {
		t.Errorf("f = %q", b)
	}
}

func TestPruneKeepsByRuleAndDropsUnreferencedContent(t *testing.T) {
	now := time.Unix(1_800_000_000, 0)
	s, ws := newStore(t, Options{Now: func() time.Time { return now }})
	p := filepath.Join(ws, "f.txt")
	write(t, p, "v0", 0o644)
	for i := range 4 {
		now = now.Add(24 * time.Hour)
		id := "t" + strconv.Itoa(i)
		must(t, s.Begin(id))
		write(t, p, strings.Repeat("v", i+2), 0o644)
		_, err := s.End(id)
		must(t, err)
	}
	before, _ := s.Size()
	got, err := s.Prune(Rule{MaxAge: 60 * time.Hour, KeepTurns: 2}, now)
	must(t, err)
	if !slices.Equal(got.Turns, []string{"t0", "t1"}) || got.Objects != 2 {
		t.Fatalf("Prune = %+v", got)
	}
	after, _ := s.Size()
	if after >= before {
		t.Errorf("Size %d then %d", before, after)
	}
	// The remaining turns restore.
	rep, err := s.Rewind([]string{"t2", "t3"}, false)
	must(t, err)
	if b, _ := os.ReadFile(p); string(b) != "vvv" || len(rep.Conflicts)+len(rep.NotRestorable) != 0 {
		t.Errorf("f.txt = %q, %+v", b, rep)
	}
	// MaxBytes: the turns' own content over 1 byte drops them all; the
	// baseline (the last scan's content) stays.
	got, err = s.Prune(Rule{MaxBytes: 1}, now)
	must(t, err)
	if len(got.Turns) != 2 {
		t.Errorf("Prune by bytes = %+v", got)
	}
	objs, _ := s.objects()
	if len(objs) != 1 {
		t.Errorf("%d objects left, want the baseline's", len(objs))
	}
}

// The index is a cache that outlives the run: a new Store on the same
// folder trusts what the last one hashed, and still sees what changed.
func TestTheIndexSurvivesARestart(t *testing.T) {
	s, ws := newStore(t, Options{})
	seed(t, ws)
	must(t, s.Begin("t1"))
	write(t, filepath.Join(ws, "a.txt"), "edited", 0o644)
	_, err := s.End("t1")
	must(t, err)

	s2, err := Open(s.dir, ws, Options{})
	must(t, err)
	loaded := s2.loadIndex()
	if len(loaded.entries) != len(s.index.entries) || len(loaded.entries) < 8 {
		t.Fatalf("index of %d entries loaded, %d saved", len(loaded.entries), len(s.index.entries))
	}
	for p, e := range s.index.entries {
		if got := loaded.entries[p]; got == nil || *got != *e {
			t.Errorf("%s: loaded %+v, saved %+v", p, got, e)
		}
	}
	must(t, s2.Begin("t2"))
	must(t, os.Remove(filepath.Join(ws, "a.txt")))
	sum, err := s2.End("t2")
	must(t, err)
	if sum.Deleted != 1 {
		t.Fatalf("End = %+v", sum)
	}
	rep, err := s2.Restore("t2", false)
	must(t, err)
	if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "edited" || len(rep.Restored) != 1 {
		t.Errorf("a.txt = %q, %+v", b, rep)
	}
	// A damaged index is ignored: everything is hashed again.
	must(t, os.WriteFile(filepath.Join(s.dir, "index"), []byte(indexMagic+"\xff"), 0o600))
	if n := len(s2.loadIndex().entries); n != 0 {
		t.Errorf("a damaged index gave %d entries", n)
	}
}

// A forced restore never follows a link put where a file was: the file
// comes back in the link's place and the link's target is untouched.
func TestAForcedRestoreDoesNotFollowALink(t *testing.T) {
	s, ws := newStore(t, Options{})
	outside := filepath.Join(t.TempDir(), "secret")
	write(t, outside, "outside", 0o600)
	p := filepath.Join(ws, "run.sh")
	write(t, p, "#!/bin/sh\n", 0o755)
	must(t, s.Begin("t1"))
	must(t, os.Chmod(p, 0o644))
	_, err := s.End("t1")
	must(t, err)
	must(t, os.Remove(p))
	must(t, os.Symlink(outside, p))

	rep, err := s.Restore("t1", false)
	must(t, err)
	if len(rep.Conflicts) != 1 {
		t.Fatalf("%+v", rep)
	}
	_, err = s.Restore("t1", true)
	must(t, err)
	if fi, _ := os.Stat(outside); fi.Mode().Perm() != 0o600 {
		t.Errorf("the link's target became %v", fi.Mode())
	}
	if fi, _ := os.Lstat(p); !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o755 {
		t.Errorf("run.sh is %v", fi.Mode())
	}
}

// A folder the turn made that now holds a file made after the turn is
// kept with that file, and named.
func TestAFolderWithNewerFilesIsKept(t *testing.T) {
	s, ws := newStore(t, Options{})
	must(t, s.Begin("t1"))
	write(t, filepath.Join(ws, "out/gen.txt"), "generated", 0o644)
	_, err := s.End("t1")
	must(t, err)
	write(t, filepath.Join(ws, "out/mine.txt"), "the user's", 0o644)

	rep, err := s.Restore("t1", false)
	must(t, err)
	if len(rep.Conflicts) != 1 || rep.Conflicts[0].Path != "out" || !slices.Equal(rep.Removed, []string{"out/gen.txt"}) {
		t.Fatalf("%+v", rep)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "out/mine.txt")); string(b) != "the user's" {
		t.Errorf("mine.txt = %q", b)
	}
}

// Changes names what each step of a turn changed: since Begin, then
// since the last Changes, whoever changed the files.
func TestChangesAreWhatChangedSinceTheLastAsk(t *testing.T) {
	s, ws := newStore(t, Options{})
	write(t, filepath.Join(ws, "a.txt"), "a", 0o644)
	write(t, filepath.Join(ws, "b.txt"), "b", 0o644)
	if err := s.Begin("t1"); err != nil {
		t.Fatal(err)
	}
	paths := func(cs []Change) []string {
		var out []string
		for _, c := range cs {
			out = append(out, c.Path+" "+string(c.Kind))
		}
		return out
	}
	write(t, filepath.Join(ws, "a.txt"), "a changed", 0o644)
	write(t, filepath.Join(ws, "sub", "c.txt"), "c", 0o644)
	cs, err := s.Changes("t1")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := paths(cs), []string{"a.txt modified", "sub created", "sub/c.txt created"}; !slices.Equal(got, want) {
		t.Fatalf("first Changes %v, want %v", got, want)
	}
	if err := os.Remove(filepath.Join(ws, "b.txt")); err != nil {
		t.Fatal(err)
	}
	cs, err = s.Changes("t1")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := paths(cs), []string{"b.txt deleted"}; !slices.Equal(got, want) {
		t.Fatalf("second Changes %v, want only what changed since the first: %v", got, want)
	}
	sum, err := s.End("t1")
	if err != nil {
		t.Fatal(err)
	}
	if sum.Created != 2 || sum.Modified != 1 || sum.Deleted != 1 {
		t.Fatalf("End %+v: the turn's record must still hold everything since Begin", sum)
	}
	if _, err := s.Changes("t1"); err == nil {
		t.Fatal("Changes of an ended turn: want an error")
	}
}
