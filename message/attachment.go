package message

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/co-cli/co/lib/media"
)

// AttachKind is what an attachment is.
type AttachKind string

const (
	AttachImage AttachKind = media.Image
	AttachPDF   AttachKind = media.PDF
)

// MaxPerMessage is the most images and PDFs one message attaches.
const MaxPerMessage = 10

// MaxAttachBytes is the largest file co attaches: an image larger than a
// provider takes is scaled down, but a file this large is refused first.
const MaxAttachBytes = 50 << 20

// Attachment is an image or PDF a user message carries. Sessions save it
// by reference (path, hash, size, type, dimensions), never its bytes:
// Data is held in memory only, and read again from Path when a resumed
// conversation is sent.
type Attachment struct {
	Kind   AttachKind `json:"kind"`
	Name   string     `json:"name"` // the file's base name
	Path   string     `json:"path"` // absolute
	MIME   string     `json:"mime"`
	Size   int64      `json:"size"`
	Width  int        `json:"width,omitempty"`
	Height int        `json:"height,omitempty"`
	SHA256 string     `json:"sha256"`

	// Data is the file's bytes, while in memory.
	Data []byte `json:"-"`
	// Missing, when set, says why the file could not be read again (gone,
	// changed): the model gets that sentence instead of the file.
	Missing string `json:"-"`
	// Text, when set, is what the model gets instead of the file: a PDF's
	// text for a provider that takes no documents.
	Text string `json:"-"`
}

// ReadAttachment reads the image or PDF at path, found by its content:
// anything else is an error saying what the file is.
func ReadAttachment(path string) (Attachment, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return Attachment{}, err
	}
	fi, err := os.Stat(abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return Attachment{}, fmt.Errorf("%s: no such file", path)
	case err != nil:
		return Attachment{}, err
	case fi.IsDir():
		return Attachment{}, fmt.Errorf("%s is a directory, not a file", path)
	case !fi.Mode().IsRegular():
		return Attachment{}, fmt.Errorf("%s is not a regular file (%s)", path, fi.Mode().Type())
	case fi.Size() > MaxAttachBytes:
		return Attachment{}, fmt.Errorf("%s is %s; co attaches files of at most %s", path, FormatBytes(fi.Size()), FormatBytes(MaxAttachBytes))
	}
	f, err := os.Open(abs)
	if err != nil {
		return Attachment{}, err
	}
	defer f.Close()
	// The size was read before the file was opened: a file that grew
	// since (a download still being written) is cut off by the read.
	data, err := readAtMost(f, MaxAttachBytes)
	if err != nil {
		return Attachment{}, fmt.Errorf("%s: %w", path, err)
	}
	return NewAttachment(abs, data)
}

// readAtMost reads r whole, refusing more than limit bytes.
func readAtMost(r io.Reader, limit int64) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("it grew past %s while it was read; co attaches files of at most %s: attach it once it is complete", FormatBytes(limit), FormatBytes(limit))
	}
	return data, nil
}

// NewAttachment describes data, the content of the file at path (absolute).
func NewAttachment(path string, data []byte) (Attachment, error) {
	kind, mime := media.Sniff(data)
	if kind == "" {
		return Attachment{}, fmt.Errorf("%s is not an image (PNG, JPEG, GIF, WebP) or a PDF: its content is %s", path, mime)
	}
	sum := sha256.Sum256(data)
	a := Attachment{Kind: AttachKind(kind), Name: filepath.Base(path), Path: path, MIME: mime,
		Size: int64(len(data)), SHA256: hex.EncodeToString(sum[:]), Data: data}
	if a.Kind == AttachImage {
		w, h, err := media.Size(data)
		if err != nil {
			return Attachment{}, fmt.Errorf("%s: %w", path, err)
		}
		a.Width, a.Height = w, h
	}
	return a, nil
}

// Reload reads a saved attachment's file again: the copy with Data set,
// or with Missing saying why the file is not what was attached (gone, or
// changed: its hash differs).
func (a Attachment) Reload() Attachment {
	if fi, err := os.Stat(a.Path); err == nil && !fi.Mode().IsRegular() {
		a.Missing = fmt.Sprintf("%s is no longer a regular file (%s)", a.Name, a.Path)
		return a
	}
	data, err := os.ReadFile(a.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		a.Missing = fmt.Sprintf("%s is gone (it was at %s when attached)", a.Name, a.Path)
		return a
	case err != nil:
		a.Missing = fmt.Sprintf("%s cannot be read again: %v", a.Name, err)
		return a
	}
	sum := sha256.Sum256(data)
	if hex.EncodeToString(sum[:]) != a.SHA256 {
		a.Missing = fmt.Sprintf("%s has changed since it was attached (%s: its SHA-256 differs)", a.Name, a.Path)
		return a
	}
	a.Data, a.Missing = data, ""
	return a
}

// Summary describes an attachment for the user: "shot.png (image,
// 1.2 MB, 1920×1080)", "report.pdf (PDF, 88 KB)".
func (a Attachment) Summary() string {
	if a.Kind == AttachImage {
		return fmt.Sprintf("%s (image, %s, %d×%d)", a.Name, FormatBytes(a.Size), a.Width, a.Height)
	}
	return fmt.Sprintf("%s (PDF, %s)", a.Name, FormatBytes(a.Size))
}

// FormatBytes writes a size as people read it: 512 B, 88 KB, 1.2 MB.
func FormatBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KB", (n+1<<9)>>10)
	default:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	}
}
