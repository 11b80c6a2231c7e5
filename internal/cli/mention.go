package cli

import (
	"context"
	"time"

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
