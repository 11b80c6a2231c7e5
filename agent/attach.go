package agent

// Images and PDFs a user message carries (message.Attachment). The history
// keeps each file's bytes as read; what a request sends is prepared for
// the provider's model on the way out (mediaView): an image scaled down to
// its limits, a PDF as a document or as its text, a file that could not be
// read again or a model that takes no images said in a sentence. A new
// message whose attachment cannot be sent fails before anything is sent.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/lib/media"
	"github.com/co-cli/co/lib/pdftext"
	"github.com/co-cli/co/message"
)

// SubmitAttached is SubmitShown for a prompt that carries images or PDFs.
func (a *Agent) SubmitAttached(ctx context.Context, prompt, shown string, atts []message.Attachment) <-chan Event {
	return a.SubmitInput(ctx, Input{Prompt: prompt, Shown: shown, Attachments: atts})
}

// pdfTextRunes is the most of a PDF's text sent in its place (about
// 25,000 tokens); the user is told when it was cut.
const pdfTextRunes = 100_000

// pdfAsText is a PDF's text, for a provider that takes no documents.
func pdfAsText(data []byte) (text string, truncated bool, err error) {
	text, truncated, err = pdftext.Extract(data, pdfTextRunes)
	if err != nil {
		return "", false, fmt.Errorf("this model takes no PDF documents, and the PDF's text could not be read: %w", err)
	}
	return text, truncated, nil
}

// visionModels are Ollama models that take images, suggested when the
// chosen one does not (ollama.com/search?c=vision).
const visionModels = "qwen2.5vl, gemma3, llama3.2-vision or llava"

// mediaFor is what p's model takes: Ollama's capabilities (/api/show,
// asked once), or a refusal seen earlier.
func (a *Agent) mediaFor(ctx context.Context, p provider.Provider) provider.Media {
	var caps []string
	if provider.OllamaNative(p) {
		caps = a.ollama.Model(ctx, p).Caps
	}
	a.mu.Lock()
	refused := a.noVision[noToolsKey(p)]
	a.mu.Unlock()
	return provider.MediaFor(p, caps, refused != "")
}

// markNoVision records that p.Model refused an image.
func (a *Agent) markNoVision(p provider.Provider, why string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.noVision == nil {
		a.noVision = map[string]string{}
	}
	a.noVision[noToolsKey(p)] = why
	a.gen++ // the finished turns' encoding sent the images
}

// fitKey names an image fitted to limits.
type fitKey struct {
	sha           string
	edge, maxSize int
	png           bool
}

// fitted is an image scaled for a request (cached: scaling runs once).
func (a *Agent) fitted(at message.Attachment, m provider.Media) (media.Fitted, error) {
	conv := m.NoGIF && at.MIME == "image/gif"
	k := fitKey{at.SHA256, m.MaxEdge, m.MaxImageBytes, conv}
	a.mu.Lock()
	f, ok := a.fits[k]
	a.mu.Unlock()
	if ok {
		return f, nil
	}
	fit := media.Fit
	if conv {
		fit = func(data []byte, _ string, edge, size int) (media.Fitted, error) {
			return media.AsPNG(data, edge, size)
		}
	}
	f, err := fit(at.Data, at.MIME, m.MaxEdge, m.MaxImageBytes)
	if err != nil {
		return f, err
	}
	a.mu.Lock()
	if a.fits == nil {
		a.fits = map[fitKey]media.Fitted{}
	}
	a.fits[k] = f
	a.mu.Unlock()
	return f, nil
}

// prepare is at as p's model gets it (m: what it takes): problem, when
// set, says why it cannot be sent as itself (the copy's Missing says it
// to the model); note says it was scaled.
func (a *Agent) prepare(p provider.Provider, at message.Attachment, m provider.Media) (out message.Attachment, note, problem string) {
	if at.Missing != "" || at.Text != "" {
		return at, "", at.Missing
	}
	if at.Data == nil {
		if at = at.Reload(); at.Missing != "" {
			return at, "", at.Missing
		}
	}
	switch at.Kind {
	case message.AttachImage:
		if !m.Images {
			problem = fmt.Sprintf("%s takes no images", p.Model)
			if provider.OllamaNative(p) {
				problem += ` (Ollama lists its capabilities without "vision")`
			}
			at.Missing = problem
			return at, "", problem
		}
		f, err := a.fitted(at, m)
		if err != nil {
			problem = fmt.Sprintf("%s cannot be sent: %v", at.Name, err)
			if errors.Is(err, media.ErrTooLarge) {
				problem += fmt.Sprintf(" (images go at most %d pixels on a side and %s)", m.MaxEdge, message.FormatBytes(int64(m.MaxImageBytes)))
			}
			at.Missing = problem
			return at, "", problem
		}
		switch {
		case f.Scaled && f.Width == at.Width && f.Height == at.Height:
			// Only its type changed (a GIF to Gemini): no note needed.
			at.Data, at.MIME = f.Data, f.MIME
		case f.Scaled:
			note = fmt.Sprintf("%s scaled down from %d×%d (%s) to %d×%d (%s) to fit the provider's limits (%d pixels on a side, %s)",
				at.Name, at.Width, at.Height, message.FormatBytes(at.Size), f.Width, f.Height, message.FormatBytes(int64(len(f.Data))),
				m.MaxEdge, message.FormatBytes(int64(m.MaxImageBytes)))
			at.Data, at.MIME = f.Data, f.MIME
		}
	case message.AttachPDF:
		if m.PDF {
			return at, "", ""
		}
		text, truncated, err := pdfAsText(at.Data)
		if err != nil {
			problem = fmt.Sprintf("%s: %v", at.Name, err)
			at.Missing = problem
			return at, "", problem
		}
		at.Text = text
		note = fmt.Sprintf("%s goes as its text: this model takes no PDF documents", at.Name)
		if truncated {
			note += fmt.Sprintf(" (cut at %d characters or %d pages)", pdfTextRunes, pdftext.MaxPages)
		}
	}
	return at, note, ""
}

