package cli

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/co-cli/co/lib/media"
	"github.com/co-cli/co/message"

	"github.com/co-cli/co/tools/files"
	"github.com/co-cli/co/ui/mention"
)

// mentionListTimeout bounds one listing of the workspace for @ completion
// (a huge tree, a slow network mount): what was listed by then is offered.
const mentionListTimeout = 5 * time.Second

// mentionSource is the workspace as the chat's @path mentions see it: the
// file tools' walker and read_file's bounds (tools/files).
type mentionSource struct{ w *files.Workspace }

func (s mentionSource) Files() ([]string, bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), mentionListTimeout)
	defer cancel()
	f, more, err := s.w.Files(ctx, files.MaxMentionFiles)
	if err != nil && ctx.Err() != nil {
		return f, true, nil // the files listed in time
	}
	return f, more, err
}

func (s mentionSource) Attach(p string, maxChars int) (mention.Attachment, error) {
	a, err := s.w.Attach(p, maxChars)
	if err != nil {
		return mention.Attachment{}, err
	}
	return mention.Attachment{Path: a.Path, Text: a.Text, Lines: a.Lines, Shown: a.Shown, Truncated: a.Truncated}, nil
}

// mentions is the chat's source of @path attachments; nil without a
// workspace.
func (c *chat) mentions() mention.Source {
	if c.Files == nil {
		return nil
	}
	return mentionSource{c.Files}
}

// MediaPath finds an @path that is an image or a PDF, by its content.
// Unlike text, such a file may be outside the workspace (a screenshot in
// ~/Pictures, @/tmp/shot.png): it is the user's own, typed by the user,
// and what is sent is that file, named in the transcript. A relative path
// is the workspace's.
func (s mentionSource) MediaPath(p string) (string, bool) {
	return mediaPath(s.w.Dir(), p)
}

// ReadMedia reads the image or PDF MediaPath found.
func (mentionSource) ReadMedia(abs string) (message.Attachment, error) {
	return message.ReadAttachment(abs)
}

// mediaPath is p (relative to dir, absolute, or ~/…) when it is an image
// or a PDF by its first bytes; ok is false for anything else, a missing
// file included.
func mediaPath(dir, p string) (string, bool) {
	path := p
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		home, err := os.UserHomeDir()
		if err != nil {
			return "", false
		}
		path = filepath.Join(home, rest)
	} else if !filepath.IsAbs(p) {
		path = filepath.Join(dir, p)
	}
	// Only a regular file is opened: a FIFO would block the open.
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return "", false
	}
	f, err := os.Open(path)
	if err != nil {
		return "", false
	}
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	f.Close()
	if kind, _ := media.Sniff(head[:n]); kind == "" {
		return "", false
	}
	return path, true
}
