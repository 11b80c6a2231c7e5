package tui

import (
	"bufio"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// maxHistory is how many inputs the history keeps.
const maxHistory = 1000

// History is the input history, persisted one entry per line in a file
// (history.txt in the data dir). Newlines and backslashes inside an entry
// are escaped as \n and \\. The file is read once at start and appended
// to from a tea.Cmd, never from Update.
type History struct {
	path    string
	entries []string
	mu      *sync.Mutex // serialises appends from commands
}

// LoadHistory reads the history at path ("" keeps it in memory only). A
// missing file is an empty history.
func LoadHistory(path string) (*History, error) {
	h := &History{path: path, mu: &sync.Mutex{}}
	if path == "" {
		return h, nil
	}
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return h, nil
	}
	if err != nil {
		return h, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for sc.Scan() {
		if line := sc.Text(); line != "" {
			h.entries = append(h.entries, unescapeHistory(line))
		}
	}
	if len(h.entries) > maxHistory {
		h.entries = h.entries[len(h.entries)-maxHistory:]
	}
	return h, sc.Err()
}

// Len is the number of entries.
func (h *History) Len() int { return len(h.entries) }

// At returns entry i (0 is the oldest).
func (h *History) At(i int) string { return h.entries[i] }

// Add records an entry in memory and returns a function that appends it
// to the file (run it in a tea.Cmd). Repeating the last entry is a no-op.
func (h *History) Add(s string) func() error {
	if strings.TrimSpace(s) == "" || len(h.entries) > 0 && h.entries[len(h.entries)-1] == s {
		return nil
	}
	h.entries = append(h.entries, s)
	if len(h.entries) > maxHistory {
		h.entries = h.entries[len(h.entries)-maxHistory:]
	}
	if h.path == "" {
		return nil
	}
	path, line, mu := h.path, escapeHistory(s)+"\n", h.mu
	return func() error {
		mu.Lock()
		defer mu.Unlock()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			return err
		}
		f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err != nil {
			return err
		}
		_, err = f.WriteString(line)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		return err
	}
}

func escapeHistory(s string) string {
	return strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", "").Replace(s)
}

func unescapeHistory(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case 'n':
				b.WriteByte('\n')
				i++
				continue
			case '\\':
				b.WriteByte('\\')
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
