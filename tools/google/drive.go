package google

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	drive "google.golang.org/api/drive/v3"

	"github.com/co-cli/co/lib/pdftext"
	"github.com/co-cli/co/tools"
)

// drivePageSize is how many files one page of search_drive_files shows.
const drivePageSize = 10

// maxPageWalk bounds the pages fetched to reach a page never shown.
const maxPageWalk = 10

// MaxReadBytes caps what read_drive_file returns.
const MaxReadBytes = 100 << 10

// SearchDriveFiles is search_drive_files. It keeps the page tokens of each
// query for the session, so page 2 continues where page 1 stopped, in a
// later turn too.
type SearchDriveFiles struct {
	a      *Account
	mu     sync.Mutex
	tokens map[string][]string // query → tokens[i] starts page i+2
}

// NewSearchDriveFiles makes search_drive_files over a.
func NewSearchDriveFiles(a *Account) *SearchDriveFiles {
	return &SearchDriveFiles{a: a, tokens: map[string][]string{}}
}

func (t *SearchDriveFiles) Name() string { return NameSearchDriveFiles }

func (t *SearchDriveFiles) Description() string {
	return "Search the user's Google Drive by file name and full text. Returns files with their id (for read_drive_file), type, modified time, owner and link, 10 per page. " +
		"When has_more is true and the user asks for more, call again with the same query and page+1."
}

