package main

import (
	"os"
	"testing"
)

func TestParseSchedstat(t *testing.T) {
	cpu, slices, err := parseSchedstat("123456789 5000 42\n")
	if err != nil || cpu != 123456789 || slices != 42 {
		t.Fatalf("= %d, %d, %v; want 123456789, 42", cpu, slices, err)
	}
	for _, bad := range []string{"", "1 2", "x 2 3", "1 2 y"} {
		if _, _, err := parseSchedstat(bad); err == nil {
			t.Errorf("parseSchedstat(%q) took it", bad)
		}
	}
}

func TestParseStat(t *testing.T) {
	// A command name with spaces and parentheses: the fields start after
	// the last ')'.
	line := "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 500 0 0 0 17 5 3 2 20 0 8 0 12345 1000000 2000 18446744073709551615\n"
	st, err := parseStat(line)
	if err != nil {
		t.Fatal(err)
	}
	if st.state != 'S' || st.utime != 17 || st.stime != 5 || st.cutime != 3 || st.cstime != 2 {
		t.Fatalf("= %+v; want S, 17, 5, 3, 2", st)
	}
	if _, err := parseStat("4242 (x) S 1 2"); err == nil {
		t.Error("a short line was taken")
	}
	// This process's own line parses, and it is running or sleeping.
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		t.Skip(err)
	}
	if st, err := parseStat(string(b)); err != nil || (st.state != 'R' && st.state != 'S') {
		t.Fatalf("/proc/self/stat: %+v, %v", st, err)
	}
}

func TestParseVmHWM(t *testing.T) {
	status := "Name:\tco\nVmPeak:\t  900000 kB\nVmHWM:\t   48232 kB\nVmRSS:\t   40000 kB\n"
	if v, err := parseVmHWM(status); err != nil || v != 48232 {
		t.Fatalf("= %d, %v; want 48232", v, err)
	}
	if _, err := parseVmHWM("Name:\tco\n"); err == nil {
		t.Error("a status without VmHWM was taken")
	}
}

func TestSummary(t *testing.T) {
	med, lo, hi := summary([]float64{5, 1, 3, 9})
	if med != 4 || lo != 1 || hi != 9 {
		t.Fatalf("= %v, %v, %v; want 4, 1, 9", med, lo, hi)
	}
	if med, _, _ := summary([]float64{3, 1, 2}); med != 2 {
		t.Fatalf("odd count: median %v, want 2", med)
	}
}
