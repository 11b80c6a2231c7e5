// Package sandboxtest holds what tests of the Docker sandbox share across packages (sandbox's
// own and e2e's): a proxy of the Docker API that holds container creation, or removal.
package sandboxtest

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
)

// CreateHold forwards the Docker API from a unix socket of its own to the engine's, and holds
// the answers to container create requests until Release: the engine gets the request at
// once, the client waits, so a container stays "being created" for as long as a test needs.
type CreateHold struct {
	sock     string
	released chan struct{}
	once     sync.Once
	armed    atomic.Bool  // NewRemoveHold: hold removals
	held     atomic.Int64 // requests held so far
}

// NewCreateHold starts a CreateHold for t's duration (skipped when DOCKER_HOST is not a unix
// socket).
func NewCreateHold(t testing.TB) *CreateHold {
	t.Helper()
	return newHold(t, func(_ *CreateHold, r *http.Request) bool {
		return r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/containers/create")
	})
}

// NewRemoveHold is a CreateHold that holds the answers to container removals (DELETE
// /containers/{id}) instead, once Arm is called (before, removals pass: the sweep of stale
// containers, say): the engine removes the container at once, the client waits until Release.
// Whoever waits for a removal through it waits until then.
func NewRemoveHold(t testing.TB) *CreateHold {
	t.Helper()
	return newHold(t, func(p *CreateHold, r *http.Request) bool {
		return p.armed.Load() && r.Method == http.MethodDelete && strings.Contains(r.URL.Path, "/containers/")
	})
}

// Arm makes a NewRemoveHold hold removals from now on.
func (p *CreateHold) Arm() { p.armed.Store(true) }

func newHold(t testing.TB, held func(*CreateHold, *http.Request) bool) *CreateHold {
	t.Helper()
	target := "/var/run/docker.sock"
	if h := os.Getenv("DOCKER_HOST"); h != "" {
		var ok bool
		if target, ok = strings.CutPrefix(h, "unix://"); !ok {
			t.Skipf("DOCKER_HOST %s is not a unix socket", h)
		}
	}
	dir, err := os.MkdirTemp("", "hold")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	p := &CreateHold{sock: filepath.Join(dir, "docker.sock"), released: make(chan struct{})}
	ln, err := net.Listen("unix", p.sock)
	if err != nil {
		t.Fatal(err)
	}
	rp := &httputil.ReverseProxy{
		Rewrite: func(r *httputil.ProxyRequest) {
			r.Out.URL.Scheme, r.Out.URL.Host = "http", "docker"
		},
		Transport: &http.Transport{DialContext: func(ctx context.Context, _, _ string) (net.Conn, error) {
			return (&net.Dialer{}).DialContext(ctx, "unix", target)
		}},
		FlushInterval: -1,
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !held(p, r) {
			rp.ServeHTTP(w, r)
			return
		}
		p.held.Add(1)
		rec := httptest.NewRecorder()
		rp.ServeHTTP(rec, r) // the engine gets the request now
		<-p.released
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		_, _ = w.Write(rec.Body.Bytes())
	})}
	go func() { _ = srv.Serve(ln) }()
	t.Cleanup(func() { p.Release(); _ = srv.Close() })
	return p
}

// Host is the DOCKER_HOST value that reaches the engine through the hold.
func (p *CreateHold) Host() string { return "unix://" + p.sock }

// Held is how many requests the hold has held (their answers sent or not).
func (p *CreateHold) Held() int { return int(p.held.Load()) }

// Release lets the held answers (and every later one) through.
func (p *CreateHold) Release() { p.once.Do(func() { close(p.released) }) }