func (t *SearchDriveFiles) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"query":{"type":"string","description":"Words to look for in file names and contents."},` +
		`"page":{"type":"integer","minimum":1,"description":"Page of results, from 1 (default 1)."}` +
		`},"required":["query"],"additionalProperties":false}`)
}

func (t *SearchDriveFiles) Class() tools.Class { return tools.ReadOnly }

// pageToken returns the known page and token from which page p can be
// reached: p itself when its token is known.
func (t *SearchDriveFiles) pageToken(q string, p int) (int, string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	known := t.tokens[q]
	switch {
	case p == 1 || len(known) == 0:
		return 1, ""
	case p-2 < len(known):
		return p, known[p-2]
	}
	return len(known) + 1, known[len(known)-1]
}

// remember stores the token that starts page p+1.
func (t *SearchDriveFiles) remember(q string, p int, next string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	known := t.tokens[q]
	switch {
	case p-1 < len(known):
		known[p-1] = next
	case p-1 == len(known):
		known = append(known, next)
	}
	t.tokens[q] = known
}

func (t *SearchDriveFiles) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		Query string `json:"query"`
		Page  int    `json:"page"`
	}
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	q := strings.TrimSpace(a.Query)
	if q == "" {
		return tools.Result{}, tools.Retryf("query is empty: give words to search for")
	}
	if a.Page < 1 {
		a.Page = 1
	}
	srv, err := t.a.Drive(ctx)
	if err != nil {
		return tools.Result{}, t.a.explain(svcDrive, "the search", err)
	}
	cur, tok := t.pageToken(q, a.Page)
	if a.Page-cur > maxPageWalk {
		return tools.Result{}, tools.Retryf("page %d is too far ahead: ask for page %d first", a.Page, cur+1)
	}
	for {
		call := srv.Files.List().Context(ctx).
			Q(driveQuery(q)).PageSize(drivePageSize).
			IncludeItemsFromAllDrives(true).SupportsAllDrives(true).
			Fields("nextPageToken", "files(id,name,mimeType,modifiedTime,webViewLink,ownedByMe,driveId,owners(displayName,emailAddress,me),permissions(type,role,emailAddress,domain))")
		if tok != "" {
			call = call.PageToken(tok)
		}
		res, err := call.Do()
		if err != nil {
			return tools.Result{}, t.a.explain(svcDrive, fmt.Sprintf("the search for %q", q), err)
		}
		if res.NextPageToken != "" {
			t.remember(q, cur, res.NextPageToken)
		}
		if cur == a.Page {
			return t.display(q, a.Page, res), nil
		}
		if res.NextPageToken == "" {
			return tools.Result{
				Display: fmt.Sprintf("No page %d for %q: the results end on page %d.", a.Page, q, cur),
				Meta:    map[string]any{"page": a.Page, "count": 0, "has_more": false},
			}, nil
		}
		cur, tok = cur+1, res.NextPageToken
	}
}

func (t *SearchDriveFiles) display(q string, page int, res *drive.FileList) tools.Result {
	hasMore := res.NextPageToken != ""
	meta := map[string]any{"page": page, "count": len(res.Files), "has_more": hasMore}
	if len(res.Files) == 0 {
		if page == 1 {
			return tools.Result{Display: fmt.Sprintf("No Drive files match %q.", q), Meta: meta}
		}
		return tools.Result{Display: fmt.Sprintf("No more Drive files match %q (page %d is empty).", q, page), Meta: meta}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Drive files matching %q (page %d):\n", q, page)
	loc := t.a.cfg.location()
	for i, f := range res.Files {
		fmt.Fprintf(&b, "%d. %s — %s\n", (page-1)*drivePageSize+i+1, f.Name, kindOf(f.MimeType))
		line := "   id: " + f.Id
		if m, err := time.Parse(time.RFC3339, f.ModifiedTime); err == nil {
			line += " · modified " + m.In(loc).Format("2006-01-02 15:04")
		}
		if len(f.Owners) > 0 {
			line += " · owner " + ownerName(f.Owners[0])
		}
		b.WriteString(line + "\n")
		if f.WebViewLink != "" {
			b.WriteString("   " + f.WebViewLink + "\n")
		}
	}
	if hasMore {
		fmt.Fprintf(&b, "More results: page %d.\n", page+1)
	}
	return tools.Result{Display: strings.TrimRight(b.String(), "\n"), Meta: meta, Origins: listingOrigins(res.Files)}
}

// driveQuery is the Drive query for words in names or contents.
func driveQuery(q string) string {
	esc := strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(q)
	return fmt.Sprintf("(name contains '%s' or fullText contains '%s') and trashed = false", esc, esc)
}

func ownerName(u *drive.User) string {
	switch {
	case u.DisplayName != "" && u.EmailAddress != "":
		return u.DisplayName + " <" + u.EmailAddress + ">"
	case u.DisplayName != "":
		return u.DisplayName
	}
	return u.EmailAddress
}

// Google's own file types.
const (
	mimeDoc      = "application/vnd.google-apps.document"
	mimeSheet    = "application/vnd.google-apps.spreadsheet"
	mimeSlides   = "application/vnd.google-apps.presentation"
	mimeFolder   = "application/vnd.google-apps.folder"
	mimeShortcut = "application/vnd.google-apps.shortcut"
	mimeApps     = "application/vnd.google-apps."
)

func kindOf(mime string) string {
	switch mime {
	case mimeDoc:
		return "Google Doc"
	case mimeSheet:
		return "Google Sheet"
	case mimeSlides:
		return "Google Slides"
	case mimeFolder:
		return "folder"
	case mimeShortcut:
		return "shortcut"
	case "application/pdf":
		return "PDF"
	}
	if strings.HasPrefix(mime, mimeApps) {
		return "Google " + strings.TrimPrefix(mime, mimeApps)
	}
	return mime
}

// exportAs is the text format a Google file is exported in.
func exportAs(mime string) (string, string, bool) {
	switch mime {
	case mimeDoc:
		return "text/plain", "exported as plain text", true
	case mimeSheet:
		return "text/csv", "exported as CSV: the first sheet only", true
	case mimeSlides:
		return "text/plain", "exported as plain text", true
	}
	return "", "", false
}

// ReadDriveFile is read_drive_file.
type ReadDriveFile struct{ a *Account }

// NewReadDriveFile makes read_drive_file over a.
func NewReadDriveFile(a *Account) *ReadDriveFile { return &ReadDriveFile{a: a} }

func (t *ReadDriveFile) Name() string { return NameReadDriveFile }

func (t *ReadDriveFile) Description() string {
	return fmt.Sprintf("Read a Google Drive file by id (from search_drive_files). Google Docs and Slides come as plain text, Sheets as CSV (first sheet), PDFs as their text page by page, other text files as they are; at most %d KB, with a note when cut.", MaxReadBytes>>10)
}

func (t *ReadDriveFile) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"file_id":{"type":"string","description":"The file's id, as search_drive_files shows it."}` +
		`},"required":["file_id"],"additionalProperties":false}`)
}

