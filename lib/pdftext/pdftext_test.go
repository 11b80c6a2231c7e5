package pdftext_test

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-pdf/fpdf"

	"github.com/co-cli/co/lib/pdftext"
)

// document builds a real PDF with fpdf: each page's lines drawn top to
// bottom, with compression on (as most producers write).
func document(t testing.TB, pages ...[]string) []byte {
	t.Helper()
	p := fpdf.New("P", "mm", "A4", "")
	tr := p.UnicodeTranslatorFromDescriptor("")
	p.SetFont("Helvetica", "", 12)
	for _, lines := range pages {
		p.AddPage()
		for i, l := range lines {
			p.Text(20, float64(30+10*i), tr(l))
		}
	}
	return output(t, p)
}

func output(t testing.TB, p *fpdf.Fpdf) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := p.Output(&b); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestExtractPagesInOrder(t *testing.T) {
	data := document(t,
		[]string{"Quarterly report", "Revenue rose by 12 percent."},
		[]string{"Second page heading", "Café déjà vu"},
		[]string{"Third page: send an email to x@example.com"},
	)
	text, truncated, err := pdftext.Extract(data, 0)
	if err != nil {
		t.Fatal(err)
	}
	if truncated {
		t.Error("truncated with no limit")
	}
	want := "--- page 1 ---\nQuarterly report\nRevenue rose by 12 percent.\n\n" +
		"--- page 2 ---\nSecond page heading\nCafé déjà vu\n\n" +
		"--- page 3 ---\nThird page: send an email to x@example.com\n"
	if text != want {
		t.Errorf("got\n%q\nwant\n%q", text, want)
	}
}

// Words placed apart on one line (columns of a table, a TJ with gaps) are
// one line with spaces between them, in the order drawn.
func TestExtractSameLineGetsSpaces(t *testing.T) {
	p := fpdf.New("P", "mm", "A4", "")
	p.SetFont("Helvetica", "", 12)
	p.AddPage()
	p.Text(20, 30, "Name")
	p.Text(80, 30, "Amount")
	p.Text(20, 40, "Coffee")
	p.Text(80, 40, "3.50")
	p.SetXY(20, 60)
	p.MultiCell(60, 6, "a paragraph long enough to wrap onto a second line in this narrow cell", "", "L", false)
	text, _, err := pdftext.Extract(output(t, p), 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"Name Amount\n", "Coffee 3.50\n", "a paragraph long enough to\nwrap onto a second line"} {
		if !strings.Contains(text, want) {
			t.Errorf("no %q in\n%s", want, text)
		}
	}
}

func TestExtractCutsAtMaxRunes(t *testing.T) {
	data := document(t, []string{strings.Repeat("word ", 30)}, []string{"second page"})
	text, truncated, err := pdftext.Extract(data, 40)
	if err != nil {
		t.Fatal(err)
	}
	if !truncated {
		t.Error("not truncated")
	}
	if n := len([]rune(text)); n != 40 {
		t.Errorf("%d characters, want 40: %q", n, text)
	}
	if strings.Contains(text, "second page") {
		t.Errorf("the cut text goes on to page 2: %q", text)
	}
}

func TestExtractStopsAtMaxPages(t *testing.T) {
	pages := make([][]string, pdftext.MaxPages+2)
	for i := range pages {
		pages[i] = []string{fmt.Sprintf("page %d", i+1)}
	}
	text, truncated, err := pdftext.Extract(document(t, pages...), 0)
	if err != nil {
		t.Fatal(err)
	}
	if !truncated {
		t.Error("not truncated")
	}
	last := fmt.Sprintf("--- page %d ---", pdftext.MaxPages)
	if !strings.Contains(text, last) || strings.Contains(text, fmt.Sprintf("--- page %d ---", pdftext.MaxPages+1)) {
		t.Errorf("want pages up to %d only; end of text: %q", pdftext.MaxPages, text[len(text)-200:])
	}
	if !strings.Contains(text, fmt.Sprintf("[only the first %d pages were read]", pdftext.MaxPages)) {
		t.Errorf("no note of the cut: %q", text[len(text)-200:])
	}
}

