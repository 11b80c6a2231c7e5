package e2e

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/tools/google/googlefake"
)

func TestCloudGoogleSignInCheckAndDraft(t *testing.T) {
	g := googlefake.New()
	defer g.Close()
	g.AddClient("desktop-1", "s3cret")
	srv := llmtest.NewServer()
	defer srv.Close()
	environ := env(t, srv, "CO_GOOGLE_API_ENDPOINT="+g.URL)
	home := strings.TrimPrefix(environ[0], "HOME=")
	secret := filepath.Join(t.TempDir(), "client_secret.json")
	if err := os.WriteFile(secret, g.ClientSecretJSON("desktop-1", "s3cret"), 0o600); err != nil {
		t.Fatal(err)
	}

	// co google auth --no-browser prints the address; the test is the
	// browser, which Google sends back to co's loopback address.
	p := start(t, t.TempDir(), environ, "google", "auth", "--client-secret", secret, "--no-browser", "--timeout", "30s")
	p.waitFor("/o/oauth2/auth?", 20*time.Second)
	authURL := regexp.MustCompile(`http://\S+/o/oauth2/auth\?\S+`).FindString(p.stdout.String())
	resp, err := http.Get(authURL)
	if err != nil {
		t.Fatalf("browser: %v", err)
	}
	resp.Body.Close()
	if code := p.wait(20 * time.Second); code != 0 {
		t.Fatalf("co google auth: exit %d\n%s%s", code, p.stdout, p.stderr)
	}
	token := filepath.Join(home, ".config", "co-cli", "google-token.json")
	if !strings.Contains(p.stdout.String(), "Signed in. Token saved to "+token+" (mode 0600).") ||
		!strings.Contains(p.stdout.String(), "Granted: Drive (read-only), Gmail (read), Gmail (drafts), Calendar (read-only), Calendar (create events).") {
		t.Errorf("auth output:\n%s", p.stdout)
	}
	if st, err := os.Stat(token); err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file: %v %v", st, err)
	}

	out, errOut, code := runCo(t, t.TempDir(), environ, "", "google", "check")
	if code != 0 || !strings.Contains(out, "credentials: the token saved by co google auth, "+token) ||
		!regexp.MustCompile(`Drive\s+OK\s+signed in as Ada Lovelace <ada@example.com>`).MatchString(out) ||
		!regexp.MustCompile(`Gmail\s+OK\s+mailbox ada@example.com`).MatchString(out) ||
		!regexp.MustCompile(`Calendar\s+OK\s+primary calendar`).MatchString(out) {
		t.Fatalf("co google check: exit %d\n%s%s", code, out, errOut)
	}
	if strings.Contains(out, "not granted") {
		t.Errorf("co google check with every scope says one is missing:\n%s", out)
	}
	// A sign-in from before co created events: check names the scope.
	saved, err := os.ReadFile(token)
	if err != nil {
		t.Fatal(err)
	}
	var tok map[string]any
	if err := json.Unmarshal(saved, &tok); err != nil {
		t.Fatal(err)
	}
	var kept []any
	for _, sc := range tok["scopes"].([]any) {
		if sc != "https://www.googleapis.com/auth/calendar.events" {
			kept = append(kept, sc)
		}
	}
	if len(kept) != len(tok["scopes"].([]any))-1 {
		t.Fatalf("the saved token has no calendar.events scope: %s", saved)
	}
	tok["scopes"] = kept
	old, _ := json.Marshal(tok)
	if err := os.WriteFile(token, old, 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, _ = runCo(t, t.TempDir(), environ, "", "google", "check")
	if !strings.Contains(out, "granted: Drive (read-only), Gmail (read), Gmail (drafts), Calendar (read-only)\n") ||
		!strings.Contains(out, "not granted: Calendar (create events); the tools that need it fail until you run co google auth again") {
		t.Errorf("co google check of a read-only Calendar sign-in:\n%s", out)
	}
	g.Fail("/calendar/v3/", 403, "accessNotConfigured", "", 1)
	out, _, code = runCo(t, t.TempDir(), environ, "", "google", "check")
	if code != 1 || !regexp.MustCompile(`Calendar\s+FAILED\s+the Calendar API is not enabled`).MatchString(out) {
		t.Errorf("check with Calendar disabled: exit %d\n%s", code, out)
	}

	// The draft asks; without --yes nothing reaches Gmail.
	call := llmtest.Reply{ToolCalls: []llmtest.ToolCall{{Name: "create_email_draft", Args: `{"to":"Zoë <zoe@example.org>","subject":"Café?","body":"Friday at 10?"}`}}}
	srv.Script(call, llmtest.Reply{Text: "Not saved."}, call, llmtest.Reply{Text: "Saved."})
	out, _, _ = runCo(t, t.TempDir(), environ, "", "run", "--json", "draft a mail to Zoë")
	if a := eventOf(jsonEvents(t, out), "approval"); a == nil || a["answer"] != "needs approval" {
		t.Fatalf("approval = %v\n%s", a, out)
	}
	if d := g.Drafts(); len(d) != 0 {
		t.Fatalf("a denied draft reached Gmail: %s", d[0].Raw)
	}
	out, errOut, code = runCo(t, t.TempDir(), append(environ, "CO_CLI_YOLO_UNSANDBOXED=true"), "", "run", "--json", "--yes", "draft a mail to Zoë")
	r := eventOf(jsonEvents(t, out), "tool_result")
	if code != 0 || r["status"] != "done" || !strings.Contains(r["display"].(string), "Draft saved in Gmail (not sent)") {
		t.Fatalf("with --yes: exit %d %v %s", code, r, errOut)
	}
	d := g.Drafts()
	if len(d) != 1 || !strings.Contains(string(d[0].Raw), "To: =?utf-8?q?Zo=C3=AB?= <zoe@example.org>\r\n") ||
		!strings.Contains(string(d[0].Raw), "Subject: =?utf-8?q?Caf=C3=A9=3F?=\r\n") || !strings.HasSuffix(string(d[0].Raw), "\r\n\r\nFriday at 10?") {
		t.Errorf("draft on the server:\n%q", d)
	}
}
