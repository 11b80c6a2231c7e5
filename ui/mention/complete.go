package mention

import (
	"fmt"
	"path"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"
)

// Index is the workspace's file list for @ completion, built in the
// background on first use (never before the chat's first frame) and built
// again, in the background, when it is older than StaleAfter: the old
// list serves while the new one is made. Safe for concurrent use.
type Index struct {
	src Source
	now func() time.Time

	mu      sync.Mutex
	files   []string
	more    bool
	err     error
	built   time.Time     // when files was listed; zero: never
	running chan struct{} // closed when the running build ends; nil: none
}

// StaleAfter is the age after which Load lists the files again.
const StaleAfter = 30 * time.Second

// NewIndex makes an index over src; nothing is read until Load.
func NewIndex(src Source) *Index { return &Index{src: src, now: time.Now} }

// Files is the last list built; ready is false until one was.
func (x *Index) Files() (files []string, more bool, err error, ready bool) {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.files, x.more, x.err, !x.built.IsZero()
}

// Load starts listing the files in the background when there is no list
// yet or it is stale, and returns a channel closed when that listing ends;
// nil when the list is fresh.
func (x *Index) Load() <-chan struct{} {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.running != nil {
		return x.running
	}
	if !x.built.IsZero() && x.now().Sub(x.built) < StaleAfter {
		return nil
	}
	done := make(chan struct{})
	x.running = done
	go func() {
		var files []string
		var more bool
		var err error
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("listing the workspace's files failed: %v", r)
			}
			x.mu.Lock()
			if err == nil || x.built.IsZero() {
				x.files, x.more, x.err = files, more, err
			}
			x.built, x.running = x.now(), nil
			x.mu.Unlock()
			close(done)
		}()
		files, more, err = x.src.Files()
	}()
	return done
}

// Rank returns at most n of files that match query, best first: the
// characters of query appear in the path in order (case-insensitively),
// and matches that run together, start a path component or a word, or lie
// in the file's name rank higher; then shorter paths. An empty query
// ranks shallow files first. Paths with control characters are left out
// (no mention could attach them).
func Rank(files []string, query string, n int) []string {
	if n <= 0 {
		return nil
	}
	type scored struct {
		p            string
		score, depth int
	}
	better := func(a, b scored) bool {
		if a.score != b.score {
			return a.score > b.score
		}
		if a.depth != b.depth {
			return a.depth < b.depth
		}
		if len(a.p) != len(b.p) {
			return len(a.p) < len(b.p)
		}
		return a.p < b.p
	}
	q := []rune(strings.ToLower(query))
	// The best n so far, best first: a list of a few, so each path costs
	// a score and a comparison or two (no sort of thousands per key).
	top := make([]scored, 0, n)
	for _, f := range files {
		s, ok := score(f, q)
		if !ok {
			continue
		}
		c := scored{f, s, strings.Count(f, "/")}
		if len(top) == n && !better(c, top[n-1]) {
			continue
		}
		if strings.ContainsFunc(f, unicode.IsControl) {
			continue
		}
		i := sort.Search(len(top), func(i int) bool { return better(c, top[i]) })
		if len(top) < n {
			top = append(top, scored{})
		}
		copy(top[i+1:], top[i:len(top)-1])
		top[i] = c
	}
	res := make([]string, len(top))
	for i, s := range top {
		res[i] = s.p
	}
	return res
}

// score scores path p for the lower-case query q: the better of matching
// within the file's name and matching along the whole path.
func score(p string, q []rune) (int, bool) {
	if len(q) == 0 {
		return 0, true
	}
	lp := strings.ToLower(p)
	base := strings.LastIndexByte(lp, '/') + 1
	best, ok := match(lp, base, 0, q)
	if s, ok2 := match(lp, base, base, q); ok2 {
		s += 10 // all of it in the name
		if !ok || s > best {
			best, ok = s, true
		}
	}
	if ok {
		name := lp[base:]
		qs := string(q)
		switch {
		case strings.HasPrefix(name, qs):
			best += 30
		case strings.Contains(name, qs):
			best += 15
		case strings.Contains(lp, qs):
			best += 8
		}
		if name == qs || strings.TrimSuffix(name, path.Ext(name)) == qs {
			best += 20
		}
	}
	return best, ok
}

// match finds q in lp from byte from on, greedily, and scores the match.
func match(lp string, base, from int, q []rune) (int, bool) {
	s, qi, prevEnd := 0, 0, -1
	for i, r := range lp[from:] {
		i += from
		if qi == len(q) {
			break
		}
		if r != q[qi] {
			continue
		}
		s++
		if i == prevEnd {
			s += 5 // runs on from the last match
		}
		if i == 0 || strings.ContainsRune("/_-. ", rune(lp[i-1])) {
			s += 4 // starts a component or a word
		}
		if i >= base {
			s++
		}
		prevEnd = i + utf8.RuneLen(r)
		qi++
	}
	return s, qi == len(q)
}