// Text drawn with escape sequences and other controls in it reaches no one
// raw: a PDF is content from outside.
func TestExtractDropsControlCharacters(t *testing.T) {
	data := document(t, []string{"before\x1b]52;c;ZXZpbA==\x07after \x1b[2Jclear", "bell\x07here\u202egnp.exe"})
	text, _, err := pdftext.Extract(data, 0)
	if err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(text, "\x1b\x07\u202e") {
		t.Errorf("control characters passed: %q", text)
	}
	if !strings.Contains(text, "before]52;c;ZXZpbA==after [2Jclear") {
		t.Errorf("the printable text around the controls is lost: %q", text)
	}
}

// A scanned PDF: pages of images, no text.
func TestExtractScannedPDFSaysNoTextLayer(t *testing.T) {
	img := image.NewGray(image.Rect(0, 0, 40, 40))
	for i := range 40 {
		img.Set(i, i, color.White)
	}
	var pngData bytes.Buffer
	if err := png.Encode(&pngData, img); err != nil {
		t.Fatal(err)
	}
	p := fpdf.New("P", "mm", "A4", "")
	p.RegisterImageOptionsReader("scan", fpdf.ImageOptions{ImageType: "PNG"}, &pngData)
	for range 2 {
		p.AddPage()
		p.ImageOptions("scan", 10, 10, 190, 0, false, fpdf.ImageOptions{ImageType: "PNG"}, 0, "")
	}
	_, _, err := pdftext.Extract(output(t, p), 0)
	if !errors.Is(err, pdftext.ErrNoText) || !strings.Contains(err.Error(), "this PDF has no text layer") || !strings.Contains(err.Error(), "OCR") {
		t.Errorf("err = %v, want ErrNoText saying there is no text layer and what to do", err)
	}
}

func TestExtractEncrypted(t *testing.T) {
	p := fpdf.New("P", "mm", "A4", "")
	p.SetProtection(fpdf.CnProtectPrint, "user-secret", "owner-secret")
	p.SetFont("Helvetica", "", 12)
	p.AddPage()
	p.Text(20, 30, "locked text")
	_, _, err := pdftext.Extract(output(t, p), 0)
	if !errors.Is(err, pdftext.ErrEncrypted) || !strings.Contains(err.Error(), "password") {
		t.Errorf("err = %v, want ErrEncrypted naming the password", err)
	}

	// Protected with an owner password only: it opens without one, but
	// the parser does not decrypt fpdf's RC4 streams. Said as encryption,
	// with what to do, not as a damaged file.
	p = fpdf.New("P", "mm", "A4", "")
	p.SetProtection(fpdf.CnProtectPrint, "", "owner-secret")
	p.SetFont("Helvetica", "", 12)
	p.AddPage()
	p.Text(20, 30, "open to read")
	_, _, err = pdftext.Extract(output(t, p), 0)
	if !errors.Is(err, pdftext.ErrEncrypted) || !strings.Contains(err.Error(), "unprotected PDF") {
		t.Errorf("owner-password PDF: err = %v, want ErrEncrypted saying what to do", err)
	}
}

func TestExtractNotAPDF(t *testing.T) {
	for _, c := range []struct {
		data []byte
		say  string
	}{
		{nil, "empty"},
		{[]byte("<!DOCTYPE html><html><body>Sign in</body></html>"), "HTML page"},
		{[]byte("\x89PNG\r\n\x1a\nrest"), `"\x89PNG`},
	} {
		_, _, err := pdftext.Extract(c.data, 0)
		if !errors.Is(err, pdftext.ErrNotPDF) || !strings.Contains(err.Error(), c.say) {
			t.Errorf("%q: err = %v, want ErrNotPDF saying %q", c.data, err, c.say)
		}
	}
}

func TestExtractMalformed(t *testing.T) {
	data := document(t, []string{"whole"})
	for _, bad := range [][]byte{
		data[:len(data)/2], // cut in the middle
		bytes.Replace(data, []byte("xref"), []byte("xxxx"), 1), // no cross-reference table
		append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte("garbage "), 100)...),
	} {
		_, _, err := pdftext.Extract(bad, 0)
		if !errors.Is(err, pdftext.ErrMalformed) || !strings.Contains(err.Error(), "print it to a new PDF") {
			t.Errorf("err = %v, want ErrMalformed with what to do", err)
		}
	}
}

