package agent_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/llmtest"
	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
	"github.com/go-pdf/fpdf"
)

// pngFile writes a w×h PNG to dir/name and attaches it.
func pngFile(t *testing.T, dir, name string, w, h int) message.Attachment {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for i := range img.Pix {
		img.Pix[i] = byte(i * 7)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := message.ReadAttachment(p)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

func runAttached(t *testing.T, ag *agent.Agent, prompt string, atts ...message.Attachment) []agent.Event {
	t.Helper()
	var evs []agent.Event
	timeout := time.After(2 * time.Minute) // only detects a hang: scaling a large image under -race on a busy machine took over 20 s
	ch := ag.SubmitAttached(context.Background(), prompt, "", atts)
	for {
		select {
		case ev, ok := <-ch:
			if !ok {
				return evs
			}
			evs = append(evs, ev)
		case <-timeout:
			t.Fatalf("turn did not end; events so far: %#v", evs)
		}
	}
}

func newAttachAgent(t *testing.T, srv *llmtest.Server, name, model string) *agent.Agent {
	t.Helper()
	reg, _ := tools.NewRegistry(echoTool{})
	return agent.New(agent.Config{Provider: provider.Provider{Name: name, BaseURL: srv.URL, APIKey: "test-key", Model: model},
		Tools: reg, SystemPrompt: "You are a test.", Approvals: agent.NewApprovals(agent.ApprovalOptions{Isolated: true}),
		Retry: provider.RetryPolicy{Base: 10 * time.Millisecond}, StallTimeout: 5 * time.Second})
}

// lastUser is the last user message of the last request the server got.
func lastUser(t *testing.T, srv *llmtest.Server) llmtest.WireMessage {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request")
	}
	msgs := reqs[len(reqs)-1].Messages()
	for i := len(msgs) - 1; i >= 0; i-- {
		if msgs[i].Role == "user" {
			return msgs[i]
		}
	}
	t.Fatal("no user message")
	return llmtest.WireMessage{}
}

// An OpenAI-compatible server (and Gemini's OpenAI layer) gets the text,
// then the image as an image_url part holding a data: URL of its bytes.
func TestImageGoesAsAnImageURLPart(t *testing.T) {
	for _, prof := range []llmtest.Profile{llmtest.ProfileOpenAI, llmtest.ProfileGemini} {
		t.Run(string(prof), func(t *testing.T) {
			f := profileFixture(t, prof, map[llmtest.Profile]string{llmtest.ProfileOpenAI: "gpt-4.1", llmtest.ProfileGemini: "gemini-3.5-flash"}[prof], nil)
			f.srv.Script(llmtest.Reply{Text: "A gradient."})
			at := pngFile(t, t.TempDir(), "shot.png", 40, 30)
			evs := runAttached(t, f.ag, "what is this?", at)
			finished(t, evs)
			parts := lastUser(t, f.srv).Parts()
			if len(parts) != 2 || parts[0].Type != "text" || parts[0].Text != "what is this?" || parts[1].Type != "image_url" {
				t.Fatalf("parts = %+v", parts)
			}
			want := "data:image/png;base64," + base64.StdEncoding.EncodeToString(at.Data)
			if parts[1].ImageURL.URL != want {
				t.Fatalf("image url = %.80s…", parts[1].ImageURL.URL)
			}
		})
	}
}

// Ollama's /api/chat gets the image in the message's images; a model
// whose capabilities lack "vision" gets nothing: the turn fails before
// sending, naming the model and suggesting ones that see.
func TestOllamaImagesOnlyToVisionModels(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileOllama)
	srv.SetOllamaModels(
		llmtest.OllamaModel{Name: "qwen3:8b", Family: "qwen3", ContextLength: 40960, Capabilities: []string{"completion", "tools", "thinking"}},
		llmtest.OllamaModel{Name: "qwen2.5vl:7b", Family: "qwen25vl", ContextLength: 128000, Capabilities: []string{"completion", "vision"}},
	)
	at := pngFile(t, t.TempDir(), "chart.png", 20, 20)

	blind := newAttachAgent(t, srv, "ollama", "qwen3:8b")
	evs := runAttached(t, blind, "read the chart", at)
	f := failed(t, evs)
	for _, w := range []string{"chart.png", "qwen3:8b", "takes no images", `"vision"`, "Nothing was sent", "/model", "qwen2.5vl"} {
		if !strings.Contains(f.Message, w) {
			t.Errorf("message %q lacks %q", f.Message, w)
		}
	}
	for _, r := range srv.Requests() {
		if r.Path == "/api/chat" {
			t.Fatal("a request went to a model without vision")
		}
	}
	if len(blind.History()) != 0 {
		t.Fatalf("history = %+v", blind.History())
	}

	srv.Script(llmtest.Reply{Text: "Up and to the right."})
	seer := newAttachAgent(t, srv, "ollama", "qwen2.5vl:7b")
	finished(t, runAttached(t, seer, "read the chart", at))
	u := lastUser(t, srv)
	if len(u.Images) != 1 || u.Images[0] != base64.StdEncoding.EncodeToString(at.Data) || u.Text() != "read the chart" {
		t.Fatalf("user message: text %q, %d images", u.Text(), len(u.Images))
	}
}

