// Package pdftext turns a PDF into plain text for a model that takes no PDF
// documents, and for PDFs fetched from outside (web, mail, Drive), whose
// text enters the conversation as untrusted content. Parsing is
// github.com/ledongthuc/pdf's; this package puts the glyphs it reports into
// lines in content order, page by page, and bounds the work a hostile file
// can cause (bytes, objects, pages, decompressed content, characters).
// What the parser does and does not: docs/SOURCES.md#pdf-text-what-the-parser-does-and-does-not.
package pdftext

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/ledongthuc/pdf"
)

// Limits bound what one Extract may read and do. They are counts, never
// clock time, so the same file gives the same answer on a busy machine.
const (
	// MaxBytes is the largest PDF read at all.
	MaxBytes = 32 << 20
	// MaxPages is the most pages whose text is extracted; the rest are
	// reported as cut.
	MaxPages = 500
	// MaxObjects is the most objects a PDF may declare (its cross-reference
	// /Size or subsection): a table sized by a lying header is the cheapest
	// memory bomb.
	MaxObjects = 2_000_000
	// MaxPageContent is the most bytes one page's content may expand to
	// once decompressed; MaxContent the most for the whole file.
	MaxPageContent = 16 << 20
	MaxContent     = 128 << 20
	// maxTreeNodes bounds the walk of the page tree (a tree whose kids
	// point back at themselves would never end); maxDepth its depth.
	maxTreeNodes = 20_000
	maxDepth     = 64
)

// Errors a caller may tell apart with errors.Is.
var (
	ErrNotPDF    = errors.New("not a PDF")
	ErrEncrypted = errors.New("encrypted PDF")
	ErrNoText    = errors.New("no text layer")
	ErrTooLarge  = errors.New("PDF over co's limits")
	ErrMalformed = errors.New("malformed PDF")
)

// Extract returns the text of the PDF in data, page by page in content
// order, each page under a "--- page N ---" line, at most maxRunes
// characters (maxRunes <= 0: no cut but the limits above). truncated says
// that the text was cut (by maxRunes or MaxPages). Control characters and
// escape sequences in the PDF's text are removed; a caller showing the text
// in a terminal still passes it through lib/safe.
//
// The errors say what was wrong and what the user can do: not a PDF, an
// encrypted PDF, a scanned PDF with no text layer, a PDF over the limits, a
// malformed one.
func Extract(data []byte, maxRunes int) (text string, truncated bool, err error) {
	encrypted := false
	if len(data) > MaxBytes {
		return "", false, fmt.Errorf("%w: the file is %d bytes, more than the %d MiB co reads; split it or extract the pages you need", ErrTooLarge, len(data), MaxBytes>>20)
	}
	if !bytes.HasPrefix(data, []byte("%PDF-")) {
		return "", false, fmt.Errorf("%w: the data does not start with %%PDF- (%s)", ErrNotPDF, sniff(data))
	}
	if err := checkDeclaredObjects(data); err != nil {
		return "", false, err
	}
	defer func() {
		// The parser reports malformed input by panicking, and not all of
		// its panics are recovered inside it.
		if r := recover(); r == (tooMuchWork{}) {
			text, truncated, err = "", false, fmt.Errorf("%w: decoding its text takes more than %d steps (a PDF built to be slow?)", ErrTooLarge, maxWork)
		} else if r != nil {
			text, truncated, err = "", false, fmt.Errorf("%w: %v; if it opens in a PDF viewer, print it to a new PDF and try that", ErrMalformed, r)
		}
		if err != nil && encrypted && errors.Is(err, ErrMalformed) {
			// Opened with the empty password, but its content did not
			// decrypt: the parser's decryption is weak (RC4/AES only).
			err = fmt.Errorf("%w: it is encrypted and co could not decrypt its content (%v); print or save it as an unprotected PDF and use that", ErrEncrypted, err)
		}
	}()
	r, err := open(data)
	if err != nil {
		return "", false, err
	}
	encrypted = !r.Trailer().Key("Encrypt").IsNull()
	return extract(r, maxRunes)
}

func open(data []byte) (*pdf.Reader, error) {
	if bytes.HasPrefix(data, []byte("%PDF-2.")) {
		// The parser accepts headers %PDF-1.0 to 1.7 only; PDF 2.0's syntax
		// is the same for reading text. Same length: no offset moves.
		data = append([]byte("%PDF-1.7"), data[8:]...)
	}
	r, err := pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	switch {
	case err == nil:
		return r, nil
	case errors.Is(err, pdf.ErrInvalidPassword):
		return nil, fmt.Errorf("%w: it needs a password to open; open it with the password and save or print an unprotected copy, then use that", ErrEncrypted)
	case strings.Contains(err.Error(), "encryption"):
		return nil, fmt.Errorf("%w: %v; save or print an unprotected copy and use that", ErrEncrypted, err)
	}
	return nil, fmt.Errorf("%w: %v; if it opens in a PDF viewer, print it to a new PDF and try that", ErrMalformed, err)
}

