package mention

import (
	"bytes"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/co-cli/co/lib/media"
	"github.com/co-cli/co/message"
)

// mediaWorkspace is workspace with images and PDFs: a file whose content
// is one is attached as message.Attachment (as internal/cli's source does).
type mediaWorkspace struct {
	workspace
	dir string
}

func (s mediaWorkspace) MediaPath(p string) (string, bool) {
	full := filepath.Join(s.dir, p)
	b, err := os.ReadFile(full)
	if err != nil {
		return "", false
	}
	if k, _ := media.Sniff(b); k == "" {
		return "", false
	}
	return full, true
}

func (mediaWorkspace) ReadMedia(abs string) (message.Attachment, error) {
	return message.ReadAttachment(abs)
}

func pngBytes(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, 3, 2))); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// An @path whose content is an image or a PDF goes as itself, not as
// text; text files are inlined as before; "see @a.png." names a.png; each
// file once.
func TestExpandAttachesImagesAsThemselves(t *testing.T) {
	w, dir := newWorkspace(t, map[string]string{"a.png": pngBytes(t), "doc.pdf": "%PDF-1.4\n%%EOF\n", "n.txt": "note\n"})
	src := mediaWorkspace{w, dir}
	x := Expand(src, "see @a.png. and @doc.pdf with @n.txt and @a.png again")
	if len(x.Media) != 2 || x.Media[0].Name != "a.png" || x.Media[0].Width != 3 || x.Media[1].Kind != message.AttachPDF {
		t.Fatalf("media = %+v", x.Media)
	}
	if len(x.Attached) != 1 || x.Attached[0].Path != "n.txt" || len(x.Problems) != 0 {
		t.Fatalf("attached %+v, problems %q", x.Attached, x.Problems)
	}
	if strings.Contains(x.Prompt, "PNG") || !strings.HasPrefix(x.Prompt, "see @a.png. and @doc.pdf") {
		t.Fatalf("prompt = %q", x.Prompt)
	}
	// Without a MediaSource an image is what it was: a binary file refused.
	y := Expand(w, "see @a.png")
	if len(y.Media) != 0 || len(y.Problems) != 1 || !strings.Contains(y.Problems[0], "binary") {
		t.Fatalf("plain source: %+v", y)
	}
}
