package e2e

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// writeImage writes a w×h PNG (generated here, not a blob in the
// repository) and returns its bytes.
func writeImage(t *testing.T, path string, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 13)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// imagesSent are the data: URLs of the image parts of a request's last
// user message.
func imagesSent(r llmtest.Request) []string {
	msgs := r.Messages()
	var out []string
	for _, p := range msgs[len(msgs)-1].Parts() {
		if p.Type == "image_url" && p.ImageURL != nil {
			out = append(out, p.ImageURL.URL)
		}
	}
	return out
}

// co run --attach sends the image with the prompt and says on stderr what
// it attached; a file that is no image or PDF is a usage error naming it.
func TestRunAttachSendsTheImage(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "A test card."})
	dir := t.TempDir()
	data := writeImage(t, filepath.Join(dir, "card.png"), 40, 30)
	out, errOut, code := runCo(t, dir, env(t, srv), "", "run", "--attach", "card.png", "what", "is", "this")
	if code != 0 || out != "A test card.\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if !strings.Contains(errOut, "attached card.png (image, ") || !strings.Contains(errOut, "40×30)") {
		t.Errorf("stderr lacks the attachment line: %q", errOut)
	}
	imgs := imagesSent(srv.Requests()[0])
	if len(imgs) != 1 || imgs[0] != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(data) {
		t.Fatalf("images sent: %d", len(imgs))
	}
	if got := srv.Requests()[0].LastUserMessage(); got != "what is this" {
		t.Errorf("text sent = %q", got)
	}

	// With --json, an "attached" event says what went, by hash.
	srv.Script(llmtest.Reply{Text: "Still a card."})
	out, errOut, code = runCo(t, dir, env(t, srv), "", "run", "--json", "--attach", "card.png", "again")
	sum := sha256.Sum256(data)
	if code != 0 || !strings.Contains(out, `"type":"attached"`) || !strings.Contains(out, `"sha256":"`+hex.EncodeToString(sum[:])+`"`) ||
		!strings.Contains(out, `"width":40`) || !strings.Contains(out, `"kind":"image"`) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if err := os.WriteFile(filepath.Join(dir, "notes.png"), []byte("only text\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = runCo(t, dir, env(t, srv), "", "run", "--attach", "notes.png", "hi")
	if code != 2 || !strings.Contains(errOut, "--attach notes.png") || !strings.Contains(errOut, "not an image") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Fatalf("%d requests after a refused --attach", n)
	}
}

// In --plain, @path to an image attaches it (a line says so) while @path
// to a text file still inlines its text.
func TestPlainMentionAttachesAnImage(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "Seen."})
	dir := t.TempDir()
	data := writeImage(t, filepath.Join(dir, "shot.webp.png"), 64, 48)
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("a note\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCo(t, dir, env(t, srv), "compare @shot.webp.png with @notes.txt\n", "--plain")
	if code != 0 {
		t.Fatalf("exit %d, stderr %s", code, errOut)
	}
	for _, want := range []string{"attached: shot.webp.png (image, ", "64×48)", "attached: notes.txt (1 line)", "Seen."} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	r := srv.Requests()[0]
	if imgs := imagesSent(r); len(imgs) != 1 || imgs[0] != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(data) {
		t.Fatalf("images sent: %d", len(imgs))
	}
	if !strings.Contains(r.LastUserMessage(), "a note") {
		t.Errorf("the text file was not inlined: %q", r.LastUserMessage())
	}
}

