// Package benchkit is what the benchmarks (scripts/benchtui,
// scripts/benchpeers) share: the streamed reply they ask for, and a fresh
// copy of a binary to launch.
package benchkit

import (
	"io"
	"os"
	"path/filepath"
	"strings"
)

// EndMarker ends MarkdownReply: on screen, the whole reply is.
const EndMarker = "ZQXJ-END"

// MarkdownReply is a realistic reply of about n characters: headings,
// paragraphs, lists, code, a table; it ends with EndMarker.
func MarkdownReply(n int) string {
	parts := []string{
		"## Overview\n\nThe service reads **events** from the queue, validates them against the `schema`, and writes the accepted ones to the store. Rejected events go to a *dead-letter* topic with the reason attached, so nothing is lost silently.\n\n",
		"- Parse the payload and check the version field.\n- Reject events older than the retention window.\n- Batch writes in groups of `500` to keep latency low.\n\n",
		"```go\nfunc (s *Service) Handle(ctx context.Context, ev Event) error {\n\tif err := s.schema.Validate(ev); err != nil {\n\t\treturn s.deadLetter(ctx, ev, err)\n\t}\n\treturn s.store.Put(ctx, ev)\n}\n```\n\n",
		"| setting | default | meaning |\n|---|---|---|\n| `batch_size` | 500 | events per write |\n| `retention` | 7d | oldest accepted event |\n\n",
		"### Next steps\n\n1. Add a metric for the dead-letter rate.\n2. Alert when it stays above **1%** for ten minutes.\n3. Document the replay procedure in the runbook.\n\n",
		"```bash\ncurl -s localhost:8080/healthz | jq .status\n```\n\nThat command prints `\"ok\"` when the service is healthy; anything else means the readiness probe will fail soon.\n\n",
	}
	var b strings.Builder
	for i := 0; b.Len() < n-200; i++ {
		b.WriteString(parts[i%len(parts)])
	}
	b.WriteString("That is the whole design. Fin. " + EndMarker)
	return b.String()
}

// FreshCopy writes a copy of path in large writes, as the linker does,
// and returns its name.
func FreshCopy(path string) (string, error) {
	src, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer src.Close()
	f, err := os.CreateTemp(filepath.Dir(path), ".benchtui-co-")
	if err != nil {
		return "", err
	}
	buf := make([]byte, 4<<20)
	for {
		n, rerr := src.Read(buf)
		if n > 0 {
			if _, err := f.Write(buf[:n]); err != nil {
				f.Close()
				return "", err
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			f.Close()
			return "", rerr
		}
	}
	if err := f.Chmod(0o755); err != nil {
		f.Close()
		return "", err
	}
	return f.Name(), f.Close()
}