// A server that takes no images (DeepSeek answers 400 "unknown variant
// `image_url`") gets a clear message; the image stays in the
// conversation but is not sent to that model again, so the next turn
// works.
func TestRefusedImageIsSaidAndNotSentAgain(t *testing.T) {
	f := profileFixture(t, llmtest.ProfileDeepSeek, "deepseek-v4-flash", nil)
	f.srv.Script(llmtest.Reply{Text: "Sure."})
	at := pngFile(t, t.TempDir(), "receipt.png", 20, 20)
	fl := failed(t, runAttached(t, f.ag, "total?", at))
	for _, w := range []string{"deepseek-v4-flash", "refused the image", "unknown variant `image_url`", "/model"} {
		if !strings.Contains(fl.Message, w) {
			t.Errorf("message %q lacks %q", fl.Message, w)
		}
	}
	evs := run(t, context.Background(), f.ag, "never mind, say hi", nil)
	finished(t, evs)
	reqs := f.srv.Requests()
	msgs := reqs[len(reqs)-1].Messages()
	if strings.Contains(string(reqs[len(reqs)-1].Raw), "image_url") {
		t.Fatal("the image was sent again")
	}
	if !strings.Contains(msgs[1].Text(), "receipt.png not sent") || !strings.Contains(msgs[1].Text(), "takes no images") {
		t.Fatalf("the model is not told: %q", msgs[1].Text())
	}
	// And a new image to this model stops before sending.
	n := len(f.srv.Requests())
	fl = failed(t, runAttached(t, f.ag, "and this?", at))
	if !strings.Contains(fl.Message, "takes no images") || len(f.srv.Requests()) != n {
		t.Fatalf("%q after %d requests (was %d)", fl.Message, len(f.srv.Requests()), n)
	}
}

// An image larger than the provider's limits is scaled down before it is
// sent, with a note; the history keeps the file's own description.
func TestLargeImageIsScaledWithANote(t *testing.T) {
	f := profileFixture(t, llmtest.ProfileOpenAI, "gpt-4.1", nil)
	f.srv.Script(llmtest.Reply{Text: "Wide."})
	at := pngFile(t, t.TempDir(), "pano.png", 4096, 1024)
	evs := runAttached(t, f.ag, "describe", at)
	finished(t, evs)
	var note string
	for _, n := range notices(evs) {
		if strings.Contains(n, "pano.png scaled down") {
			note = n
		}
	}
	if !strings.Contains(note, "4096×1024") || !strings.Contains(note, "2048×512") {
		t.Fatalf("notices = %q", notices(evs))
	}
	url := lastUser(t, f.srv).Parts()[1].ImageURL.URL
	_, b64, _ := strings.Cut(url, ";base64,")
	data, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		t.Fatal(err)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil || cfg.Width != 2048 || cfg.Height != 512 {
		t.Fatalf("sent %dx%d (%v)", cfg.Width, cfg.Height, err)
	}
	if h := f.ag.History()[0].Attachments[0]; h.Width != 4096 || h.SHA256 != at.SHA256 {
		t.Fatalf("history's attachment = %+v", h)
	}
}

// A resumed conversation (attachments without bytes) reads the files
// again: the same file is sent; a changed one is said to the user and to
// the model, never sent as other content.
func TestResumedAttachmentsAreReadAgainAndChecked(t *testing.T) {
	f := profileFixture(t, llmtest.ProfileOpenAI, "gpt-4.1", nil)
	dir := t.TempDir()
	same := pngFile(t, dir, "same.png", 10, 10)
	changed := pngFile(t, dir, "changed.png", 10, 10)
	pngFile(t, dir, "changed.png", 12, 10) // the file changes after it was attached
	same.Data, changed.Data = nil, nil     // as sessions load them
	f.ag.Restore([]message.Message{
		{Role: message.RoleUser, Content: "look", Attachments: []message.Attachment{same, changed}},
		{Role: message.RoleAssistant, Content: "Looked."},
	}, message.Usage{}, 1)
	f.srv.Script(llmtest.Reply{Text: "Again."})
	evs := run(t, context.Background(), f.ag, "once more", nil)
	finished(t, evs)
	if ns := strings.Join(notices(evs), "\n"); !strings.Contains(ns, "changed.png has changed since it was attached") {
		t.Fatalf("notices = %q", ns)
	}
	parts := f.srv.Requests()[0].Messages()[1].Parts()
	if len(parts) != 3 || parts[1].Type != "image_url" || parts[2].Type != "text" || !strings.Contains(parts[2].Text, "changed.png not sent") {
		t.Fatalf("parts = %+v", parts)
	}
	want, _ := os.ReadFile(filepath.Join(dir, "same.png"))
	if parts[1].ImageURL.URL != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(want) {
		t.Fatal("same.png was not sent as it is")
	}
}

