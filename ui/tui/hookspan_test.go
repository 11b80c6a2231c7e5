package tui

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	xansi "github.com/charmbracelet/x/ansi"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/co-cli/co/hooks"
	"github.com/co-cli/co/telemetry"
)

// A hook's run reaches the side panel as the span it is, under the span
// it ran in: a real hook, the real feed.
func TestAHooksRunShowsInTheSidePanel(t *testing.T) {
	feed := telemetry.NewFeed()
	events, stop := feed.Subscribe(16)
	defer stop()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(feed))
	cfg, _, err := hooks.Decode(json.RawMessage(`{"PreToolUse":[{"hooks":[{"type":"command","command":"echo no >&2; exit 2"}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	set := hooks.NewSet(hooks.Options{User: cfg, Dir: t.TempDir(), Tracer: tp.Tracer("test")})
	ctx, turn := tp.Tracer("test").Start(context.Background(), "invoke_agent co")
	if out := set.Run(ctx, hooks.PreToolUse, hooks.Input{ToolName: "run_shell_command"}); !out.Block {
		t.Fatalf("the hook did not block: %+v", out)
	}
	turn.End()

	th := NewTheme("dark", false)
	p := NewSidePanel(&th)
	p.SetSize(40, 8)
	for n := 0; n < 4; n++ { // two spans, each started and ended
		p.Apply(<-events)
	}
	v := xansi.Strip(p.View())
	turnAt, hookAt := strings.Index(v, "invoke_agent"), strings.Index(v, "execute_hook PreToolUse")
	if turnAt < 0 || hookAt < turnAt {
		t.Fatalf("the hook's span is not shown under the turn's:\n%s", v)
	}
}