// In the full-screen chat, pasting an image's path attaches it, and so
// does choosing an image in the @ list: shown above the input before
// sending (name, size, dimensions), ctrl+x removes the last; sent with
// the next message.
func TestTUIPastedPathAttachesAndCtrlXRemoves(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "A gradient it is."})
	dir := t.TempDir()
	pic := filepath.Join(t.TempDir(), "my pic.png")
	data := writeImage(t, pic, 20, 10)
	chart := writeImage(t, filepath.Join(dir, "chart.png"), 8, 8)
	s := startTUI(t, dir, tuiEnv(t, srv), 100, 35)
	s.ready()
	paste := func() {
		s.tmux("set-buffer", strings.ReplaceAll(pic, " ", `\ `))
		s.tmux("paste-buffer", "-p", "-t", "co")
	}
	paste()
	s.waitFor(tuiWait, "📎 my pic.png (image, ", "20×10)", "ctrl+x removes")
	s.keys("C-x")
	for deadline := time.Now().Add(tuiWait); strings.Contains(s.screen(), "📎 my pic.png"); {
		if time.Now().After(deadline) {
			t.Fatalf("ctrl+x did not remove the attachment:\n%s", s.screen())
		}
	}
	// Two files dropped at once: one quoted, one as a file:// URL.
	other := filepath.Join(t.TempDir(), "other.png")
	writeImage(t, other, 5, 5)
	s.tmux("set-buffer", "'"+pic+"' file://"+other)
	s.tmux("paste-buffer", "-p", "-t", "co")
	s.waitFor(tuiWait, "📎 my pic.png (image, ", "📎 other.png (image, ")
	s.keys("C-x") // the last one
	for deadline := time.Now().Add(tuiWait); strings.Contains(s.screen(), "📎 other.png"); {
		if time.Now().After(deadline) {
			t.Fatalf("ctrl+x did not remove other.png:\n%s", s.screen())
		}
	}
	if !strings.Contains(s.screen(), "📎 my pic.png") {
		t.Fatalf("ctrl+x removed more than the last:\n%s", s.screen())
	}
	s.typeText("@chart")
	s.waitFor(tuiWait, "▸ @chart.png")
	s.keys("Tab")
	scr := s.waitFor(tuiWait, "📎 chart.png (image, ", "8×8)")
	if strings.Contains(scr, "@chart") {
		t.Errorf("the chosen image went into the text too:\n%s", scr)
	}
	s.typeText("what are they?")
	s.keys("Enter")
	s.waitFor(tuiWait, "attached my pic.png (image, ", "attached chart.png (image, ", "A gradient it is.")
	if scr := s.screen(); strings.Contains(scr, "📎") {
		t.Errorf("the attachment is still shown as pending after sending:\n%s", scr)
	}
	r := srv.Requests()[0]
	if imgs := imagesSent(r); len(imgs) != 2 || imgs[0] != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(data) ||
		imgs[1] != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(chart) {
		t.Fatalf("images sent: %d", len(imgs))
	}
	if got := r.LastUserMessage(); got != "what are they?" {
		t.Errorf("text sent = %q", got)
	}
}

// A session keeps the attachment by reference: co run --continue reads
// the file again; once it changed, the model gets a sentence in its place
// and stderr says so, never the new content under the old name.
func TestRunContinueRereadsAndChecksTheAttachment(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "one"}, llmtest.Reply{Text: "two"}, llmtest.Reply{Text: "three"})
	dir := t.TempDir()
	p := filepath.Join(dir, "plot.png")
	data := writeImage(t, p, 16, 16)
	environ := env(t, srv)
	if _, errOut, code := runCo(t, dir, environ, "", "run", "--attach", "plot.png", "look"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, errOut, code := runCo(t, dir, environ, "", "run", "--continue", "again"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(data)
	first := srv.Requests()[1].Messages()
	var sent []string
	for _, part := range first[1].Parts() {
		if part.ImageURL != nil {
			sent = append(sent, part.ImageURL.URL)
		}
	}
	if len(sent) != 1 || sent[0] != want {
		t.Fatalf("the resumed request sent %d images (want the file as attached)", len(sent))
	}

	writeImage(t, p, 17, 16) // the file changes
	_, errOut, code := runCo(t, dir, environ, "", "run", "--continue", "and now?")
	if code != 0 || !strings.Contains(errOut, "plot.png has changed since it was attached") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	r := srv.Requests()[2]
	if strings.Contains(string(r.Raw), "image_url") {
		t.Fatal("a changed file was sent")
	}
	if !strings.Contains(r.Messages()[1].Text(), "plot.png not sent") {
		t.Fatalf("the model is not told: %q", r.Messages()[1].Text())
	}
}

// Against Ollama, co run --attach sends the image in the message's
// "images" to a model with the vision capability, and to one without it
// sends nothing: exit 1 and a message naming the model and what to use.
func TestRunAttachOllamaVisionOnly(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.SetProfile(llmtest.ProfileOllama)
	srv.SetOllamaModels(
		llmtest.OllamaModel{Name: "tiny-chat:latest", Family: "llama", ContextLength: 4096, Capabilities: []string{"completion"}},
		llmtest.OllamaModel{Name: "tiny-vl:latest", Family: "qwen25vl", ContextLength: 4096, Capabilities: []string{"completion", "vision"}},
	)
	root := strings.TrimSuffix(srv.URL, "/v1")
	dir := t.TempDir()
	data := writeImage(t, filepath.Join(dir, "scan.png"), 30, 20)

	_, errOut, code := runCo(t, dir, env(t, nil, "LLM_PROVIDER=ollama", "OLLAMA_HOST="+root, "OLLAMA_MODEL=tiny-chat"), "", "run", "--attach", "scan.png", "read it")
	if code != 1 || !strings.Contains(errOut, "the model tiny-chat takes no images") || !strings.Contains(errOut, "qwen2.5vl") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	for _, r := range srv.Requests() {
		if r.Path == "/api/chat" {
			t.Fatal("a chat request went to the model without vision")
		}
	}

	srv.Script(llmtest.Reply{Text: "It says hello."})
	out, errOut, code := runCo(t, dir, env(t, nil, "LLM_PROVIDER=ollama", "OLLAMA_HOST="+root, "OLLAMA_MODEL=tiny-vl"), "", "run", "--attach", "scan.png", "read it")
	if code != 0 || out != "It says hello.\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	var chat llmtest.Request
	for _, r := range srv.Requests() {
		if r.Path == "/api/chat" {
			chat = r
		}
	}
	msgs := chat.Messages()
	u := msgs[len(msgs)-1]
	if len(u.Images) != 1 || u.Images[0] != base64.StdEncoding.EncodeToString(data) {
		t.Fatalf("images on the user message: %d", len(u.Images))
	}
}

// A PNG whose header reads but whose data is damaged is refused before
// anything is sent, saying so (not sent to be refused by the provider and
// then carried into every later request of the conversation).
func TestRunAttachDamagedImage(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "unused"})
	dir := t.TempDir()
	data := writeImage(t, filepath.Join(dir, "shot.png"), 40, 30)
	if err := os.WriteFile(filepath.Join(dir, "shot.png"), data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCo(t, dir, env(t, srv), "", "run", "--attach", "shot.png", "what is this")
	if code != 1 || !strings.Contains(errOut, "shot.png cannot be sent: the image is damaged") || !strings.Contains(errOut, "Nothing was sent") ||
		strings.Contains(errOut, "pixels on a side") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent with a damaged image", n)
	}
}

