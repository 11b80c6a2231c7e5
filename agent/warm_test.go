package agent_test

import (
	"context"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/agent/provider"
)

// slowLink is a TCP relay to target that delays every byte by oneWay in
// each direction, as a link with a round trip of 2×oneWay does: the
// delay does not add up over chunks, it shifts them.
type slowLink struct {
	ln     net.Listener
	conns  atomic.Int32
	oneWay time.Duration
}

func newSlowLink(t testing.TB, target string, oneWay time.Duration) *slowLink {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &slowLink{ln: ln, oneWay: oneWay}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			l.conns.Add(1)
			up, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			go l.pipe(c, up)
			go l.pipe(up, c)
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return l
}

func (l *slowLink) pipe(src, dst net.Conn) {
	type piece struct {
		due  time.Time
		data []byte
	}
	ch := make(chan piece, 1024)
	go func() {
		defer dst.Close()
		for p := range ch {
			time.Sleep(time.Until(p.due))
			if _, err := dst.Write(p.data); err != nil {
				return
			}
		}
	}()
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			ch <- piece{time.Now().Add(l.oneWay), append([]byte(nil), buf[:n]...)}
		}
		if err != nil {
			close(ch)
			return
		}
	}
}

// firstPromptLatency is the time from Submit to the first text of the
// reply, through a link with a 50 ms round trip to a TLS server.
func firstPromptLatency(t testing.TB, warm bool) time.Duration {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body) // the request is not looked at: read to its end, whatever it holds
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	link := newSlowLink(t, srv.Listener.Addr().String(), 25*time.Millisecond)
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	tr := srv.Client().Transport.(*http.Transport).Clone()
	tr.TLSClientConfig.RootCAs = pool
	defer tr.CloseIdleConnections()

	ag := agent.New(agent.Config{
		Provider:  provider.Provider{Name: "openai", BaseURL: "https://" + link.ln.Addr().String() + "/v1", APIKey: "k", Model: "m"},
		Transport: tr,
	})
	if warm {
		ag.Warm()
		deadline := time.Now().Add(5 * time.Second)
		for link.conns.Load() == 0 && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		time.Sleep(400 * time.Millisecond) // the HEAD's round trips are over
	}
	start := time.Now()
	var first time.Duration
	for ev := range ag.Submit(context.Background(), "hello") {
		if _, ok := ev.(agent.TextDelta); ok && first == 0 {
			first = time.Since(start)
		}
		if f, ok := ev.(agent.TurnFailed); ok {
			t.Fatalf("turn failed: %s", f.Message)
		}
	}
	if warm && link.conns.Load() != 1 {
		t.Errorf("the warm connection was not used: %d connections", link.conns.Load())
	}
	return first
}

// BenchmarkWarmFirstPrompt measures what the warm connection saves: the
// time from Submit to the first text, cold and warm, through a link with a
// 50 ms round trip to a TLS server (medians of three runs each,
// alternating, per iteration). A figure, not a test: the behaviour is
// asserted by TestWarmConnectionIsReused.
func BenchmarkWarmFirstPrompt(b *testing.B) {
	med := func(d []time.Duration) time.Duration {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[len(d)/2]
	}
	var c, w time.Duration
	for b.Loop() {
		var cold, warm []time.Duration
		for i := 0; i < 3; i++ {
			cold = append(cold, firstPromptLatency(b, false))
			warm = append(warm, firstPromptLatency(b, true))
		}
		c, w = med(cold), med(warm)
	}
	b.ReportMetric(float64(c)/float64(time.Millisecond), "cold-ms")
	b.ReportMetric(float64(w)/float64(time.Millisecond), "warm-ms")
	b.ReportMetric(float64(c-w)/float64(time.Millisecond), "saved-ms")
}

// TestWarmConnectionIsReused: Warm opens the connection the first prompt
// then uses. The server counts the connections it accepts: one once the
// warm-up's HEAD has arrived, still one after the prompt's answer. Over
// HTTP/2 (as providers serve) the client pools the connection as soon as
// its handshake is done, before the HEAD is sent, so once the server has
// the HEAD the prompt finds the connection; no clock is read.
func TestWarmConnectionIsReused(t *testing.T) {
	var conns atomic.Int32
	head := make(chan struct{})
	var once sync.Once
	var proto atomic.Int32 // HTTP major version of the HEAD
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			proto.Store(int32(r.ProtoMajor))
			once.Do(func() { close(head) })
			w.WriteHeader(http.StatusNotFound)
			return
		}
		_, _ = io.Copy(io.Discard, r.Body) // the request is not looked at: read to its end, whatever it holds
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n")
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.EnableHTTP2 = true
	srv.StartTLS()
	t.Cleanup(srv.Close)
	tr := srv.Client().Transport.(*http.Transport).Clone()
	t.Cleanup(tr.CloseIdleConnections)

	ag := agent.New(agent.Config{
		Provider:  provider.Provider{Name: "openai", BaseURL: srv.URL + "/v1", APIKey: "k", Model: "m"},
		Transport: tr,
	})
	if n := conns.Load(); n != 0 {
		t.Fatalf("%d connections before Warm", n)
	}
	ag.Warm()
	select {
	case <-head:
	case <-time.After(30 * time.Second): // a hang guard, not a measure
		t.Fatalf("the warm-up's HEAD never reached the server (%d connections)", conns.Load())
	}
	if p := proto.Load(); p != 2 {
		t.Fatalf("the warm-up came over HTTP/%d; this test relies on HTTP/2's pooling", p)
	}
	if n := conns.Load(); n != 1 {
		t.Fatalf("%d connections after the warm-up; want 1", n)
	}
	text := ""
	for ev := range ag.Submit(context.Background(), "hello") {
		switch ev := ev.(type) {
		case agent.TextDelta:
			text += ev.Text
		case agent.TurnFailed:
			t.Fatalf("turn failed: %s", ev.Message)
		}
	}
	if text != "hi" {
		t.Errorf("answer %q", text)
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("the first prompt opened its own connection: %d connections; want the warmed one reused", n)
	}
}