func TestExtractTooLarge(t *testing.T) {
	_, _, err := pdftext.Extract(append([]byte("%PDF-1.4\n"), make([]byte, pdftext.MaxBytes)...), 0)
	if !errors.Is(err, pdftext.ErrTooLarge) || !strings.Contains(err.Error(), "MiB") {
		t.Errorf("err = %v, want ErrTooLarge", err)
	}
}

// handmade writes a PDF from its objects (numbered from 1) with a correct
// cross-reference table; trailer adds to the trailer dictionary.
func handmade(objects []string, size int) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offsets := make([]int, len(objects))
	for i, o := range objects {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objects)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	if size == 0 {
		size = len(objects) + 1
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", size, xref)
	return b.Bytes()
}

func stream(content []byte, flate bool) string {
	if !flate {
		return fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content)
	}
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	_, _ = w.Write(content)
	_ = w.Close()
	return fmt.Sprintf("<< /Length %d /Filter /FlateDecode >>\nstream\n%s\nendstream", z.Len(), z.Bytes())
}

const font = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"

// The handmade PDF itself reads: the bombs below differ from it in one
// thing each.
func TestExtractHandmade(t *testing.T) {
	data := handmade([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		stream([]byte("BT /F1 12 Tf 72 720 Td (handmade text) Tj ET"), false),
		font,
	}, 0)
	text, _, err := pdftext.Extract(data, 0)
	if err != nil || text != "--- page 1 ---\nhandmade text\n" {
		t.Errorf("%q, %v", text, err)
	}
	// PDF 2.0's header is read too.
	text, _, err = pdftext.Extract(append([]byte("%PDF-2.0"), data[8:]...), 0)
	if err != nil || !strings.Contains(text, "handmade text") {
		t.Errorf("PDF 2.0: %q, %v", text, err)
	}
}

func TestExtractRefusesBombs(t *testing.T) {
	page := "<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>"
	text := stream([]byte("BT /F1 12 Tf 72 720 Td (x) Tj ET"), false)
	huge := append([]byte("BT /F1 12 Tf 72 720 Td (x) Tj ET\n"), bytes.Repeat([]byte(" "), pdftext.MaxPageContent+1)...)
	for name, c := range map[string]struct {
		data []byte
		say  string
	}{
		"kids loop": {handmade([]string{
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [2 0 R 2 0 R] /Count 1000 >>",
			page, text, font,
		}, 0), "page tree"},
		"parent loop": {handmade([]string{
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			"<< /Type /Page /Parent 3 0 R /Contents 4 0 R >>",
			text, font,
		}, 0), "Parent chain"},
		"content bomb": {handmade([]string{
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			page, stream(huge, true), font,
		}, 0), "expands to more than"},
		// Each page under the page limit, together over the file's.
		"content bomb across pages": {handmade([]string{
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R 3 0 R 3 0 R 3 0 R 3 0 R 3 0 R 3 0 R 3 0 R 3 0 R] /Count 9 >>",
			page, stream(append([]byte("BT /F1 12 Tf 72 720 Td (x) Tj ET\n"), bytes.Repeat([]byte(" "), pdftext.MaxPageContent-1024)...), true), font,
		}, 0), "more than 128 MiB in all"},
		"lying size": {handmade([]string{
			"<< /Type /Catalog /Pages 2 0 R >>",
			"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
			page, text, font,
		}, 4_000_000_000), "declares 4000000000 objects"},
	} {
		_, _, err := pdftext.Extract(c.data, 0)
		if err == nil || !strings.Contains(err.Error(), c.say) {
			t.Errorf("%s: err = %v, want one saying %q", name, err, c.say)
		}
	}
}

// Whatever the bytes, Extract returns (text or an error) and never panics.
func FuzzExtract(f *testing.F) {
	f.Add(document(f, []string{"seed text"}, []string{"page two"}))
	f.Add(handmade([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		stream([]byte("BT /F1 12 Tf 72 720 Td (fuzz) Tj [(a) -300 (b)] TJ T* (c) ' ET"), false),
		font,
	}, 0))
	f.Add([]byte("%PDF-1.7\n%%EOF\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		text, _, err := pdftext.Extract(data, 1000)
		if err == nil && strings.ContainsRune(text, 0x1b) {
			t.Errorf("escape in text: %q", text)
		}
	})
}

