package cli

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/co-cli/co/config"
	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/lib/redact"
	"github.com/co-cli/co/sessions"
	"github.com/co-cli/co/ui/export"
	"github.com/co-cli/co/ui/slash"
)

// exportSession is session id of st in format f, its secrets redacted as
// the span store redacts them (the settings' secrets, MCP servers' and
// logins' tokens, and the shapes of keys and tokens).
func exportSession(st *sessions.Store, l *config.Loaded, id string, f export.Format) ([]byte, error) {
	red := redact.NewRedactor(app.SpanSecrets(l))
	d, err := st.Export(id, red.String)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := export.Write(&b, d, f); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func newSessionsExportCmd(s env) *cobra.Command {
	var format, out string
	cmd := &cobra.Command{
		Use:   "export ID",
		Short: "Write a saved session as Markdown (default), JSON or a self-contained HTML page",
		Long: `co sessions export ID writes saved session ID (a unique id prefix is enough) to
standard output, or to FILE with -o: --format md (default) a readable
transcript, json every message, tool call and result (what co sessions import
reads back), html one page that needs no network. Secrets are redacted,
attachments named and not included, content from outside marked untrusted.`,
		Args:              usageArgs(cobra.ExactArgs(1)),
		ValidArgsFunction: oneArg(completeSessionIDs),
		RunE: func(_ *cobra.Command, args []string) error {
			f, err := export.ParseFormat(format)
			if err != nil {
				return err
			}
			l, err := loadConfig(s)
			if err != nil {
				return err
			}
			st, err := app.OpenSessions(l)
			if err != nil {
				return err
			}
			defer st.Close()
			info, err := st.Find(args[0])
			if err != nil {
				return err
			}
			b, err := exportSession(st, l, info.ID, f)
			if err != nil {
				return err
			}
			if out == "" || out == "-" {
				_, err = s.Out.Write(b)
				return err
			}
			if err := os.WriteFile(out, b, 0o600); err != nil {
				return err
			}
			fmt.Fprintf(s.Out, "Exported session %s (%s) to %s.\n", info.ID, cell(info.Title), cell(out))
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "md", "`FORMAT`: md, json or html")
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to `FILE` instead of standard output")
	return cmd
}

func newSessionsImportCmd(s env) *cobra.Command {
	return &cobra.Command{
		Use:   "import FILE",
		Short: "Save a session exported as JSON (co sessions export --format json) as a new session",
		Long: `co sessions import FILE saves the session in FILE, written by
co sessions export --format json, as a new saved session of this workspace
and prints its id: co --resume ID or co run --resume ID continues it.`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(_ *cobra.Command, args []string) error {
			b, err := os.ReadFile(args[0])
			if err != nil {
				return err
			}
			d, err := sessions.ParseExport(b)
			if err != nil {
				return fmt.Errorf("%s: %w", args[0], err)
			}
			st, ws, err := storeForCommand(s)
			if err != nil {
				return err
			}
			defer st.Close()
			id, err := st.Import(d, ws)
			if err != nil {
				return err
			}
			fmt.Fprintf(s.Out, "Imported %s as session %s (%s): co --resume %s continues it.\n", cell(args[0]), id, cell(d.Session.Title), id)
			return nil
		},
	}
}

// exportSlash is /export [md|json|html] [FILE]: the chat's saved session
// written to FILE in the workspace (default co-session-ID.FORMAT), never
// over an existing file.
func exportSlash(a *app.App, arg string) slash.Result {
	if a.Sessions == nil {
		return slash.Result{Output: "sessions are not being saved in this chat: there is nothing to export", Err: true}
	}
	fields := strings.Fields(arg)
	f, given := export.Markdown, false
	if len(fields) > 0 {
		if g, err := export.ParseFormat(fields[0]); err == nil {
			f, fields, given = g, fields[1:], true
		} else if len(fields) > 1 {
			return slash.Result{Output: err.Error() + " (/export [md|json|html] [FILE])", Err: true}
		}
	}
	if len(fields) > 1 {
		return slash.Result{Output: fmt.Sprintf("one file name only, got %d (/export [md|json|html] [FILE])", len(fields)), Err: true}
	}
	id := a.Agent.SessionID()
	info, err := a.Sessions.Find(id)
	if id == "" || err != nil || info.ID != id {
		return slash.Result{Output: "This chat is not saved yet: it is once you send a message.", Err: true}
	}
	name := export.FileName(id, f)
	if len(fields) == 1 {
		name = fields[0]
		if g, err := export.ParseFormat(strings.TrimPrefix(filepath.Ext(name), ".")); !given && err == nil && filepath.Ext(name) != "" {
			f = g // /export notes.html
		}
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(a.Workspace, path)
	}
	path = filepath.Clean(path)
	if rel, err := filepath.Rel(a.Workspace, path); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return slash.Result{Output: fmt.Sprintf("%s is outside the workspace; /export writes in it (co sessions export %s -o PATH writes anywhere)", cell(name), id), Err: true}
	}
	b, err := exportSession(a.Sessions, a.Config, id, f)
	if err != nil {
		return slash.Result{Output: err.Error(), Err: true}
	}
	fh, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return slash.Result{Output: fmt.Sprintf("%s exists: give another file name (/export %s FILE)", cell(path), f), Err: true}
	}
	if err != nil {
		return slash.Result{Output: err.Error(), Err: true}
	}
	_, err = fh.Write(b)
	if cerr := fh.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return slash.Result{Output: err.Error(), Err: true}
	}
	return slash.Result{Output: fmt.Sprintf("Exported this session (%s) to %s.", id, cell(path))}
}
