package pdftext

import (
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/ledongthuc/pdf"
)

// The page walker: the text operators of a content stream run over the
// parser's Interpret, glyph by glyph, with each font's own decoding. It
// stands in for the parser's Page.Content, which decodes a ToUnicode range
// wider than its last byte wrongly and reads a two-byte code's width from
// its first byte (docs/SOURCES.md#pdf-text-what-the-parser-does-and-does-not).

type matrix [3][3]float64

var identity = matrix{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}

func (x matrix) mul(y matrix) matrix {
	var z matrix
	for i := range 3 {
		for j := range 3 {
			for k := range 3 {
				z[i][j] += x[i][k] * y[k][j]
			}
		}
	}
	return z
}

func translate(tx, ty float64) matrix { return matrix{{1, 0, 0}, {0, 1, 0}, {tx, ty, 1}} }

type gstate struct {
	ctm, tm, tlm               matrix
	tc, tw, th, tl, tfs, trise float64
	font                       *font
}

// maxWork bounds the decoding one Extract may do, in steps: a step is a
// glyph, an entry of an encoding searched for a code (a font set up
// counts 1,000). A file built to make decoding slow (a huge
// Differences array, thousands of fonts) stops there with ErrTooLarge, not
// after minutes; 500 pages of ordinary text take a few million. A
// variable so that a test can lower it.
var maxWork = 100_000_000

// tooMuchWork is what walk panics with when the budget is spent.
type tooMuchWork struct{}

// budget counts the work of one Extract.
type budget struct{ left int }

func (b *budget) spend(n int) {
	b.left -= n
	if b.left < 0 {
		panic(tooMuchWork{})
	}
}

// walk calls glyph for each character the page's content draws: where
// (x, y), how large, how wide, and its text.
func walk(p pdf.Page, work *budget, glyph func(x, y, size, w float64, s string)) {
	contents := p.V.Key("Contents")
	if contents.IsNull() {
		return
	}
	fonts := map[string]*font{}
	g := gstate{ctm: identity, tm: identity, tlm: identity, th: 1}
	var stack []gstate
	show := func(raw string) {
		f := g.font
		if f == nil {
			f = noFont
		}
		for _, c := range f.codes(raw, work) {
			trm := matrix{{g.tfs * g.th, 0, 0}, {0, g.tfs, 0}, {0, g.trise, 1}}.mul(g.tm).mul(g.ctm)
			w0 := f.width(c.code)
			glyph(trm[2][0], trm[2][1], trm[0][0], w0/1000*trm[0][0], c.text)
			tx := w0/1000*g.tfs + g.tc
			if c.space {
				tx += g.tw
			}
			g.tm = translate(tx*g.th, 0).mul(g.tm)
		}
	}
	nextLine := func() {
		g.tlm = translate(0, -g.tl).mul(g.tlm)
		g.tm = g.tlm
	}
	pdf.Interpret(contents, func(stk *pdf.Stack, op string) {
		args := make([]pdf.Value, stk.Len())
		for i := len(args) - 1; i >= 0; i-- {
			args[i] = stk.Pop()
		}
		num := func(i int) float64 { return args[i].Float64() }
		switch {
		case op == "q":
			stack = append(stack, g)
		case op == "Q" && len(stack) > 0:
			g, stack = stack[len(stack)-1], stack[:len(stack)-1]
		case op == "cm" && len(args) == 6:
			g.ctm = matrix{{num(0), num(1), 0}, {num(2), num(3), 0}, {num(4), num(5), 1}}.mul(g.ctm)
		case op == "BT":
			g.tm, g.tlm = identity, identity
		case op == "Tc" && len(args) == 1:
			g.tc = num(0)
		case op == "Tw" && len(args) == 1:
			g.tw = num(0)
		case op == "Tz" && len(args) == 1:
			g.th = num(0) / 100
		case op == "TL" && len(args) == 1:
			g.tl = num(0)
		case op == "Ts" && len(args) == 1:
			g.trise = num(0)
		case op == "Tf" && len(args) == 2:
			name := args[0].Name()
			if fonts[name] == nil {
				fonts[name] = newFont(p.Resources().Key("Font").Key(name), work)
			}
			g.font, g.tfs = fonts[name], num(1)
		case (op == "Td" || op == "TD") && len(args) == 2:
			if op == "TD" {
				g.tl = -num(1)
			}
			g.tlm = translate(num(0), num(1)).mul(g.tlm)
			g.tm = g.tlm
		case op == "Tm" && len(args) == 6:
			g.tm = matrix{{num(0), num(1), 0}, {num(2), num(3), 0}, {num(4), num(5), 1}}
			g.tlm = g.tm
		case op == "T*":
			nextLine()
		case op == "Tj" && len(args) == 1:
			show(args[0].RawString())
		case op == "'" && len(args) == 1:
			nextLine()
			show(args[0].RawString())
		case op == "\"" && len(args) == 3:
			g.tw, g.tc = num(0), num(1)
			nextLine()
			show(args[2].RawString())
		case op == "TJ" && len(args) == 1:
			a := args[0]
			for i := 0; i < a.Len(); i++ {
				if x := a.Index(i); x.Kind() == pdf.String {
					show(x.RawString())
				} else {
					g.tm = translate(-x.Float64()/1000*g.tfs*g.th, 0).mul(g.tm)
				}
			}
		}
	})
}

