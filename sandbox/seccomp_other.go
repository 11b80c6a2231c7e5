//go:build !linux

package sandbox

// seccompProfile is empty where co is not built for Linux: the engine's default profile applies.
// There the engine runs in a virtual machine (Docker Desktop), whose file sharing makes every file
// of the workspace the desktop user's on the host, so a set-user-ID bit gives nobody rights they
// do not have.
func seccompProfile() (string, error) { return "", nil }
