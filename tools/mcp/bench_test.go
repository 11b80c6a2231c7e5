package mcp_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"sort"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/mcp"
)

// BenchmarkCallOverhead measures what co adds to one MCP call against the
// in-process server (streamable HTTP): the approval check, the arguments'
// validation, the adapter and the rendering of the result, as the p50 of
// co's call minus the p50 of the SDK's own CallTool on a session to the
// same server (which is the server's and the transport's share).
//
//	go test -run '^$' -bench CallOverhead ./tools/mcp
func BenchmarkCallOverhead(b *testing.B) {
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return newTestServer() }, nil))
	reg, _ := tools.NewRegistry()
	m := mcp.New(mcp.Options{Servers: []mcp.ServerConfig{{Name: "b", URL: srv.URL}}, Registry: reg})
	b.Cleanup(func() { m.Close(); srv.Close() })
	m.Start()
	if n := m.Wait(context.Background()); len(n) != 0 {
		b.Fatal(n)
	}
	tool, _ := reg.Get("mcp__b__echo")
	client := sdk.NewClient(&sdk.Implementation{Name: "raw"}, nil)
	cs, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: srv.URL}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	args := json.RawMessage(`{"text":"hello"}`)
	v := tools.NewValidator()
	ctx := context.Background()
	co := make([]time.Duration, 0, b.N)
	raw := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for b.Loop() {
		t0 := time.Now()
		if err := v.Validate(tool, args); err != nil {
			b.Fatal(err)
		}
		_ = tools.Decide(ctx, tool, args)
		if _, err := tool.Run(ctx, args); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if _, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "echo", Arguments: args}); err != nil {
			b.Fatal(err)
		}
		co, raw = append(co, t1.Sub(t0)), append(raw, time.Since(t1))
	}
	p50 := func(ds []time.Duration) float64 {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		return float64(ds[len(ds)/2].Microseconds())
	}
	b.ReportMetric(p50(co), "co-p50-µs")
	b.ReportMetric(p50(raw), "sdk-p50-µs")
	b.ReportMetric(p50(co)-p50(raw), "overhead-p50-µs")
}
