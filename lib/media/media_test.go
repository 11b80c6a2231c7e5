package media

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
)

// noisy is a w×h image that compresses badly (every pixel differs).
func noisy(w, h int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	x := uint32(1)
	for i := range img.Pix {
		x = x*1664525 + 1013904223
		img.Pix[i] = byte(x >> 24)
	}
	return img
}

func encPNG(t *testing.T, img image.Image) []byte {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestSniffByContentNotName(t *testing.T) {
	var j bytes.Buffer
	if err := jpeg.Encode(&j, noisy(4, 4), nil); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		data       []byte
		kind, mime string
	}{
		{encPNG(t, noisy(2, 2)), Image, "image/png"},
		{j.Bytes(), Image, "image/jpeg"},
		{[]byte("GIF89a\x01\x00\x01\x00"), Image, "image/gif"},
		{[]byte("RIFF\x00\x00\x00\x00WEBPVP8 "), Image, "image/webp"},
		{[]byte("%PDF-1.7\n%âãÏÓ\n"), PDF, "application/pdf"},
		{[]byte("package main\n"), "", "text/plain; charset=utf-8"},
	} {
		if k, m := Sniff(c.data); k != c.kind || m != c.mime {
			t.Errorf("Sniff(%q) = %q, %q; want %q, %q", c.data[:min(8, len(c.data))], k, m, c.kind, c.mime)
		}
	}
}

func TestFitLeavesASmallImageAlone(t *testing.T) {
	data := encPNG(t, noisy(30, 20))
	f, err := Fit(data, "image/png", 2048, 1<<20)
	if err != nil || f.Scaled || !bytes.Equal(f.Data, data) || f.Width != 30 || f.Height != 20 {
		t.Fatalf("Fit = %+v, %v", f, err)
	}
}

func TestFitScalesTheLongerEdgeKeepingTheRatio(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 1000, 400))
	for y := range 400 {
		for x := range 1000 {
			img.Set(x, y, color.RGBA{uint8(x), uint8(y), 0, 255})
		}
	}
	f, err := Fit(encPNG(t, img), "image/png", 500, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Scaled || f.Width != 500 || f.Height != 200 || f.MIME != "image/png" {
		t.Fatalf("Fit = %dx%d %s scaled=%v", f.Width, f.Height, f.MIME, f.Scaled)
	}
	if w, h, err := Size(f.Data); err != nil || w != 500 || h != 200 {
		t.Fatalf("the data is %dx%d (%v)", w, h, err)
	}
}

func TestFitMakesATooHeavyImageJPEGAndSmaller(t *testing.T) {
	data := encPNG(t, noisy(800, 800)) // ~2.5 MB of noise
	f, err := Fit(data, "image/png", 4096, 200<<10)
	if err != nil {
		t.Fatal(err)
	}
	if !f.Scaled || len(f.Data) > 200<<10 || f.MIME != "image/jpeg" {
		t.Fatalf("Fit = %d bytes %s %dx%d", len(f.Data), f.MIME, f.Width, f.Height)
	}
}

func TestFitRefusesWhatCannotFit(t *testing.T) {
	_, err := Fit(encPNG(t, noisy(600, 600)), "image/png", 4096, 100)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v", err)
	}
}

// exifOriented is a JPEG of w×h pixels whose EXIF says to show it turned
// (orientation 6: rotate 90° clockwise), as phones write portrait photos.
func exifOriented(t *testing.T, w, h int) []byte {
	t.Helper()
	var j bytes.Buffer
	if err := jpeg.Encode(&j, noisy(w, h), nil); err != nil {
		t.Fatal(err)
	}
	tiff := []byte{'M', 'M', 0, 42, 0, 0, 0, 8, // big-endian, IFD at 8
		0, 1, // one entry
		0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, // Orientation, SHORT, 1, value 6
		0, 0, 0, 0} // no next IFD
	payload := append([]byte("Exif\x00\x00"), tiff...)
	n := len(payload) + 2
	app1 := append([]byte{0xFF, 0xE1, byte(n >> 8), byte(n)}, payload...)
	b := j.Bytes()
	return append(append(append([]byte{}, b[:2]...), app1...), b[2:]...)
}

// A photo scaled down keeps the way it is meant to be seen: its EXIF
// orientation is applied, since the copy sent has no EXIF.
func TestFitTurnsAPhotoByItsOrientation(t *testing.T) {
	f, err := Fit(exifOriented(t, 800, 400), "image/jpeg", 200, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if f.Width != 100 || f.Height != 200 {
		t.Fatalf("sent %dx%d, want 100x200 (portrait)", f.Width, f.Height)
	}
	if w, h, _ := Size(f.Data); w != 100 || h != 200 {
		t.Fatalf("data is %dx%d", w, h)
	}
}

// A damaged image whose header still reads (a PNG cut short) is not sent
// as it is: a provider refuses it, and the conversation would carry it
// into every later request.
func TestFitRefusesADamagedImage(t *testing.T) {
	data := encPNG(t, noisy(30, 20))
	cut := append(data[:len(data)/2:len(data)/2], []byte("garbage")...)
	if _, _, err := Size(cut); err != nil {
		t.Fatalf("the header should still read: %v", err)
	}
	if f, err := Fit(cut, "image/png", 2048, 1<<20); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Fatalf("Fit = %d bytes, %v; want an error saying it is damaged", len(f.Data), err)
	}
}

// A small file can declare a huge image (a PNG of 20000×20000 pixels of
// one colour compresses to about a megabyte and decodes to 1.6 GB): Fit
// refuses it by its header, before decoding anything.
func TestFitRefusesTooManyPixelsBeforeDecoding(t *testing.T) {
	var b bytes.Buffer
	chunk := func(typ string, data []byte) {
		_ = binary.Write(&b, binary.BigEndian, uint32(len(data)))
		b.WriteString(typ)
		b.Write(data)
		_ = binary.Write(&b, binary.BigEndian, crc32.ChecksumIEEE(append([]byte(typ), data...)))
	}
	b.WriteString("\x89PNG\r\n\x1a\n")
	ihdr := make([]byte, 13)
	binary.BigEndian.PutUint32(ihdr[0:], 20000)
	binary.BigEndian.PutUint32(ihdr[4:], 20000)
	ihdr[8], ihdr[9] = 8, 2 // 8-bit RGB
	chunk("IHDR", ihdr)
	chunk("IEND", nil)
	if w, h, err := Size(b.Bytes()); err != nil || w != 20000 || h != 20000 {
		t.Fatalf("Size = %d×%d, %v", w, h, err)
	}
	_, err := Fit(b.Bytes(), "image/png", 2048, 5<<20)
	if err == nil || !strings.Contains(err.Error(), "20000×20000") || !strings.Contains(err.Error(), "megapixels") {
		t.Fatalf("Fit: %v; want a refusal naming the size", err)
	}
}
