package checkpoint

import (
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
)

func (s *Store) objectPath(hash string) string {
	return filepath.Join(s.dir, "objects", hash[:2], hash[2:])
}

// storeFile hashes the file at p and keeps its content (gzip) under its
// hash unless already kept. The content is read once: compressed into a
// temporary file while hashed, renamed into place, or dropped as a
// duplicate.
func (s *Store) storeFile(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	tmp, err := os.CreateTemp(filepath.Join(s.dir, "objects"), ".tmp-*")
	if err != nil {
		return "", err
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	zw := gzipWriters.Get().(*gzip.Writer)
	defer gzipWriters.Put(zw)
	zw.Reset(tmp)
	buf := copyBufs.Get().(*[]byte)
	defer copyBufs.Put(buf)
	// struct{ io.Reader } hides os.File's WriteTo, which would allocate a
	// buffer of its own per file.
	_, err = io.CopyBuffer(io.MultiWriter(h, zw), struct{ io.Reader }{f}, *buf)
	if err == nil {
		err = zw.Close()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", err
	}
	sum := hex.EncodeToString(h.Sum(nil))
	dst := s.objectPath(sum)
	if _, err := os.Stat(dst); err == nil {
		return sum, nil
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return "", err
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return "", err
	}
	return sum, nil
}

// gzipWriters saves a compressor's state (about 1 MiB) per stored file.
var gzipWriters = sync.Pool{New: func() any {
	zw, _ := gzip.NewWriterLevel(io.Discard, gzip.BestSpeed)
	return zw
}}

var copyBufs = sync.Pool{New: func() any {
	b := make([]byte, 32<<10)
	return &b
}}

var errDamaged = errors.New("the kept copy is damaged")

// readObject is the content kept under hash, checked against it.
func (s *Store) readObject(hash string) ([]byte, error) {
	if len(hash) != 64 {
		return nil, fmt.Errorf("bad hash %q", hash)
	}
	f, err := os.Open(s.objectPath(hash))
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, errors.New("its kept copy is gone (pruned?)")
		}
		return nil, err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return nil, errDamaged
	}
	b, err := io.ReadAll(zr)
	if err != nil {
		return nil, errDamaged
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != hash {
		return nil, errDamaged
	}
	return b, nil
}
