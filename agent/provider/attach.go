package provider

import (
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/co-cli/co/lib/jsonstr"
	"github.com/co-cli/co/message"
)

// How each provider takes images and PDFs (docs/providers.md, "Images and
// PDFs"): OpenAI-compatible servers and Gemini's OpenAI layer take an
// image as a content part {"type":"image_url","image_url":{"url":"data:
// MIME;base64,…"}}; OpenAI's chat completions take a PDF as
// {"type":"file","file":{"filename":…,"file_data":"data:application/pdf;
// base64,…"}}; Ollama's /api/chat takes a message's images as
// "images":[base64…] and no documents.

// Media is what a provider's model takes, and the limits co keeps an
// image within.
type Media struct {
	// Images: the model takes images. Known says whether the provider said
	// so (Ollama's capabilities, a refusal seen) or co assumes it.
	Images, Known bool
	// PDF: the endpoint takes a PDF as a document part.
	PDF bool
	// MaxEdge is the longest side, in pixels, an image is sent with;
	// MaxImageBytes the most bytes of one image.
	MaxEdge, MaxImageBytes int
	// MaxInline, when not 0, is the most bytes of base64 data one request
	// may carry (Gemini: 20 MB a request, text included).
	MaxInline int
	// NoGIF: the provider takes no GIF (Gemini: PNG, JPEG, WebP, HEIC,
	// HEIF); one is sent as PNG.
	NoGIF bool
}

// geminiInline is what co lets a request to Gemini carry as inline data:
// below Google's 20 MB a request, leaving room for the text.
const geminiInline = 18 << 20

// InlineSize is the size of msgs' attachments as a request carries them
// (base64).
func InlineSize(msgs []message.Message) int {
	n := 0
	for _, m := range msgs {
		for _, a := range m.Attachments {
			if !sentAsText(a) {
				n += base64.StdEncoding.EncodedLen(len(a.Data))
			}
		}
	}
	return n
}

// Limits co keeps an image within. Gemini: "the total request size
// (including the files, text prompt, system instructions) … 20 MB" for
// inline data; OpenAI: images are scaled "to fit within a 2048px x 2048px
// square" before the model sees them, so a larger one only costs upload;
// Ollama: the same edge, its vision encoders working far below it.
const (
	maxEdge       = 2048
	maxImageBytes = 5 << 20
)

// MediaFor says what p's model takes. caps are Ollama's capabilities from
// /api/show (nil when not asked or not Ollama); refused is true once the
// endpoint refused an image for this model.
func MediaFor(p Provider, caps []string, refused bool) Media {
	m := Media{Images: true, MaxEdge: maxEdge, MaxImageBytes: maxImageBytes}
	switch {
	case refused:
		m.Images, m.Known = false, true
	case OllamaNative(p) && len(caps) > 0:
		m.Known = true
		m.Images = false
		for _, c := range caps {
			if c == "vision" {
				m.Images = true
			}
		}
	case p.IsGemini():
		m.Known = true // every Gemini model takes images
	}
	if p.IsGemini() {
		m.MaxInline, m.NoGIF = geminiInline, true
	}
	m.PDF = !OllamaNative(p) && strings.Contains(strings.ToLower(p.BaseURL), "api.openai.com")
	return m
}

// attachmentNote is the text the model gets for an attachment not sent
// as itself: why it is missing, or a PDF's text.
func attachmentNote(a message.Attachment) string {
	if a.Missing != "" {
		return fmt.Sprintf("[attachment %s not sent: %s]", a.Name, a.Missing)
	}
	return fmt.Sprintf("<attached-pdf name=%q>\n%s\n</attached-pdf>", a.Name, a.Text)
}

// sentAsText reports whether a goes to the model as text.
func sentAsText(a message.Attachment) bool { return a.Missing != "" || a.Text != "" }

// appendUserParts writes a user message with attachments as content
// parts: its text, then each attachment.
func appendUserParts(b []byte, m message.Message) []byte {
	b = append(b, `[{"type":"text","text":`...)
	b = jsonstr.Append(b, m.Content)
	b = append(b, '}')
	for _, a := range m.Attachments {
		switch {
		case sentAsText(a):
			b = append(b, `,{"type":"text","text":`...)
			b = jsonstr.Append(b, attachmentNote(a))
			b = append(b, '}')
		case a.Kind == message.AttachImage:
			b = append(b, `,{"type":"image_url","image_url":{"url":"data:`...)
			b = append(b, a.MIME...)
			b = append(b, ";base64,"...)
			b = base64.StdEncoding.AppendEncode(b, a.Data)
			b = append(b, `"}}`...)
		default:
			b = append(b, `,{"type":"file","file":{"filename":`...)
			b = jsonstr.Append(b, a.Name)
			b = append(b, `,"file_data":"data:application/pdf;base64,`...)
			b = base64.StdEncoding.AppendEncode(b, a.Data)
			b = append(b, `"}}`...)
		}
	}
	return append(b, ']')
}

// ollamaUser is a user message for /api/chat: images as base64 in
// "images", anything sent as text after the message's text.
func ollamaUser(m message.Message) ollamaMessage {
	om := ollamaMessage{Role: "user", Content: m.Content}
	for _, a := range m.Attachments {
		switch {
		case a.Kind == message.AttachImage && !sentAsText(a):
			om.Images = append(om.Images, base64.StdEncoding.EncodeToString(a.Data))
		case sentAsText(a):
			om.Content += "\n\n" + attachmentNote(a)
		default:
			// A PDF unprepared for a provider that takes no documents
			// (the agent sets Text or Missing first): said, not dropped.
			om.Content += "\n\n" + attachmentNote(message.Attachment{Name: a.Name, Missing: "this model takes no PDF documents"})
		}
	}
	return om
}

// CarriesImages reports whether msgs send an image as an image.
func CarriesImages(msgs []message.Message) bool {
	for _, m := range msgs {
		for _, a := range m.Attachments {
			if a.Kind == message.AttachImage && !sentAsText(a) {
				return true
			}
		}
	}
	return false
}

// imageRefusals are what servers answer (400) when a model takes no
// images (docs/providers.md, "Images and PDFs"): DeepSeek's
// deserializer ("unknown variant `image_url`, expected `text`"), OpenAI
// ("image_url is only supported by certain models"), vLLM ("is not a
// multimodal model"), llama.cpp ("image input is not supported"), Ollama
// ("does not support images"… "missing data required for image input").
var imageRefusals = []string{
	"unknown variant `image_url`",
	"image_url is only supported",
	"not a multimodal model",
	"image input is not supported",
	"do not support image",
	"does not support image",
	"missing data required for image input",
}

// ImagesRefused reports whether err is a provider's error saying the
// model takes no images (a 400; Ollama's /api/chat answers 500).
func ImagesRefused(err error) (string, bool) {
	status, msg := statusMessage(err)
	if status < 400 || !refusesImages(msg) {
		return "", false
	}
	return msg, true
}

// refusesImages reports whether an error message says the model takes no
// images.
func refusesImages(msg string) bool {
	low := strings.ToLower(msg)
	for _, r := range imageRefusals {
		if strings.Contains(low, strings.ToLower(r)) {
			return true
		}
	}
	return false
}
