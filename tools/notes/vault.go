// Package notes holds the Obsidian tools: search_notes, list_notes and
// read_note, over the vault at obsidian_vault_path, which only read and run
// without asking; and write_note, which creates or replaces a note after
// asking, and records the note as it was in the session's journal, so undo
// restores it (journal.NoteBefore, NoteAfter).
//
// Paths are bounded to the vault the way the file tools are bounded to the
// workspace (tools/internal/pathsafe: os.Root opens, no symlinks out, only
// regular files). A note clipped from the web (clipped.go) is untrusted
// content, with the page as its source; the user's own notes carry no
// origin. Hidden folders (.obsidian, .trash, .git) are not
// searched or listed, and symlinks are not followed when walking.
//
// Speed: the vault is walked on every call (one lstat per note), but a
// note is read again only when its size or modification time changed: the
// lower-cased text and the tags of each note are cached in the Vault, up to
// a memory cap. Cold reads run in parallel. A search of 10,000 notes
// answers in well under 200 ms (see docs/figures.md).
//
// A Vault is safe for concurrent use.
package notes

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/internal/pathsafe"
)

// Limits.
const (
	// MaxNoteBytes: larger notes are skipped by search and list, and
	// refused by read_note.
	MaxNoteBytes = 4 << 20
	// MaxCacheBytes caps the text the cache keeps; beyond it notes are read
	// on every search.
	MaxCacheBytes = 256 << 20
	// DefaultSearchLimit and MaxSearchLimit bound search_notes.
	DefaultSearchLimit = 10
	MaxSearchLimit     = 50
	// DefaultListLimit and MaxListLimit bound list_notes.
	DefaultListLimit = 200
	MaxListLimit     = 2000
	// DefaultReadChars and MaxReadChars bound read_note.
	DefaultReadChars = 50000
	MaxReadChars     = 200000
)

// ConfigHint says how to point co at a vault.
const ConfigHint = "set OBSIDIAN_VAULT_PATH (or obsidian_vault_path in ~/.config/co-cli/settings.json) to your vault's folder"

// Vault is an Obsidian vault: a folder of markdown notes.
type Vault struct {
	dir string

	mu     sync.Mutex
	cache  map[string]*note
	cached int64 // bytes of text in the cache
}

// note is what the cache keeps of one note.
type note struct {
	rel   string
	size  int64
	mod   time.Time
	lower string   // the text, lower-cased; lines match the file's lines
	tags  []string // lower-cased, without '#'
	// clipped: the note was clipped from the web (clipping), from the
	// page from ("" when it names none).
	clipped bool
	from    string
}

// New makes the vault at dir. An empty dir is a vault that is not
// configured: its tools return a Retry that says how to set one.
func New(dir string) *Vault { return &Vault{dir: dir, cache: map[string]*note{}} }

// Dir is the vault's folder.
func (v *Vault) Dir() string { return v.dir }

// Tools are search_notes, list_notes, read_note and write_note over v.
func (v *Vault) Tools() []tools.Tool {
	return []tools.Tool{&SearchNotes{v}, &ListNotes{v}, &ReadNote{v}, &WriteNote{v}}
}

// Warm reads the vault into the cache, so that the first search of the
// session answers as fast as later ones. co runs it in the background when
// the chat starts; a search meanwhile waits for the cache lock, not longer.
func (v *Vault) Warm(ctx context.Context) error {
	r, err := v.open()
	if err != nil {
		return err
	}
	defer r.Close()
	_, err = v.notes(ctx, r)
	return err
}

// open opens the vault for one call.
func (v *Vault) open() (*pathsafe.Root, error) {
	if v.dir == "" {
		return nil, tools.Retryf("no Obsidian vault is configured: %s", ConfigHint)
	}
	r, err := pathsafe.Open(v.dir, "vault")
	if err != nil {
		return nil, tools.Retryf("the Obsidian vault %s cannot be opened (%v): %s", v.dir, errors.Unwrap(err), ConfigHint)
	}
	return r, nil
}