// declared finds the object counts a PDF declares: a /Size, or a
// cross-reference subsection's header (start count, then a first entry).
// Compiled on first use: every co process links this package.
var declared = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`/Size\s+(\d+)|(?m)^\s*(\d+)\s+(\d+)\s*[\r\n]+\s*\d{10}\s+\d{5}\s+[fn]`)
})

// checkDeclaredObjects refuses a PDF whose cross-reference section declares
// more objects than MaxObjects: the parser sizes its table from it.
func checkDeclaredObjects(data []byte) error {
	for _, m := range declared().FindAllSubmatch(data, -1) {
		var n uint64
		if m[1] != nil {
			n = parseCount(m[1])
		} else {
			n = parseCount(m[2]) + parseCount(m[3])
		}
		if n > MaxObjects {
			return fmt.Errorf("%w: it declares %s objects, more than the %d co reads (a damaged file or a PDF bomb)", ErrTooLarge, numText(m), MaxObjects)
		}
	}
	return nil
}

// parseCount reads a decimal count; one too large to read is too large.
func parseCount(b []byte) uint64 {
	n, err := strconv.ParseUint(string(b), 10, 32)
	if err != nil {
		return math.MaxUint32
	}
	return n
}

func numText(m [][]byte) string {
	if m[1] != nil {
		return string(m[1])
	}
	return string(m[2]) + "+" + string(m[3])
}

func extract(r *pdf.Reader, maxRunes int) (string, bool, error) {
	pages, more, err := walkPages(r)
	if err != nil {
		return "", false, err
	}
	var out strings.Builder
	runes, contentLeft, texted := 0, MaxContent, 0
	work := &budget{left: maxWork}
	truncated := more
	// Every page's content is measured before any is parsed: a bomb is
	// refused at the cost of decompressing, never of parsing, it.
	for i, p := range pages {
		n, err := contentSize(p, min(contentLeft, MaxPageContent))
		if err != nil && contentLeft < MaxPageContent {
			return "", false, fmt.Errorf("%w: its pages' content expands to more than %d MiB in all (a PDF bomb?)", ErrTooLarge, MaxContent>>20)
		}
		if err != nil {
			return "", false, fmt.Errorf("page %d: %w", i+1, err)
		}
		contentLeft -= n
	}
	for i, p := range pages {
		body := pageText(p, work)
		if strings.TrimSpace(body) != "" {
			texted++
		}
		chunk := fmt.Sprintf("--- page %d ---\n%s\n", i+1, body)
		if i > 0 {
			chunk = "\n" + chunk
		}
		if c := utf8.RuneCountInString(chunk); maxRunes > 0 && runes+c > maxRunes {
			out.WriteString(cutRunes(chunk, maxRunes-runes))
			truncated = true
			break
		} else {
			runes += c
		}
		out.WriteString(chunk)
	}
	if texted == 0 {
		return "", false, fmt.Errorf("%w: this PDF has no text layer (%d page(s) of images, likely scanned); co does not read text in images (OCR) — run it through OCR (e.g. ocrmypdf) or send it to a model that takes PDFs or images", ErrNoText, len(pages))
	}
	if more {
		fmt.Fprintf(&out, "\n[only the first %d pages were read]\n", MaxPages)
	}
	return out.String(), truncated, nil
}

