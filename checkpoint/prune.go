package checkpoint

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// Rule is what Prune keeps: a turn's record goes when it is older than
// MaxAge, when more than KeepTurns newer ones exist, or, oldest first, while
// the content only turns refer to exceeds MaxBytes. Zero fields do not
// limit. The copy of the workspace's current files (the baseline) is never
// pruned: the next turn needs it.
type Rule struct {
	MaxAge    time.Duration
	KeepTurns int
	MaxBytes  int64
}

// DefaultRule keeps 30 days, at most 500 turns and 1 GiB of the turns'
// own content.
var DefaultRule = Rule{MaxAge: 30 * 24 * time.Hour, KeepTurns: 500, MaxBytes: 1 << 30}

// Pruned is what Prune removed.
type Pruned struct {
	Turns   []string
	Objects int
	Bytes   int64
}

// Prune removes turn records by rule (now is the time ages count from),
// then every stored content nothing refers to.
func (s *Store) Prune(rule Rule, now time.Time) (Pruned, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out Pruned
	recs, err := s.Turns()
	if err != nil {
		return out, err
	}
	objs, err := s.objects()
	if err != nil {
		return out, err
	}
	if s.index == nil {
		s.index = s.loadIndex()
	}
	base := map[string]bool{}
	for _, e := range s.index.entries {
		if e.Stored {
			base[e.Hash] = true
		}
	}
	for _, sc := range s.begins {
		for _, e := range sc.entries {
			if e.Stored {
				base[e.Hash] = true
			}
		}
	}
	refs := map[string]int{} // hash → turns referring to it
	for _, r := range recs {
		for h := range turnHashes(r) {
			refs[h]++
		}
	}
	var turnBytes int64
	for h := range refs {
		if !base[h] {
			turnBytes += objs[h]
		}
	}
	drop := func(r *Record) error {
		if err := os.Remove(s.recordPath(r.Turn)); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("checkpoint: %w", err)
		}
		out.Turns = append(out.Turns, r.Turn)
		for h := range turnHashes(r) {
			if refs[h]--; refs[h] == 0 && !base[h] {
				turnBytes -= objs[h]
			}
		}
		return nil
	}
	for i, r := range recs {
		old := rule.MaxAge > 0 && now.Sub(r.Ended) > rule.MaxAge
		many := rule.KeepTurns > 0 && len(recs)-i > rule.KeepTurns
		big := rule.MaxBytes > 0 && turnBytes > rule.MaxBytes
		if !old && !many && !big {
			break
		}
		if err := drop(r); err != nil {
			return out, err
		}
	}
	for h, size := range objs {
		if base[h] || refs[h] > 0 {
			continue
		}
		if err := os.Remove(s.objectPath(h)); err == nil {
			out.Objects++
			out.Bytes += size
		}
	}
	return out, nil
}

func turnHashes(r *Record) map[string]bool {
	hs := map[string]bool{}
	for _, c := range r.Changes {
		for _, e := range []*Entry{c.Before, c.After} {
			if e != nil && e.Stored {
				hs[e.Hash] = true
			}
		}
	}
	return hs
}

// objects are the stored contents: hash → bytes on disk.
func (s *Store) objects() (map[string]int64, error) {
	out := map[string]int64{}
	root := filepath.Join(s.dir, "objects")
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), ".tmp-") {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		h := strings.ReplaceAll(filepath.ToSlash(rel), "/", "")
		if len(h) != 64 {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			out[h] = fi.Size()
		}
		return nil
	})
	return out, err
}

// Size is the room the store takes on disk (blocks, folders included):
// the baseline, the turns' content and records, the index.
func (s *Store) Size() (int64, error) {
	var n int64
	err := filepath.WalkDir(s.dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if fi, err := d.Info(); err == nil {
			n += diskSize(fi)
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("checkpoint: %w", err)
	}
	return n, nil
}