func (t *ReadDriveFile) Class() tools.Class { return tools.ReadOnly }

func (t *ReadDriveFile) Run(ctx context.Context, raw json.RawMessage) (tools.Result, error) {
	var a struct {
		FileID string `json:"file_id"`
	}
	if err := tools.Decode(t.Name(), raw, &a); err != nil {
		return tools.Result{}, err
	}
	id := strings.TrimSpace(a.FileID)
	if id == "" || strings.ContainsAny(id, "/?# ") {
		return tools.Result{}, tools.Retryf("file_id %q is not a Drive file id: use an id from search_drive_files", a.FileID)
	}
	srv, err := t.a.Drive(ctx)
	if err != nil {
		return tools.Result{}, t.a.explain(svcDrive, "the file", err)
	}
	what := "file " + id
	f, err := t.meta(ctx, srv, id)
	if err != nil {
		return tools.Result{}, t.a.explain(svcDrive, what, err)
	}
	// Every result from here on shows a name or content of the file (and
	// of the shortcut to it): its origins go with errors too.
	var origins []tools.Origin
	from := func(f *drive.File) {
		if o, ok := fileOrigin(f); ok {
			origins = addOrigin(origins, o)
		}
	}
	from(f)
	if f.MimeType == mimeShortcut && f.ShortcutDetails != nil && f.ShortcutDetails.TargetId != "" {
		what = "the target of shortcut " + f.Name
		if f, err = t.meta(ctx, srv, f.ShortcutDetails.TargetId); err != nil {
			return tools.Result{Origins: origins}, t.a.explain(svcDrive, what, err)
		}
		from(f)
	}
	what = fmt.Sprintf("%q", f.Name)
	fail := func(err error) (tools.Result, error) { return tools.Result{Origins: origins}, err }

	var resp *http.Response
	how := ""
	if export, note, ok := exportAs(f.MimeType); ok {
		how = note
		resp, err = srv.Files.Export(f.Id, export).Context(ctx).Download()
	} else {
		switch {
		case f.MimeType == mimeFolder:
			return fail(tools.Retryf("%s is a folder, not a file: search for the files in it with search_drive_files", what))
		case strings.HasPrefix(f.MimeType, mimeApps):
			return fail(tools.Retryf("%s is a %s, which cannot be read as text; its link is %s", what, kindOf(f.MimeType), f.WebViewLink))
		case tools.IsPDF(f.MimeType, nil):
			return t.readPDF(ctx, srv, f, what, origins)
		case binaryMime(f.MimeType):
			return binaryResult(f, origins), nil
		}
		resp, err = srv.Files.Get(f.Id).SupportsAllDrives(true).Context(ctx).Download()
	}
	if err != nil {
		return fail(t.a.explain(svcDrive, what, err))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxReadBytes+1))
	if err != nil {
		return fail(fmt.Errorf("reading %s from Google Drive: %w", what, err))
	}
	// Google's text exports start with a byte order mark.
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	if how == "" && looksBinary(data) {
		return binaryResult(f, origins), nil
	}
	cut := len(data) > MaxReadBytes
	if cut {
		data = trimPartialRune(data[:MaxReadBytes])
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s", f.Name, kindOf(f.MimeType))
	if how != "" {
		b.WriteString(", " + how)
	}
	b.WriteString(")")
	if f.WebViewLink != "" {
		b.WriteString(" — " + f.WebViewLink)
	}
	b.WriteString("\n\n")
	b.Write(data)
	res := tools.Result{Origins: origins}
	if cut {
		size := "more"
		if f.Size > 0 {
			size = tools.Size(f.Size)
		}
		fmt.Fprintf(&b, "\n\n[cut: this shows the first %d KB of %s; open the link for the rest]", MaxReadBytes>>10, size)
		res.Meta = map[string]any{"truncated": true}
	}
	res.Display = b.String()
	return res, nil
}