// code is one character code of a shown string: its value, its text, and
// whether it is the single-byte space that word spacing widens.
type code struct {
	code  int
	text  string
	space bool
}

// font decodes a font's codes to text and knows their widths (1/1000 em).
type font struct {
	twoByte bool             // a composite (Type0) font: codes of two bytes
	cmap    *cmap            // its ToUnicode, when it has one
	simple  pdf.TextEncoding // a simple font's own encoding, for codes the cmap lacks
	cost    int              // the steps one simple decoding takes (its Differences searched)
	decoded [256]*string     // a simple font's codes decoded so far
	widths  map[int]float64
	dw      float64 // a composite font's default width
	first   int
	list    []float64 // a simple font's Widths from FirstChar
}

var noFont = &font{}

func newFont(v pdf.Value, work *budget) *font {
	work.spend(1000)
	f := &font{}
	if tu := v.Key("ToUnicode"); tu.Kind() == pdf.Stream {
		f.cmap = readCmap(tu)
		work.spend(len(f.cmap.chars) + len(f.cmap.ranges))
	}
	if v.Key("Subtype").Name() == "Type0" {
		f.twoByte = true
		d := v.Key("DescendantFonts").Index(0)
		f.dw = 1000
		if dw := d.Key("DW"); dw.Kind() == pdf.Integer || dw.Kind() == pdf.Real {
			f.dw = dw.Float64()
		}
		f.widths = cidWidths(d.Key("W"))
		return f
	}
	pf := pdf.Font{V: v}
	f.simple = pf.Encoder()
	f.cost = 1 + v.Key("Encoding").Key("Differences").Len()
	f.first = int(v.Key("FirstChar").Int64())
	w := v.Key("Widths")
	for i := 0; i < w.Len() && i < 256; i++ {
		f.list = append(f.list, w.Index(i).Float64())
	}
	return f
}

// cidWidths reads a composite font's W array: "c [w1 w2 …]" and
// "first last w" entries, at most 65,536 codes.
func cidWidths(w pdf.Value) map[int]float64 {
	out := map[int]float64{}
	for i := 0; i+1 < w.Len() && len(out) < 1<<16; {
		first := int(w.Index(i).Int64())
		if next := w.Index(i + 1); next.Kind() == pdf.Array {
			for j := 0; j < next.Len() && j < 1<<16; j++ {
				out[first+j] = next.Index(j).Float64()
			}
			i += 2
			continue
		}
		if i+2 >= w.Len() {
			break
		}
		last, width := int(w.Index(i+1).Int64()), w.Index(i+2).Float64()
		for c := first; c <= last && c-first < 1<<16; c++ {
			out[c] = width
		}
		i += 3
	}
	return out
}

