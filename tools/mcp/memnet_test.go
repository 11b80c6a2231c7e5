package mcp_test

import (
	"context"
	"net"
	"net/http"
	"sync"
	"testing"
)

// memHTTP serves h over an in-memory network and returns the round
// tripper that reaches it, for a test inside a testing/synctest bubble
// (call it there): a goroutine blocked on a real socket is not durably
// blocked, so the bubble's clock would never move. The requests are real
// HTTP/1.1; the URL's host is not looked up. t's cleanup closes both
// ends, after the cleanups registered later (a manager's Close, which
// still talks to the server).
func memHTTP(t *testing.T, h http.Handler) http.RoundTripper {
	t.Helper()
	ln := &pipeListener{conns: make(chan net.Conn), done: make(chan struct{})}
	srv := &http.Server{Handler: h}
	go func() { _ = srv.Serve(ln) }()
	tr := &http.Transport{DialContext: ln.dial}
	t.Cleanup(func() {
		tr.CloseIdleConnections()
		_ = srv.Close()
	})
	return tr
}

// pipeListener is a net.Listener whose connections are net.Pipe's, which
// wait on channels (durably blocking in a bubble). Not grpc's bufconn: its
// read deadline can fire after it was cleared (a stopped timer's callback
// still sets it), which cancels an HTTP request on a reused connection.
type pipeListener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

func (l *pipeListener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

func (l *pipeListener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

func (l *pipeListener) dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
	case <-ctx.Done():
	}
	client.Close()
	server.Close()
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	return nil, net.ErrClosed
}

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }
