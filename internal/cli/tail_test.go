package cli

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/trace"

	"github.com/co-cli/co/telemetry"
)

// co tail shows the kinds its help lists (AGENT, LLM, TOOL), in the order
// they started, although the store keeps spans as they end; the Docker API
// client's HTTP spans only with --all.
func TestTailShowsCoKindsInStartOrder(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	dataDir := filepath.Join(home, ".local", "share", "co-cli")
	tr, err := telemetry.Setup(telemetry.Options{DBPath: telemetry.DBPath(dataDir), SessionID: "s", NoPrune: true})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(-time.Minute)
	tick := func() trace.SpanEventOption { at = at.Add(time.Second); return trace.WithTimestamp(at) }
	tracer := tr.Tracer()
	ctx, root := tracer.Start(context.Background(), "invoke_agent", tick(), trace.WithAttributes(attribute.String("gen_ai.operation.name", "invoke_agent")))
	_, chat := tracer.Start(ctx, "chat m", tick(), trace.WithAttributes(attribute.String("gen_ai.operation.name", "chat")))
	chat.End(trace.WithTimestamp(at.Add(time.Millisecond)))
	cctx, call := tracer.Start(ctx, "execute_tool run_shell_command", tick(), trace.WithAttributes(attribute.String("gen_ai.operation.name", "execute_tool")))
	_, docker := tracer.Start(cctx, "POST /v1.41/containers/x/exec", tick())
	docker.End(trace.WithTimestamp(at.Add(time.Millisecond)))
	call.End(tick())
	root.End(tick())
	if err := tr.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}

	code, out, errOut := run(t, "v", "tail", "--no-follow")
	if code != 0 {
		t.Fatalf("co tail: exit %d, %s", code, errOut)
	}
	if strings.Contains(out, "/containers/") {
		t.Errorf("co tail shows the Docker client's spans by default:\n%s", out)
	}
	order := []string{"AGENT  invoke_agent", "LLM    chat m", "TOOL   execute_tool run_shell_command"}
	last := -1
	for _, w := range order {
		i := strings.Index(out, w)
		if i < last {
			t.Errorf("%q is out of start order (or missing):\n%s", w, out)
		}
		last = i
	}
	_, all, _ := run(t, "v", "tail", "--no-follow", "--all")
	if !strings.Contains(all, "SPAN   POST /v1.41/containers/x/exec") {
		t.Errorf("co tail --all lacks the Docker span:\n%s", all)
	}
}
