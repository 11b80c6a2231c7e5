package sandbox

import (
	"encoding/json"
	"maps"
	"slices"
	"sync"

	"github.com/moby/profiles/seccomp"
	"github.com/opencontainers/runtime-spec/specs-go"
)

// Mode bits a command may not give a file in the workspace: S_ISUID and S_ISGID. A set-user-ID
// binary left in the workspace runs, on the host, with its owner's rights — root's when the
// workspace is root's — for whoever runs it there.
const setidBits = 0o6000

// Linux open flags (the same on x86-64, arm64, s390x and riscv64; co does not build the sandbox
// for MIPS, whose O_CREAT differs): a mode is only used with O_CREAT or O_TMPFILE.
const (
	oCreat   = 0o100
	oTmpfile = 0o20000000 // __O_TMPFILE, without the O_DIRECTORY that O_TMPFILE adds
)

// seccompProfile is Docker's default seccomp profile (the Go value the engine ships) with one
// change: the calls that set a file's mode — chmod, fchmod, fchmodat, fchmodat2, and the creating
// calls open, openat, creat, mknod and mknodat — are allowed only without S_ISUID and S_ISGID in
// the mode, and openat2 (whose mode the filter cannot see) reports ENOSYS, so that programs fall
// back to openat. A refused call fails with EPERM ("Operation not permitted"), the profile's
// default. mkdir cannot set either bit (the kernel ignores them), and a directory that inherits
// S_ISGID from its parent grants nobody anything.
//
// Blocking the bits where they are made, rather than clearing them after each command, leaves no
// moment in which a set-user-ID file exists on the host, needs no walk of the workspace after each
// command (finding a chmod means a stat of every file: ~75 ms for 10,000 files on the test
// machine) and covers what a command leaves running in the background too.
var seccompProfile = sync.OnceValues(func() (string, error) {
	p := seccomp.DefaultProfile()
	guarded := map[string]specs.LinuxSeccompArg{
		"chmod":     modeArg(1),
		"fchmod":    modeArg(1),
		"fchmodat":  modeArg(2),
		"fchmodat2": modeArg(2), // kernel 6.6; an engine whose libseccomp does not know it skips the rule
		"creat":     modeArg(1),
		"mknod":     modeArg(1),
		"mknodat":   modeArg(2),
	}
	drop := []string{"open", "openat", "openat2"}
	for n := range guarded {
		drop = append(drop, n)
	}
	for _, s := range p.Syscalls {
		s.Names = slices.DeleteFunc(s.Names, func(n string) bool { return slices.Contains(drop, n) })
	}
	p.Syscalls = slices.DeleteFunc(p.Syscalls, func(s *seccomp.Syscall) bool { return len(s.Names) == 0 }) // the default profile names calls in Names only (Name is deprecated, never set)
	allow := func(name string, args ...specs.LinuxSeccompArg) {
		p.Syscalls = append(p.Syscalls, &seccomp.Syscall{LinuxSyscall: specs.LinuxSyscall{
			Names: []string{name}, Action: specs.ActAllow, Args: args,
		}})
	}
	for _, n := range slices.Sorted(maps.Keys(guarded)) {
		allow(n, guarded[n])
	}
	// open(path, flags, mode) and openat(dirfd, path, flags, mode): allowed when the flags
	// create nothing (the mode register then holds whatever the caller left in it), or when the
	// mode has neither bit. Rules for one call are alternatives.
	creating := func(i uint) specs.LinuxSeccompArg {
		return specs.LinuxSeccompArg{Index: i, Value: oCreat | oTmpfile, ValueTwo: 0, Op: specs.OpMaskedEqual}
	}
	allow("open", creating(1))
	allow("open", modeArg(2))
	allow("openat", creating(2))
	allow("openat", modeArg(3))
	nosys := uint(38) // ENOSYS
	p.Syscalls = append(p.Syscalls, &seccomp.Syscall{LinuxSyscall: specs.LinuxSyscall{
		Names: []string{"openat2"}, Action: specs.ActErrno, ErrnoRet: &nosys,
	}})
	b, err := json.Marshal(p)
	return string(b), err
})

// modeArg matches a call whose argument i, a file mode, has neither S_ISUID nor S_ISGID.
func modeArg(i uint) specs.LinuxSeccompArg {
	return specs.LinuxSeccompArg{Index: i, Value: setidBits, ValueTwo: 0, Op: specs.OpMaskedEqual}
}
