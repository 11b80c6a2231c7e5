// Package dbustest starts a real session bus (dbus-daemon --session) for a
// test, and a desktop Notifications server on it that records what it is
// asked to show.
package dbustest

import (
	"bufio"
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"

	"github.com/co-cli/co/lib/testneeds"
)

// Bus is a session bus of the test's own.
type Bus struct {
	Dir     string // its directory: the socket is Dir/bus
	Address string // unix:path=Dir/bus
}

// Start starts dbus-daemon --session listening on DIR/bus (DIR a fresh
// directory, like $XDG_RUNTIME_DIR), stopped when the test ends. A machine
// without dbus-daemon fails the test (or skips it: CO_TEST_NO_DBUS=1).
func Start(t testing.TB) *Bus {
	t.Helper()
	exe, err := exec.LookPath("dbus-daemon")
	if err != nil {
		testneeds.DBus.Missing(t, err)
	}
	dir := t.TempDir()
	sock := filepath.Join(dir, "bus")
	cmd := exec.Command(exe, "--session", "--nofork", "--nopidfile", "--print-address=1", "--address=unix:path="+sock)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("dbus-daemon: %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	// It prints its address once it listens.
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon printed no address: %v", err)
	}
	if !strings.HasPrefix(line, "unix:path="+sock) {
		t.Fatalf("dbus-daemon listens on %q, want %s", line, sock)
	}
	return &Bus{Dir: dir, Address: "unix:path=" + sock}
}

// Notification is one Notify call the server received.
type Notification struct {
	AppName   string
	ReplaceID uint32
	Icon      string
	Summary   string
	Body      string
	Actions   []string
	Hints     map[string]dbus.Variant
	Timeout   int32
}

// Server is a Notifications server
// (https://specifications.freedesktop.org/notification-spec/latest/) that
// records each notification and shows none.
type Server struct {
	conn *dbus.Conn
	got  chan Notification
	mu   sync.Mutex
	next uint32
}

type iface struct{ s *Server }

// Notify is org.freedesktop.Notifications.Notify.
func (i iface) Notify(app string, replaces uint32, icon, summary, body string, actions []string, hints map[string]dbus.Variant, timeout int32) (uint32, *dbus.Error) {
	i.s.mu.Lock()
	i.s.next++
	id := i.s.next
	i.s.mu.Unlock()
	i.s.got <- Notification{app, replaces, icon, summary, body, actions, hints, timeout}
	return id, nil
}

// GetServerInformation is the spec's identification of the server.
func (i iface) GetServerInformation() (name, vendor, version, spec string, err *dbus.Error) {
	return "co-test", "co", "1", "1.2", nil
}

// Serve owns org.freedesktop.Notifications on b and answers Notify.
func (b *Bus) Serve(t testing.TB) *Server {
	t.Helper()
	conn, err := dbus.Connect(b.Address)
	if err != nil {
		t.Fatalf("connecting to the test bus: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	s := &Server{conn: conn, got: make(chan Notification, 16)}
	if err := conn.Export(iface{s}, "/org/freedesktop/Notifications", "org.freedesktop.Notifications"); err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName("org.freedesktop.Notifications", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("owning org.freedesktop.Notifications: %v (reply %d)", err, reply)
	}
	return s
}

// Next waits for the next notification (one generous deadline).
func (s *Server) Next(t testing.TB) Notification {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	select {
	case n := <-s.got:
		return n
	case <-ctx.Done():
		t.Fatal("no notification arrived within a minute")
		return Notification{}
	}
}

// Pending returns the notifications received and not yet taken by Next.
func (s *Server) Pending() []Notification {
	var out []Notification
	for {
		select {
		case n := <-s.got:
			out = append(out, n)
		default:
			return out
		}
	}
}
