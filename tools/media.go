package tools

import (
	"bytes"
	"fmt"
	"image"
	_ "image/gif" // image.DecodeConfig reads GIF, JPEG and PNG headers
	_ "image/jpeg"
	_ "image/png"
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/co-cli/co/lib/pdftext"
)

// Media fetched from outside (a web_fetch of a PDF or an image, a Drive
// file, a mail attachment) is untrusted content like a page: the tool that
// read it returns it with its Origins. A PDF becomes its text (a model reads
// text, and the text is what could steer it); an image becomes a line
// describing it, never its pixels.

// MaxMediaBytes is the most of a fetched PDF read: pdftext's own limit.
const MaxMediaBytes = pdftext.MaxBytes

// IsPDF says whether a media type, or the data's first bytes when the type
// says nothing (application/octet-stream), is a PDF.
func IsPDF(mt string, head []byte) bool {
	return mt == "application/pdf" || mt == "application/x-pdf" || bytes.HasPrefix(head, []byte("%PDF-"))
}

// MediaType is mt, or what data sniffs as when mt is empty or generic.
func MediaType(mt string, data []byte) string {
	if (mt == "" || mt == "application/octet-stream" || mt == "binary/octet-stream") && len(data) > 0 {
		if bytes.HasPrefix(data, []byte("%PDF-")) {
			return "application/pdf"
		}
		return strings.TrimSuffix(strings.Split(http.DetectContentType(data), ";")[0], " ")
	}
	return mt
}

// DescribeImage is the line an image fetched from outside becomes: its
// type, size and dimensions (GIF, JPEG and PNG headers are read) and where
// it came from. size < 0: unknown.
func DescribeImage(data []byte, mt string, size int64, source string) string {
	parts := []string{mt}
	if size >= 0 {
		parts = append(parts, Size(size))
	}
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(data)); err == nil {
		parts = append(parts, fmt.Sprintf("%d×%d pixels", cfg.Width, cfg.Height))
	}
	return fmt.Sprintf("(image from %s: %s; its pixels are not shown to the model, only this description)", CleanLabel(source), strings.Join(parts, ", "))
}

// PDFText is what a PDF fetched from outside becomes: a line naming it and
// then its text, at most maxChars characters of it. When the text cannot be
// read (encrypted, scanned, malformed), the line says why and what to do.
func PDFText(data []byte, size int64, source string, maxChars int) (text string, truncated bool) {
	head := fmt.Sprintf("PDF from %s (%s)", CleanLabel(source), Size(size))
	body, truncated, err := pdftext.Extract(data, maxChars)
	if err != nil {
		return fmt.Sprintf("(%s: its text could not be read: %v)", head, err), false
	}
	text = "[" + head + ", its text follows]\n\n" + body
	if truncated && utf8.RuneCountInString(body) >= maxChars {
		text += fmt.Sprintf("\n[truncated: showed %d characters of the PDF's text; ask again with a larger max_chars to see more]", maxChars)
	}
	return text, truncated
}