// checkAttachments prepares a new message's attachments for p: the
// notes to show (an image scaled), or the message that stops the turn
// before anything is sent.
func (a *Agent) checkAttachments(ctx context.Context, p provider.Provider, atts []message.Attachment) (notes []string, stop string) {
	m := a.mediaFor(ctx, p)
	prepared := make([]message.Attachment, len(atts))
	for i, at := range atts {
		out, note, problem := a.prepare(p, at, m)
		if problem != "" {
			if at.Kind == message.AttachImage && !m.Images {
				return nil, a.noImagesMessage(p, at)
			}
			return nil, problem + ". Nothing was sent."
		}
		prepared[i] = out
		if note != "" {
			notes = append(notes, note)
		}
	}
	if m.MaxInline > 0 {
		a.mu.Lock()
		hist := a.history
		a.mu.Unlock()
		all := append(a.mediaView(ctx, p, hist), message.Message{Role: message.RoleUser, Attachments: prepared})
		if n := provider.InlineSize(all); n > m.MaxInline {
			return nil, fmt.Sprintf("The images of this conversation would come to %s in one request, over the %s %s takes inline. Nothing was sent. Attach fewer or smaller files, or start a new conversation (/clear) without the earlier ones.",
				message.FormatBytes(int64(n)), message.FormatBytes(int64(m.MaxInline)), p.Name)
		}
	}
	return notes, ""
}

// noImagesMessage says that p.Model takes no images, and what to do.
func (a *Agent) noImagesMessage(p provider.Provider, at message.Attachment) string {
	a.mu.Lock()
	why := a.noVision[noToolsKey(p)]
	a.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "%s is an image and the model %s takes no images", at.Name, p.Model)
	switch {
	case why != "":
		fmt.Fprintf(&b, " (it refused one: %s)", why)
	case provider.OllamaNative(p):
		b.WriteString(` (Ollama lists its capabilities without "vision")`)
	}
	b.WriteString(". Nothing was sent. Switch with /model (or --model) to a model that takes images")
	if provider.OllamaNative(p) {
		b.WriteString(", such as " + visionModels)
	}
	b.WriteString(".")
	return b.String()
}

// reloadAttachments reads again the files of attachments the history
// holds without their bytes (a resumed session), once: a file gone or
// changed is said to the user here and to the model in its place.
func (a *Agent) reloadAttachments(e *emitter) {
	a.mu.Lock()
	var notes []string
	for i, m := range a.history {
		if len(m.Attachments) == 0 {
			continue
		}
		var atts []message.Attachment
		for j, at := range m.Attachments {
			if at.Data != nil || at.Missing != "" {
				continue
			}
			if atts == nil {
				atts = append([]message.Attachment(nil), m.Attachments...)
			}
			atts[j] = at.Reload()
			if atts[j].Missing != "" {
				notes = append(notes, "Not sent again: "+atts[j].Missing+".")
			}
		}
		if atts != nil {
			a.history[i].Attachments = atts
		}
	}
	a.mu.Unlock()
	for _, n := range notes {
		e.send(Notice{Text: n})
	}
}

// mediaView is msgs with their attachments as p's model gets them. msgs
// is not modified.
func (a *Agent) mediaView(ctx context.Context, p provider.Provider, msgs []message.Message) []message.Message {
	var out []message.Message
	var m provider.Media
	for i, msg := range msgs {
		if len(msg.Attachments) == 0 {
			continue
		}
		if out == nil {
			out = append([]message.Message(nil), msgs...)
			m = a.mediaFor(ctx, p)
		}
		atts := make([]message.Attachment, len(msg.Attachments))
		for j, at := range msg.Attachments {
			atts[j], _, _ = a.prepare(p, at, m)
		}
		out[i].Attachments = atts
	}
	if out == nil {
		return msgs
	}
	return out
}

// attachmentAttrs describe a message's attachments for its span: name,
// type, size and hash, never the bytes.
func attachmentAttrs(atts []message.Attachment) []string {
	out := make([]string, len(atts))
	for i, at := range atts {
		out[i] = fmt.Sprintf("%s %s %d sha256:%s", at.Name, at.MIME, at.Size, at.SHA256)
	}
	return out
}

// sendsImages reports whether a request to p now carries an image.
func (a *Agent) sendsImages(ctx context.Context, p provider.Provider) bool {
	a.mu.Lock()
	msgs := a.history
	a.mu.Unlock()
	return provider.CarriesImages(a.mediaView(ctx, p, msgs))
}
