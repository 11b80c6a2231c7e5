// Package startmark records when co reaches the points of its start-up,
// for the start-up profile (scripts/bench-startup-profile.sh): with
// CO_STARTUP_MARKS=FILE in the environment each Mark appends a line
//
//	NAME WALL_UNIX_NS CPU_NS
//
// to FILE: the wall clock, and the CPU time the process has used so far
// (user + system, getrusage). Without it Mark costs one comparison. It
// imports nothing of co's and allocates nothing at init.
package startmark

import (
	"fmt"
	"os"
	"sync"
	"syscall"
	"time"
)

var (
	mu   sync.Mutex
	path = os.Getenv("CO_STARTUP_MARKS")
	seen map[string]bool
)

// Mark records that start-up reached name; only the first Mark of a name
// counts (a view drawn again is not a new phase).
func Mark(name string) {
	if path == "" {
		return
	}
	now := time.Now().UnixNano()
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	cpu := ru.Utime.Nano() + ru.Stime.Nano()
	mu.Lock()
	defer mu.Unlock()
	if seen[name] {
		return
	}
	if seen == nil {
		seen = map[string]bool{}
	}
	seen[name] = true
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return // a developer's knob: never in the user's way
	}
	fmt.Fprintf(f, "%s %d %d\n", name, now, cpu)
	f.Close()
}