// readPDF returns the text of a PDF on Drive (lib/pdftext), at most
// MaxReadBytes characters of it; one it cannot read says why.
func (t *ReadDriveFile) readPDF(ctx context.Context, srv *drive.Service, f *drive.File, what string, origins []tools.Origin) (tools.Result, error) {
	if f.Size > tools.MaxMediaBytes {
		return tools.Result{Display: fmt.Sprintf("%s (PDF, %s) is larger than the %s co reads. Open it in the browser: %s", f.Name, tools.Size(f.Size), tools.Size(tools.MaxMediaBytes), f.WebViewLink), Origins: origins}, nil
	}
	resp, err := srv.Files.Get(f.Id).SupportsAllDrives(true).Context(ctx).Download()
	if err != nil {
		return tools.Result{Origins: origins}, t.a.explain(svcDrive, what, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, tools.MaxMediaBytes+1))
	if err != nil {
		return tools.Result{Origins: origins}, fmt.Errorf("reading %s from Google Drive: %w", what, err)
	}
	if len(data) > tools.MaxMediaBytes {
		return tools.Result{Display: fmt.Sprintf("%s (PDF) is larger than the %s co reads. Open it in the browser: %s", f.Name, tools.Size(tools.MaxMediaBytes), f.WebViewLink), Origins: origins}, nil
	}
	text, truncated, err := pdftext.Extract(data, MaxReadBytes)
	if err != nil {
		return tools.Result{Display: fmt.Sprintf("%s (PDF, %s): its text could not be read: %v. Open it in the browser: %s", f.Name, tools.Size(int64(len(data))), err, f.WebViewLink), Origins: origins}, nil
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (PDF, %s, its text page by page)", f.Name, tools.Size(int64(len(data))))
	if f.WebViewLink != "" {
		b.WriteString(" — " + f.WebViewLink)
	}
	b.WriteString("\n\n" + text)
	res := tools.Result{Origins: origins}
	if truncated {
		fmt.Fprintf(&b, "\n\n[cut: this shows the first %d characters of its text; open the link for the rest]", MaxReadBytes)
		res.Meta = map[string]any{"truncated": true}
	}
	res.Display = b.String()
	return res, nil
}

func (t *ReadDriveFile) meta(ctx context.Context, srv *drive.Service, id string) (*drive.File, error) {
	return srv.Files.Get(id).SupportsAllDrives(true).Context(ctx).
		Fields("id", "name", "mimeType", "size", "webViewLink", "shortcutDetails", fileFields).Do()
}

func binaryMime(m string) bool {
	for _, p := range []string{"image/", "video/", "audio/", "font/"} {
		if strings.HasPrefix(m, p) {
			return true
		}
	}
	switch m {
	case "application/pdf", "application/zip", "application/gzip", "application/octet-stream",
		"application/vnd.openxmlformats-officedocument.wordprocessingml.document",
		"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
		"application/vnd.openxmlformats-officedocument.presentationml.presentation",
		"application/msword", "application/vnd.ms-excel", "application/vnd.ms-powerpoint":
		return true
	}
	return false
}

// looksBinary reports whether downloaded bytes are not text: a NUL byte,
// or invalid UTF-8, in the first 8 KB.
func looksBinary(data []byte) bool {
	head := data
	if len(head) > 8<<10 {
		head = head[:8<<10]
	}
	head = trimPartialRune(head)
	return bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(head)
}

// trimPartialRune drops a rune cut in two at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := 1; i <= utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}

func binaryResult(f *drive.File, origins []tools.Origin) tools.Result {
	size := ""
	if f.Size > 0 {
		size = ", " + tools.Size(f.Size)
	}
	return tools.Result{Display: fmt.Sprintf("%s (%s%s) is not a text file, so co cannot show its contents. Open it in the browser: %s", f.Name, kindOf(f.MimeType), size, f.WebViewLink),
		Origins: origins}
}
