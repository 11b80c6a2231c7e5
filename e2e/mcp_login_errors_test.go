package e2e

import (
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// co mcp login on a server that cannot be logged in to, as a user meets
// it on the command line: the message names the server, the URL tried,
// what failed (the connection refused, an HTTP status, TLS) and what to
// do; none is the SDK's chain of "calling/sending/rejected by transport".
func TestMCPLoginFailuresSaidInWords(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String() + "/mcp"
	ln.Close()
	failing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		http.Error(w, "database is down", http.StatusInternalServerError)
	}))
	defer failing.Close()
	selfSigned := httptest.NewTLSServer(http.NotFoundHandler())
	defer selfSigned.Close()
	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()

	for _, c := range []struct {
		name, url string
		want      []string
	}{
		{"dead", closed, []string{"logging in to MCP server dead failed: could not connect to " + closed + ": connection refused",
			"start the server, or check mcp_servers.dead.url", "then run co mcp login dead again."}},
		{"broken", failing.URL + "/mcp", []string{"logging in to MCP server broken failed: " + failing.URL + "/mcp answered HTTP 500 Internal Server Error",
			"the server failed; try again later, or ask its operator", "then run co mcp login broken again."}},
		{"selfsigned", selfSigned.URL + "/mcp", []string{"logging in to MCP server selfsigned failed: the TLS connection to " + selfSigned.URL + "/mcp failed: its certificate is not trusted",
			"certificate signed by unknown authority", "check mcp_servers.selfsigned.url"}},
		{"plainhttp", strings.Replace(plain.URL, "http:", "https:", 1) + "/mcp", []string{"logging in to MCP server plainhttp failed: the TLS connection to",
			"the server answers plain HTTP there — the URL may need http:// rather than https://"}},
		{"nothere", plain.URL + "/nothing", []string{"logging in to MCP server nothere failed: " + plain.URL + "/nothing answered HTTP 404 Not Found",
			"no MCP endpoint there; check mcp_servers.nothere.url"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := env(t, nil)
			mcpSettings(t, e, `{"`+c.name+`": {"url": "`+c.url+`"}}`)
			out, errOut, code := runCo(t, t.TempDir(), e, "", "mcp", "login", c.name)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			for _, w := range c.want {
				if !strings.Contains(errOut, w) {
					t.Errorf("stderr lacks %q:\n%s%s", w, out, errOut)
				}
			}
			if strings.Contains(errOut, "rejected by transport") || strings.Contains(errOut, `calling "initialize"`) {
				t.Errorf("the SDK's raw chain is shown:\n%s", errOut)
			}
		})
	}
}