// A PDF to a provider that takes no documents, with no text extraction:
// a clear message, nothing sent.
func TestPDFWithoutDocumentsOrExtractionStops(t *testing.T) {
	f := profileFixture(t, llmtest.ProfileOpenAI, "gpt-4.1", nil)
	p := filepath.Join(t.TempDir(), "report.pdf")
	if err := os.WriteFile(p, []byte("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	at, err := message.ReadAttachment(p)
	if err != nil || at.Kind != message.AttachPDF {
		t.Fatalf("%+v, %v", at, err)
	}
	fl := failed(t, runAttached(t, f.ag, "summarise", at))
	if !strings.Contains(fl.Message, "report.pdf") || !strings.Contains(fl.Message, "takes no PDF documents") || len(f.srv.Requests()) != 0 {
		t.Fatalf("%q, %d requests", fl.Message, len(f.srv.Requests()))
	}
}

// llama-server without --mmproj answers an image with a 500: it is not
// retried (asking again cannot help) and becomes the clear message;
// started with --mmproj it takes the image.
func TestLlamaServerWithoutProjectorRefusesOnce(t *testing.T) {
	srv := llmtest.NewServer()
	t.Cleanup(srv.Close)
	srv.SetProfile(llmtest.ProfileLlamaCpp)
	ag := agent.New(agent.Config{Provider: provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "x", Model: "gguf/tiny.gguf"},
		SystemPrompt: "You are a test.", Approvals: agent.NewApprovals(agent.ApprovalOptions{Isolated: true}),
		Retry: provider.RetryPolicy{Base: time.Millisecond, Attempts: 4}, StallTimeout: 5 * time.Second})
	at := pngFile(t, t.TempDir(), "x.png", 8, 8)
	fl := failed(t, runAttached(t, ag, "what?", at))
	if !strings.Contains(fl.Message, "refused the image") || !strings.Contains(fl.Message, "mmproj") {
		t.Fatalf("message %q", fl.Message)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Fatalf("%d requests: the refusal was retried", n)
	}

	srv.SetLlamaMMProj(true)
	srv.Script(llmtest.Reply{Text: "A dot."})
	ag2 := agent.New(agent.Config{Provider: provider.Provider{Name: "openai", BaseURL: srv.URL, APIKey: "x", Model: "gguf/tiny.gguf"},
		SystemPrompt: "You are a test.", Approvals: agent.NewApprovals(agent.ApprovalOptions{Isolated: true}), StallTimeout: 5 * time.Second})
	finished(t, runAttached(t, ag2, "what?", at))
}

// Gemini takes at most 20 MB of inline data a request: images that
// together would go over it stop the message before anything is sent.
func TestGeminiInlineBudgetStopsBeforeSending(t *testing.T) {
	f := profileFixture(t, llmtest.ProfileGemini, "gemini-3.5-flash", nil)
	dir := t.TempDir()
	// 900×900 of noise: about 3.2 MB as PNG, under the edge and size
	// limits, so none is scaled; six copies (each with a byte after the
	// end, so each is its own file) come to 26 MB as base64.
	img := image.NewRGBA(image.Rect(0, 0, 900, 900))
	x := uint32(1)
	for j := range img.Pix {
		x = x*1664525 + 1013904223
		img.Pix[j] = byte(x >> 24)
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	var atts []message.Attachment
	for i := range 6 {
		p := filepath.Join(dir, "noise"+string(rune('a'+i))+".png")
		if err := os.WriteFile(p, append(b.Bytes(), byte(i)), 0o644); err != nil {
			t.Fatal(err)
		}
		a, err := message.ReadAttachment(p)
		if err != nil {
			t.Fatal(err)
		}
		atts = append(atts, a)
	}
	fl := failed(t, runAttached(t, f.ag, "compare", atts...))
	if !strings.Contains(fl.Message, "over the 18.0 MB gemini takes inline") || !strings.Contains(fl.Message, "Nothing was sent") {
		t.Fatalf("message %q", fl.Message)
	}
	if n := len(f.srv.Requests()); n != 0 {
		t.Fatalf("%d requests", n)
	}
}

// Gemini takes no GIF (PNG, JPEG, WebP, HEIC, HEIF): a GIF goes to it as
// PNG, of the same size and without a note; OpenAI gets the GIF itself.
func TestGIFGoesToGeminiAsPNG(t *testing.T) {
	img := image.NewPaletted(image.Rect(0, 0, 12, 9), color.Palette{color.White, color.Black})
	var b bytes.Buffer
	if err := gif.Encode(&b, img, nil); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "anim.gif")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	at, err := message.ReadAttachment(p)
	if err != nil || at.MIME != "image/gif" {
		t.Fatalf("%+v, %v", at, err)
	}
	for prof, want := range map[llmtest.Profile]string{llmtest.ProfileGemini: "data:image/png;base64,", llmtest.ProfileOpenAI: "data:image/gif;base64,"} {
		model := map[llmtest.Profile]string{llmtest.ProfileOpenAI: "gpt-4.1", llmtest.ProfileGemini: "gemini-3.5-flash"}[prof]
		f := profileFixture(t, prof, model, nil)
		f.srv.Script(llmtest.Reply{Text: "A box."})
		evs := runAttached(t, f.ag, "what?", at)
		finished(t, evs)
		if len(notices(evs)) != 0 {
			t.Errorf("%s: notices %q", prof, notices(evs))
		}
		url := lastUser(t, f.srv).Parts()[1].ImageURL.URL
		if !strings.HasPrefix(url, want) {
			t.Fatalf("%s got %.40s…", prof, url)
		}
		_, b64, _ := strings.Cut(url, ";base64,")
		data, _ := base64.StdEncoding.DecodeString(b64)
		if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err != nil || cfg.Width != 12 || cfg.Height != 9 {
			t.Fatalf("%s: sent %dx%d (%v)", prof, cfg.Width, cfg.Height, err)
		}
	}
}

// Summarising a conversation sends no image, but the summary's transcript
// says what was attached, so the summary can say so.
func TestCompactNamesAttachmentsNotTheirBytes(t *testing.T) {
	f := profileFixture(t, llmtest.ProfileOpenAI, "gpt-4.1", nil)
	at := pngFile(t, t.TempDir(), "floorplan.png", 30, 20)
	h := []message.Message{{Role: message.RoleUser, Content: "measure this room", Attachments: []message.Attachment{at}},
		{Role: message.RoleAssistant, Content: "About 12 m²."}}
	for i := range 3 {
		h = append(h, message.Message{Role: message.RoleUser, Content: fmt.Sprintf("question %d", i)}, message.Message{Role: message.RoleAssistant, Content: "answer"})
	}
	f.ag.SetHistory(h)
	f.srv.Script(llmtest.Reply{Text: "- a floor plan was measured"})
	if _, err := f.ag.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	r := f.srv.Requests()[0]
	if strings.Contains(string(r.Raw), "image_url") || strings.Contains(string(r.Raw), base64.StdEncoding.EncodeToString(at.Data)[:40]) {
		t.Fatal("the summary request carries the image")
	}
	if !strings.Contains(string(r.Raw), "USER ATTACHED floorplan.png (image, ") {
		t.Fatalf("the transcript does not name the attachment: %.400s", r.Raw)
	}
}

// A PDF to a model that takes no documents goes as its text, extracted
// by lib/pdftext, with a note saying so; the history keeps the file.
func TestPDFGoesAsItsTextWhereNoDocuments(t *testing.T) {
	f := profileFixture(t, llmtest.ProfileOpenAI, "gpt-4.1", nil)
	f.srv.Script(llmtest.Reply{Text: "Paid."})
	doc := fpdf.New("P", "mm", "A4", "")
	doc.AddPage()
	doc.SetFont("Helvetica", "", 12)
	doc.Text(20, 30, "Invoice 4711: 120 EUR due on 1 December")
	var b bytes.Buffer
	if err := doc.Output(&b); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "invoice.pdf")
	if err := os.WriteFile(p, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	at, err := message.ReadAttachment(p)
	if err != nil {
		t.Fatal(err)
	}
	evs := runAttached(t, f.ag, "is it paid?", at)
	finished(t, evs)
	var sent string
	for _, part := range lastUser(t, f.srv).Parts() {
		sent += part.Text
	}
	if !strings.Contains(sent, `<attached-pdf name="invoice.pdf">`) || !strings.Contains(sent, "Invoice 4711: 120 EUR due on 1 December") {
		t.Fatalf("the request's user message holds %q", sent)
	}
	if !strings.Contains(strings.Join(notices(evs), "\n"), "invoice.pdf goes as its text") {
		t.Fatalf("notices = %q", notices(evs))
	}
	if h := f.ag.History()[0].Attachments[0]; h.Kind != message.AttachPDF || h.SHA256 != at.SHA256 {
		t.Fatalf("history's attachment = %+v", h)
	}
}
