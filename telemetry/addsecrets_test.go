package telemetry

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.opentelemetry.io/otel/attribute"
)

// A key given after start-up (the chat's first-run setup) is redacted from
// the spans stored from then on: the real store, read back from disk.
func TestAddSecretsRedactsLaterSpans(t *testing.T) {
	dir := t.TempDir()
	tr, err := Setup(Options{DBPath: filepath.Join(dir, "telemetry.db"), SessionID: "s", CaptureContent: true,
		Getenv: func(string) string { return "" }, NoPrune: true})
	if err != nil {
		t.Fatal(err)
	}
	const key = "custom-provider-token-9f8e7d6c"
	tr.AddSecrets(key)
	_, span := tr.Tracer().Start(context.Background(), "turn")
	span.SetAttributes(attribute.String("gen_ai.input.messages", "my key is "+key+", keep it"))
	span.End()
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	var all strings.Builder
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		all.Write(b)
	}
	if strings.Contains(all.String(), key) {
		t.Errorf("the key added after start-up is in the span store")
	}
	if !strings.Contains(all.String(), "my key is "+Redacted+", keep it") {
		t.Errorf("the span was not stored redacted (%d bytes on disk)", all.Len())
	}
}
