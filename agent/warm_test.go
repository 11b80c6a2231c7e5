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
)

// slowLink is a TCP relay to target that delays every byte by oneWay in
// each direction, as a link with a round trip of 2×oneWay does: the
// delay does not add up over chunks, it shifts them.
type slowLink struct {
	ln     net.Listener
	conns  atomic.Int32
	wg     sync.WaitGroup
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
func firstPromptLatency(t *testing.T, warm bool) time.Duration {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == http.MethodHead {
			w.WriteHeader(http.StatusNotFound)
			return
		}
		io.Copy(io.Discard, r.Body)
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
		Provider:  agent.Provider{Name: "openai", BaseURL: "https://" + link.ln.Addr().String() + "/v1", APIKey: "k", Model: "m"},
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

// TestWarmConnectionSavesRoundTrips: with the connection opened after the
// first frame, the first prompt skips TCP's and TLS's round trips (50 ms
// each here). Medians of three runs each, alternating.
func TestWarmConnectionSavesRoundTrips(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	var cold, warm []time.Duration
	for i := 0; i < 3; i++ {
		cold = append(cold, firstPromptLatency(t, false))
		warm = append(warm, firstPromptLatency(t, true))
	}
	med := func(d []time.Duration) time.Duration {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
		return d[len(d)/2]
	}
	c, w := med(cold), med(warm)
	t.Logf("first prompt to first text over a 50 ms round trip: cold %v, warm %v (saved %v)", c, w, c-w)
	if c-w < 45*time.Millisecond {
		t.Errorf("the warm connection saved %v; it must save at least one 50 ms round trip (cold %v, warm %v)", c-w, c, w)
	}
}
