package vt

import (
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestReplay feeds a recorded session (BENCHTUI_REPLAY, its first
// BENCHTUI_BYTES bytes) and prints the screen, to compare with tmux.
func TestReplay(t *testing.T) {
	p := os.Getenv("BENCHTUI_REPLAY")
	if p == "" {
		t.Skip("set BENCHTUI_REPLAY")
	}
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if n, err := strconv.Atoi(os.Getenv("BENCHTUI_BYTES")); err == nil && n < len(b) {
		b = b[:n]
	}
	s := New(120, 40)
	for len(b) > 0 {
		k := min(len(b), 997)
		s.Write(b[:k])
		b = b[k:]
	}
	os.WriteFile(os.Getenv("BENCHTUI_OUT"), []byte(s.Text()), 0o644)
}

func TestScreen(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // the first lines
	}{
		{"text and wrap", "hello\r\nworld", []string{"hello", "world"}},
		{"cursor position and erase", "aaaaa\x1b[1;3Hb\x1b[K", []string{"aab"}},
		{"erase characters", "abcdef\x1b[1;2H\x1b[2X", []string{"a  def"}},
		{"repeat", "x\x1b[3b", []string{"xxxx"}},
		{"scroll region up", "1\r\n2\r\n3\x1b[1;2r\x1b[2;1H\n\x1b[r", []string{"2", "", "3"}},
		{"reverse index", "1\r\n2\x1b[1;1H\x1bM", []string{"", "1", "2"}},
		{"wide characters", "日本x", []string{"日本x"}},
		{"alternate screen", "main\x1b[?1049halt\x1b[?1049l", []string{"main"}},
		{"split sequence", "ab\x1b[1;1", []string{"ab"}},
		{"insert and delete lines", "1\r\n2\r\n3\x1b[2;1H\x1b[L", []string{"1", "", "2"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := New(10, 4)
			s.Write([]byte(tt.in))
			lines := strings.Split(s.Text(), "\n")
			for i, w := range tt.want {
				if got := strings.TrimRight(lines[i], " "); got != w {
					t.Fatalf("line %d = %q, want %q (screen %q)", i, got, w, s.Text())
				}
			}
		})
	}
	// A sequence cut across two writes is applied once it is complete.
	s := New(10, 2)
	s.Write([]byte("ab\x1b[1;"))
	s.Write([]byte("1Hz"))
	if got := strings.Split(s.Text(), "\n")[0]; strings.TrimRight(got, " ") != "zb" {
		t.Fatalf("split CUP: %q", got)
	}
}