// ref is a note found by the walk.
type ref struct {
	rel  string
	size int64
	mod  time.Time
}

// walk lists the vault's markdown notes, sorted by path.
func walk(ctx context.Context, r *pathsafe.Root) ([]ref, error) {
	var out []ref
	n := 0
	err := fs.WalkDir(r.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if n++; n%512 == 0 && ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			if p == "." {
				return err
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != "." && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || !isNote(p) {
			return nil
		}
		info, err := d.Info()
		if err != nil || info.Size() > MaxNoteBytes {
			return nil
		}
		out = append(out, ref{rel: p, size: info.Size(), mod: info.ModTime()})
		return nil
	})
	sort.Slice(out, func(i, j int) bool { return out[i].rel < out[j].rel })
	return out, err
}

func isNote(p string) bool { return strings.HasSuffix(strings.ToLower(p), ".md") }

// notes returns every note of the vault with its cached text and tags,
// reading only those that changed since the last call.
func (v *Vault) notes(ctx context.Context, r *pathsafe.Root) ([]*note, error) {
	refs, err := walk(ctx, r)
	if err != nil {
		return nil, err
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make([]*note, len(refs))
	var miss []int
	seen := make(map[string]bool, len(refs))
	for i, rf := range refs {
		seen[rf.rel] = true
		if c, ok := v.cache[rf.rel]; ok && c.size == rf.size && c.mod.Equal(rf.mod) {
			out[i] = c
			continue
		}
		miss = append(miss, i)
	}
	for rel, c := range v.cache {
		if !seen[rel] {
			v.cached -= int64(len(c.lower))
			delete(v.cache, rel)
		}
	}
	// Read the changed notes in parallel, a folder at a time (one open of
	// the folder, then one open per note).
	byDir := map[string][]int{}
	var dirs []string
	for _, i := range miss {
		d := path.Dir(refs[i].rel)
		if _, ok := byDir[d]; !ok {
			dirs = append(dirs, d)
		}
		byDir[d] = append(byDir[d], i)
	}
	workers := runtime.GOMAXPROCS(0) * 2
	if workers > len(dirs) {
		workers = len(dirs)
	}
	jobs := make(chan string)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for d := range jobs {
				sub, err := r.Sub(d)
				if err != nil {
					continue
				}
				for _, i := range byDir[d] {
					if ctx.Err() != nil {
						break
					}
					out[i] = load(sub, refs[i], path.Base(refs[i].rel))
				}
				sub.Close()
			}
		}()
	}
	for _, d := range dirs {
		if ctx.Err() != nil {
			break
		}
		jobs <- d
	}
	close(jobs)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	kept := out[:0]
	for _, i := range miss {
		c := out[i]
		if c == nil {
			continue
		}
		if old, ok := v.cache[c.rel]; ok {
			v.cached -= int64(len(old.lower))
			delete(v.cache, c.rel)
		}
		if v.cached+int64(len(c.lower)) <= MaxCacheBytes {
			v.cache[c.rel] = c
			v.cached += int64(len(c.lower))
		}
	}
	for _, c := range out {
		if c != nil {
			kept = append(kept, c)
		}
	}
	return kept, nil
}

// load reads one note (name, in the folder sub); nil when it cannot be
// read (it is skipped).
func load(sub *pathsafe.Root, rf ref, name string) *note {
	b, err := sub.ReadListed(name, MaxNoteBytes)
	if err != nil {
		return nil
	}
	text := string(b)
	n := &note{rel: rf.rel, size: rf.size, mod: rf.mod, lower: strings.ToLower(text), tags: parseTags(text)}
	n.from, n.clipped = clipping(n.rel, text, n.tags)
	return n
}

// title is a note's name as Obsidian shows it: the file name without .md.
func title(rel string) string {
	base := rel[strings.LastIndexByte(rel, '/')+1:]
	return strings.TrimSuffix(strings.TrimSuffix(base, ".md"), ".MD")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return fmt.Sprintf("%d %s", n, one)
	}
	return fmt.Sprintf("%d %s", n, many)
}
