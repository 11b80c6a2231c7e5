//go:build !unix

package pathsafe

import "io/fs"

const openNonblock = 0

// links is the file's hard-link count; unknown here, so 1.
func links(fs.FileInfo) uint64 { return 1 }
