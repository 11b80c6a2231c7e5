// Package media is what co knows of the images and PDFs a user attaches:
// what a file is, found from its bytes (not its name), an image's pixel
// size, and an image scaled down to fit a provider's limits. It imports
// nothing of ours.
package media

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"net/http"

	"github.com/disintegration/imaging"
	"golang.org/x/image/draw"
	_ "golang.org/x/image/webp" // image.DecodeConfig and Decode read WebP
)

// Kinds of media.
const (
	Image = "image"
	PDF   = "pdf"
)

// Sniff says what data is, from its first bytes (the WHATWG MIME
// sniffing algorithm, net/http.DetectContentType): kind is Image for PNG,
// JPEG, GIF and WebP, PDF for a PDF, "" for anything else; mime is the
// type found.
func Sniff(data []byte) (kind, mime string) {
	mime = http.DetectContentType(data)
	switch mime {
	case "image/png", "image/jpeg", "image/gif", "image/webp":
		return Image, mime
	case "application/pdf":
		return PDF, mime
	}
	return "", mime
}

// Size returns an image's width and height in pixels, from its header.
func Size(data []byte) (w, h int, err error) {
	c, _, err := image.DecodeConfig(bytes.NewReader(data))
	if err != nil {
		return 0, 0, fmt.Errorf("the image cannot be read: %w", err)
	}
	return c.Width, c.Height, nil
}

// Fitted is an image as sent.
type Fitted struct {
	Data          []byte
	MIME          string
	Width, Height int
	// Scaled is true when Data is a scaled-down copy of the original.
	Scaled bool
}

// ErrTooLarge says an image could not be made to fit.
var ErrTooLarge = errors.New("the image cannot be made small enough")

// Fit returns the image data (of type mime) within maxEdge pixels on its
// longer side and maxBytes bytes: unchanged when it already is, else
// turned upright by its EXIF orientation (imaging.AutoOrientation),
// scaled down (Catmull-Rom) keeping its aspect ratio and re-encoded (PNG
// stays PNG unless that is too large; everything else, and a PNG too
// large, becomes JPEG), halving again until it fits. A GIF's first frame
// is what is kept when it has to be scaled. ErrTooLarge when even a small
// copy does not fit.
func Fit(data []byte, mime string, maxEdge, maxBytes int) (Fitted, error) {
	return fit(data, mime, maxEdge, maxBytes, false)
}

// AsPNG is Fit for a provider that does not take the image's type: the
// image always re-encoded, as PNG (JPEG when a PNG does not fit).
func AsPNG(data []byte, maxEdge, maxBytes int) (Fitted, error) {
	return fit(data, "image/png", maxEdge, maxBytes, true)
}

func fit(data []byte, mime string, maxEdge, maxBytes int, force bool) (Fitted, error) {
	w, h, err := Size(data)
	if err != nil {
		return Fitted{}, err
	}
	if max(w, h) <= maxEdge && len(data) <= maxBytes && !force {
		// The header alone does not show a file cut short or corrupted,
		// which a provider refuses (and every later request would carry).
		if _, _, err := image.Decode(bytes.NewReader(data)); err != nil {
			return Fitted{}, fmt.Errorf("the image is damaged (%w): open it and save it again", err)
		}
		return Fitted{Data: data, MIME: mime, Width: w, Height: h}, nil
	}
	if w*h > MaxPixels {
		return Fitted{}, fmt.Errorf("the image is %d×%d pixels (%d megapixels), over the %d megapixels co decodes to scale it down (decoding it would take %s of memory): save a smaller copy and attach that",
			w, h, w*h/1_000_000, MaxPixels/1_000_000, formatGB(int64(w)*int64(h)*4))
	}
	// A photo's EXIF orientation is applied before scaling: the copy sent
	// carries no EXIF, so a phone's portrait photo would go sideways.
	src, err := imaging.Decode(bytes.NewReader(data), imaging.AutoOrientation(true))
	if err != nil {
		return Fitted{}, fmt.Errorf("the image cannot be decoded to scale it: %w", err)
	}
	w, h = src.Bounds().Dx(), src.Bounds().Dy() // turned by its orientation
	// Halving stops at minEdge (or the first size, when smaller).
	for edge := min(max(w, h), maxEdge); ; edge /= 2 {
		nw, nh := scaled(w, h, edge)
		dst := image.NewRGBA(image.Rect(0, 0, nw, nh))
		draw.CatmullRom.Scale(dst, dst.Bounds(), src, src.Bounds(), draw.Over, nil)
		if mime == "image/png" {
			var b bytes.Buffer
			if err := png.Encode(&b, dst); err == nil && b.Len() <= maxBytes {
				return Fitted{Data: b.Bytes(), MIME: "image/png", Width: nw, Height: nh, Scaled: true}, nil
			}
		}
		// JPEG has no transparency: what was transparent goes on white.
		flat := image.NewRGBA(dst.Bounds())
		draw.Draw(flat, flat.Bounds(), image.White, image.Point{}, draw.Src)
		draw.Draw(flat, flat.Bounds(), dst, image.Point{}, draw.Over)
		var b bytes.Buffer
		if err := jpeg.Encode(&b, flat, &jpeg.Options{Quality: 85}); err != nil {
			return Fitted{}, fmt.Errorf("the scaled image cannot be encoded: %w", err)
		}
		if b.Len() <= maxBytes {
			return Fitted{Data: b.Bytes(), MIME: "image/jpeg", Width: nw, Height: nh, Scaled: true}, nil
		}
		if edge/2 < minEdge {
			break
		}
	}
	return Fitted{}, ErrTooLarge
}

// MaxPixels is the most pixels Fit decodes: a file of a megabyte can
// declare an image that takes gigabytes once decoded. It is Pillow's
// MAX_IMAGE_PIXELS (docs/SOURCES.md#image-decompression-bombs).
const MaxPixels = 89_478_485

func formatGB(n int64) string { return fmt.Sprintf("%.1f GB", float64(n)/(1<<30)) }

// minEdge is the smallest longer side Fit scales to.
const minEdge = 256

// scaled is w×h with its longer side edge.
func scaled(w, h, edge int) (int, int) {
	if w >= h {
		return edge, max(1, h*edge/w)
	}
	return max(1, w*edge/h), edge
}

// Keep the standard decoders registered for image.Decode.
var _ = gif.Decode