func (f *font) width(c int) float64 {
	if f.twoByte {
		if w, ok := f.widths[c]; ok {
			return w
		}
		return f.dw
	}
	if i := c - f.first; i >= 0 && i < len(f.list) {
		return f.list[i]
	}
	return 0
}

func (f *font) codes(raw string, work *budget) []code {
	var out []code
	for len(raw) > 0 {
		work.spend(1)
		n := 1
		if f.twoByte && len(raw) >= 2 {
			n = 2
		}
		c, bytes := 0, raw[:n]
		for i := range n {
			c = c<<8 | int(raw[i])
		}
		raw = raw[n:]
		text, ok := "", false
		if f.cmap != nil {
			text, ok = f.cmap.lookup(bytes, c)
		}
		if !ok && f.simple != nil {
			text = f.decodeSimple(bytes, c, work)
		}
		out = append(out, code{code: c, text: text, space: n == 1 && c == ' '})
	}
	return out
}

// decodeSimple decodes one byte with the parser's encoding, once per code.
func (f *font) decodeSimple(raw string, c int, work *budget) string {
	if c < 0 || c > 255 {
		return f.simple.Decode(raw)
	}
	if p := f.decoded[c]; p != nil {
		return *p
	}
	work.spend(f.cost)
	s := f.simple.Decode(raw)
	f.decoded[c] = &s
	return s
}

// cmap is a ToUnicode CMap: single codes and ranges of codes to UTF-16.
type cmap struct {
	chars  map[string]string
	ranges []bfrange
}

type bfrange struct {
	n      int // bytes in a code
	lo, hi int
	dst    string   // UTF-16BE of lo's text: each code after lo adds to its last unit
	list   []string // or one text per code
}

func (m *cmap) lookup(raw string, c int) (string, bool) {
	if s, ok := m.chars[raw]; ok {
		return utf16Text(s, 0), true
	}
	// The ranges are sorted by their first code: the candidates are the
	// few that start at or before c.
	i := sort.Search(len(m.ranges), func(i int) bool { return m.ranges[i].lo > c })
	for k := i - 1; k >= 0 && k >= i-16; k-- {
		r := m.ranges[k]
		if r.n != len(raw) || c < r.lo || c > r.hi {
			continue
		}
		if r.list != nil {
			if i := c - r.lo; i < len(r.list) {
				return utf16Text(r.list[i], 0), true
			}
			return "", false
		}
		return utf16Text(r.dst, c-r.lo), true
	}
	return "", false
}

// utf16Text decodes UTF-16BE, adding add to its last unit (a bfrange's
// offset, over the whole value, not only its last byte).
func utf16Text(s string, add int) string {
	units := make([]uint16, 0, len(s)/2)
	for i := 0; i+1 < len(s); i += 2 {
		units = append(units, uint16(s[i])<<8|uint16(s[i+1]))
	}
	if len(units) == 0 {
		return ""
	}
	units[len(units)-1] += uint16(add)
	return string(utf16.Decode(units))
}