// walkPages lists the pages in order, refusing a tree that loops or is too
// deep, and keeping at most MaxPages (more says there were others).
func walkPages(r *pdf.Reader) (pages []pdf.Page, more bool, err error) {
	nodes := 0
	var walk func(v pdf.Value, depth int) error
	walk = func(v pdf.Value, depth int) error {
		nodes++
		if nodes > maxTreeNodes || depth > maxDepth {
			return fmt.Errorf("%w: its page tree is deeper or larger than co reads (%d levels, %d nodes): a damaged file or a PDF bomb", ErrTooLarge, maxDepth, maxTreeNodes)
		}
		switch v.Key("Type").Name() {
		case "Page":
			if len(pages) == MaxPages {
				more = true
				return nil
			}
			if err := checkParents(v); err != nil {
				return err
			}
			pages = append(pages, pdf.Page{V: v})
			return nil
		case "Pages":
			kids := v.Key("Kids")
			for i := 0; i < kids.Len(); i++ {
				if err := walk(kids.Index(i), depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	root := r.Trailer().Key("Root").Key("Pages")
	if root.IsNull() {
		return nil, false, fmt.Errorf("%w: it has no page tree; if it opens in a PDF viewer, print it to a new PDF and try that", ErrMalformed)
	}
	if err := walk(root, 0); err != nil {
		return nil, false, err
	}
	if len(pages) == 0 {
		return nil, false, fmt.Errorf("%w: it has no pages", ErrMalformed)
	}
	return pages, more, nil
}

// checkParents makes sure the parser's search for a page's inherited
// resources (up the Parent chain) ends.
func checkParents(v pdf.Value) error {
	for i := 0; i < maxDepth; i++ {
		if v.IsNull() || !v.Key("Resources").IsNull() {
			return nil
		}
		v = v.Key("Parent")
	}
	return fmt.Errorf("%w: a page's Parent chain is longer than %d (a loop?)", ErrMalformed, maxDepth)
}

// contentSize decompresses a page's content once, counting, and refuses one
// that expands past limit.
func contentSize(p pdf.Page, limit int) (int, error) {
	c := p.V.Key("Contents")
	var streams []pdf.Value
	if c.Kind() == pdf.Array {
		for i := 0; i < c.Len(); i++ {
			streams = append(streams, c.Index(i))
		}
	} else if c.Kind() == pdf.Stream {
		streams = append(streams, c)
	}
	total := 0
	buf := make([]byte, 32<<10)
	for _, s := range streams {
		rd := s.Reader()
		for {
			n, err := rd.Read(buf)
			total += n
			if total > limit {
				return 0, fmt.Errorf("%w: its content expands to more than %d MiB (a PDF bomb?)", ErrTooLarge, MaxPageContent>>20)
			}
			if err != nil {
				break
			}
		}
	}
	return total, nil
}

// pageText lays the page's glyphs out as lines: a new line where the
// baseline moves, a space where the gap to the previous glyph is wider
// than a fifth of the font size.
func pageText(p pdf.Page, work *budget) string {
	var b strings.Builder
	var prevX, prevY, prevSize float64
	first := true
	walk(p, work, func(x, y, fontSize, w float64, text string) {
		s := ligatures(clean(text))
		if s == "" {
			return
		}
		size := math.Max(math.Abs(fontSize), 1)
		if !first {
			switch {
			case math.Abs(y-prevY) > 0.5*math.Max(size, prevSize):
				b.WriteByte('\n')
			case x-prevX > 0.2*size || x < prevX-size:
				if !strings.HasSuffix(b.String(), " ") && s != " " {
					b.WriteByte(' ')
				}
			}
		}
		first = false
		b.WriteString(s)
		prevX, prevY, prevSize = x+w, y, size
	})
	return tidy(b.String())
}

// clean keeps printable text and spaces: control characters (escape
// sequences among them) from a hostile PDF never pass.
func clean(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r == '\t' || r == '\u00a0':
			return ' '
		case r == utf8.RuneError, unicode.IsControl(r), r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
			return -1
		}
		return r
	}, s)
}

// ligatures spells out the Latin ligature characters (U+FB00–U+FB06) that
// fonts map their ligature glyphs to: "ﬀ" becomes "ff", so words read and
// match as typed.
func ligatures(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return r >= 0xfb00 && r <= 0xfb06 }) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if r >= 0xfb00 && r <= 0xfb06 {
			b.WriteString([...]string{"ff", "fi", "fl", "ffi", "ffl", "st", "st"}[r-0xfb00])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// tidy trims trailing spaces from lines and collapses runs of blank lines.
func tidy(s string) string {
	lines := strings.Split(s, "\n")
	out := lines[:0]
	for _, l := range lines {
		l = strings.TrimRight(l, " ")
		if l == "" && (len(out) == 0 || out[len(out)-1] == "") {
			continue
		}
		out = append(out, l)
	}
	return strings.TrimSpace(strings.Join(out, "\n"))
}

func cutRunes(s string, n int) string {
	if n <= 0 {
		return ""
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// sniff names what data looks like, for the not-a-PDF error.
func sniff(data []byte) string {
	head := data[:min(len(data), 512)]
	switch {
	case len(data) == 0:
		return "it is empty"
	case bytes.Contains(bytes.ToLower(head), []byte("<html")) || bytes.Contains(bytes.ToLower(head), []byte("<!doctype html")):
		return "it is an HTML page, perhaps a login or error page instead of the file"
	case bytes.Contains(head[:min(len(head), 1024)], []byte("%PDF-")):
		return "a PDF header is there but not at the start; the file is damaged"
	}
	return "its first bytes are " + strconv.Quote(string(head[:min(len(head), 8)]))
}
