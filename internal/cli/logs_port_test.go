package cli

import (
	"net"
	"strconv"
	"strings"
	"testing"
)

// co logs on a port another program holds says so and what to do; it
// printed Go's "listen tcp 127.0.0.1:N: bind: address already in use".
func TestLogsOnAPortInUseSaysWhatToDo(t *testing.T) {
	isolatedHome(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
	code, _, errOut := run(t, "v", "logs", "--port", port)
	if code == exitOK || !strings.Contains(errOut, "port "+port+" is in use") || !strings.Contains(errOut, "--port") {
		t.Errorf("co logs --port %s (in use) = %d, %q", port, code, errOut)
	}
}