// readCmap reads the bfchar and bfrange sections of a ToUnicode stream,
// at most maxMappings entries.
func readCmap(v pdf.Value) *cmap {
	const maxMappings = 1 << 16
	m := &cmap{chars: map[string]string{}}
	var operands []any // string (a hex or literal string), []string (an array), or a number
	inArray, array := false, []string(nil)
	mode := ""
	scan(v, func(tok any) bool {
		switch t := tok.(type) {
		case keyword:
			switch string(t) {
			case "[":
				inArray, array = true, nil
			case "]":
				inArray = false
				operands = append(operands, array)
			case "beginbfchar", "beginbfrange":
				mode, operands = string(t), nil
			case "endbfchar":
				for i := 0; i+1 < len(operands); i += 2 {
					src, ok1 := operands[i].(string)
					dst, ok2 := operands[i+1].(string)
					if ok1 && ok2 {
						m.chars[src] = dst
					}
				}
				mode, operands = "", nil
			case "endbfrange":
				for i := 0; i+2 < len(operands); i += 3 {
					lo, ok1 := operands[i].(string)
					hi, ok2 := operands[i+1].(string)
					if !ok1 || !ok2 || len(lo) != len(hi) || len(lo) == 0 || len(lo) > 4 {
						continue
					}
					r := bfrange{n: len(lo), lo: codeOf(lo), hi: codeOf(hi)}
					switch d := operands[i+2].(type) {
					case string:
						r.dst = d
					case []string:
						r.list = d
					default:
						continue
					}
					m.ranges = append(m.ranges, r)
				}
				sort.SliceStable(m.ranges, func(i, j int) bool { return m.ranges[i].lo < m.ranges[j].lo })
				mode, operands = "", nil
			default:
				operands = nil
			}
		case string:
			if inArray {
				array = append(array, t)
			} else if mode != "" {
				operands = append(operands, t)
			}
		}
		return len(m.chars)+len(m.ranges) < maxMappings
	})
	return m
}

func codeOf(s string) int {
	c := 0
	for i := 0; i < len(s); i++ {
		c = c<<8 | int(s[i])
	}
	return c
}

type keyword string

// scan tokenises a CMap stream: hex strings become their bytes, literal
// strings their text, brackets and words keywords; numbers are skipped.
func scan(v pdf.Value, tok func(any) bool) {
	rd := v.Reader()
	defer rd.Close()
	buf := make([]byte, 0, 4096)
	chunk := make([]byte, 4096)
	for len(buf) < 1<<20 {
		n, err := rd.Read(chunk)
		buf = append(buf, chunk[:n]...)
		if err != nil {
			break
		}
	}
	s := string(buf)
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '%':
			for i < len(s) && s[i] != '\n' && s[i] != '\r' {
				i++
			}
		case c == '<' && i+1 < len(s) && s[i+1] == '<', c == '>' && i+1 < len(s) && s[i+1] == '>':
			i += 2
		case c == '<':
			end := strings.IndexByte(s[i:], '>')
			if end < 0 {
				return
			}
			if !tok(unhex(s[i+1 : i+end])) {
				return
			}
			i += end + 1
		case c == '(':
			depth, j := 0, i
			var lit strings.Builder
			for ; j < len(s); j++ {
				if s[j] == '\\' && j+1 < len(s) {
					j++
					lit.WriteByte(s[j])
					continue
				}
				if s[j] == '(' {
					depth++
					if depth == 1 {
						continue
					}
				}
				if s[j] == ')' {
					depth--
					if depth == 0 {
						break
					}
				}
				lit.WriteByte(s[j])
			}
			if !tok(lit.String()) {
				return
			}
			i = j + 1
		case c == '[' || c == ']':
			if !tok(keyword(string(c))) {
				return
			}
			i++
		case c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == '\f' || c == 0:
			i++
		default:
			j := i
			for j < len(s) && !strings.ContainsRune(" \n\r\t\f\x00<>[]()/%", rune(s[j])) {
				j++
			}
			if j == i {
				j++ // a name's slash
			}
			w := s[i:j]
			if _, err := strconv.ParseFloat(w, 64); err != nil && !tok(keyword(w)) {
				return
			}
			i = j
		}
	}
}

func unhex(h string) string {
	var b []byte
	var hi byte
	half := false
	for i := 0; i < len(h); i++ {
		var v byte
		switch c := h[i]; {
		case c >= '0' && c <= '9':
			v = c - '0'
		case c >= 'a' && c <= 'f':
			v = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			v = c - 'A' + 10
		default:
			continue
		}
		if half {
			b = append(b, hi<<4|v)
		} else {
			hi = v
		}
		half = !half
	}
	if half {
		b = append(b, hi<<4)
	}
	return string(b)
}