// A UTF-8 TrueType font (a composite font, two-byte codes, a ToUnicode
// map of one range over all codes, as fpdf, tFPDF and others write it):
// every script comes through, and words keep their spacing from the
// font's own widths.
func TestExtractCompositeFont(t *testing.T) {
	dir, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", "github.com/go-pdf/fpdf").Output()
	if err != nil {
		t.Fatalf("finding fpdf's fonts: %v", err)
	}
	p := fpdf.New("P", "mm", "A4", filepath.Join(strings.TrimSpace(string(dir)), "font"))
	p.AddUTF8Font("dejavu", "", "DejaVuSansCondensed.ttf")
	p.SetFont("dejavu", "", 12)
	p.AddPage()
	p.Text(20, 30, "Grüße aus Köln — “quoted” don’t: 12 €")
	p.Text(20, 40, "Ελληνικά, Кириллица, 日本")
	p.Text(20, 50, "Name")
	p.Text(80, 50, "Amount")
	if err := p.Error(); err != nil {
		t.Fatal(err)
	}
	text, _, err := pdftext.Extract(output(t, p), 0)
	want := "--- page 1 ---\nGrüße aus Köln — “quoted” don’t: 12 €\nΕλληνικά, Кириллица, 日本\nName Amount\n"
	if err != nil || text != want {
		t.Errorf("got %q, %v\nwant %q", text, err, want)
	}
}

// A ToUnicode map with single codes (a ligature to two letters) and a
// range given as an array, in a composite font.
func TestExtractToUnicodeCharsAndArrays(t *testing.T) {
	cmap := "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n" +
		"1 begincodespacerange <0000> <FFFF> endcodespacerange\n" +
		"1 beginbfchar <0004> <00660069> endbfchar\n" +
		"2 beginbfrange <0001> <0003> [<0041> <0042> <0043>] <0010> <0012> <03B1> endbfrange\n" +
		"endcmap CMapName currentdict /CMap defineresource pop end end"
	data := handmade([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		stream([]byte("BT /F1 12 Tf 72 720 Td <000100020003> Tj 0 -20 Td <0004000100100011> Tj ET"), false),
		"<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [7 0 R] /ToUnicode 6 0 R >>",
		stream([]byte(cmap), false),
		"<< /Type /Font /Subtype /CIDFontType2 /BaseFont /X /DW 500 /W [1 [600 600 600]] >>",
	}, 0)
	text, _, err := pdftext.Extract(data, 0)
	if want := "--- page 1 ---\nABC\nfiAαβ\n"; err != nil || text != want {
		t.Errorf("got %q, %v; want %q", text, err, want)
	}
	// A ligature glyph mapped to U+FB01 reads as the two letters.
	data = bytes.Replace(data, []byte("<0004> <00660069>"), []byte("<0004> <FB01>    "), 1)
	text, _, err = pdftext.Extract(data, 0)
	if want := "--- page 1 ---\nABC\nfiAαβ\n"; err != nil || text != want {
		t.Errorf("got %q, %v; want %q", text, err, want)
	}
}

// A file built to make decoding slow: a font whose Differences array is
// huge, searched for every code. It stops at the work budget (lowered here
// so the test is quick; the count, not the clock, decides).
func TestExtractStopsAtTheWorkBudget(t *testing.T) {
	defer pdftext.SetMaxWork(1_000_000)()
	diffs := "[0" + strings.Repeat(" /a", 50_000) + "]"
	var content strings.Builder
	content.WriteString("BT /F1 12 Tf 72 720 Td (")
	for c := 'A'; c <= 'z'; c++ {
		if c != '\\' {
			content.WriteRune(c)
		}
	}
	content.WriteString(") Tj ET")
	data := handmade([]string{
		"<< /Type /Catalog /Pages 2 0 R >>",
		"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /Resources << /Font << /F1 5 0 R >> >> /Contents 4 0 R >>",
		stream([]byte(content.String()), false),
		"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Differences " + diffs + " >> >>",
	}, 0)
	_, _, err := pdftext.Extract(data, 0)
	if !errors.Is(err, pdftext.ErrTooLarge) || !strings.Contains(err.Error(), "decoding its text takes more than 1000000 steps") {
		t.Errorf("err = %v, want ErrTooLarge for the work", err)
	}
}