// A message stopped before sending because of an attachment (here a
// damaged image) is not lost: its text goes back into the input and its
// attachments back above it, to fix and send again.
func TestTUIMessageStoppedByAnAttachmentComesBack(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "unused"})
	dir := t.TempDir()
	pic := filepath.Join(dir, "broken.png")
	data := writeImage(t, pic, 20, 10)
	if err := os.WriteFile(pic, data[:len(data)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	s := startTUI(t, dir, tuiEnv(t, srv), 100, 35)
	s.ready()
	s.tmux("set-buffer", pic)
	s.tmux("paste-buffer", "-p", "-t", "co")
	s.waitFor(tuiWait, "📎 broken.png (image, ")
	s.typeText("a long question I typed with care")
	s.keys("Enter")
	s.waitFor(tuiWait, "broken.png cannot be sent: the image is damaged", "Your message is back in the input")
	scr := s.waitFor(tuiWait, "❯ a long question I typed with care", "📎 broken.png (image, ")
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent:\n%s", n, scr)
	}
	// Typed as @path, the image stays in the text that comes back.
	s.keys("C-x")
	s.keys("C-u")
	s.typeText("again @broken.png")
	s.keys("Enter")
	s.waitFor(tuiWait, "Your message is back in the input.", "❯ again @broken.png")
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent:\n%s", n, s.screen())
	}
}

// co run --attach keeps the chat's rules: at most 10 images and PDFs (an
// 11th is a usage error naming the limit, nothing sent), and a file named
// twice goes once.
func TestRunAttachLimitAndDuplicates(t *testing.T) {
	srv := llmtest.NewServer()
	defer srv.Close()
	srv.Script(llmtest.Reply{Text: "Two."})
	dir := t.TempDir()
	args := []string{"run"}
	for i := range 11 {
		name := fmt.Sprintf("p%d.png", i)
		writeImage(t, filepath.Join(dir, name), 4, 4)
		args = append(args, "--attach", name)
	}
	_, errOut, code := runCo(t, dir, env(t, srv), "", append(args, "hi")...)
	if code != 2 || !strings.Contains(errOut, "at most 10 images and PDFs") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Fatalf("%d requests sent", n)
	}
	_, errOut, code = runCo(t, dir, env(t, srv), "", "run", "--attach", "p1.png", "--attach", "./p1.png", "--attach", "p2.png", "hi")
	if code != 0 || strings.Count(errOut, "attached p1.png") != 1 {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if imgs := imagesSent(srv.Requests()[0]); len(imgs) != 2 {
		t.Errorf("%d images sent, want 2", len(imgs))
	}
}
