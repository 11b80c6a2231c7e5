package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/co-cli/co/lib/safe"
)

// dashboardCSP lets the page load its own assets and call its own API, and
// nothing else.
const dashboardCSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// Dashboard is co logs: a read-only web view of the store (recent sessions
// and traces, filters, a trace's waterfall, span details, live refresh).
// Serve it on a loopback address only.
type Dashboard struct {
	store *Store
	mux   *http.ServeMux
}

// NewDashboard returns the dashboard's handler for the store.
func NewDashboard(st *Store) *Dashboard {
	d := &Dashboard{store: st, mux: http.NewServeMux()}
	d.mux.HandleFunc("GET /{$}", d.page("dashboard.html", "text/html; charset=utf-8"))
	d.mux.HandleFunc("GET /style.css", d.page("style.css", "text/css; charset=utf-8"))
	d.mux.HandleFunc("GET /waterfall.js", d.page("waterfall.js", "text/javascript; charset=utf-8"))
	d.mux.HandleFunc("GET /dashboard.js", d.page("dashboard.js", "text/javascript; charset=utf-8"))
	d.mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) })
	d.mux.HandleFunc("GET /api/meta", d.api(d.meta))
	d.mux.HandleFunc("GET /api/sessions", d.api(func(ctx context.Context, _ *http.Request) (any, error) {
		ss, err := d.store.Sessions(ctx, 100)
		return safeSessions(ss), err
	}))
	d.mux.HandleFunc("GET /api/tools", d.api(func(ctx context.Context, _ *http.Request) (any, error) {
		names, err := d.store.ToolNames(ctx)
		return safeStrings(names), err
	}))
	d.mux.HandleFunc("GET /api/traces", d.api(d.traces))
	d.mux.HandleFunc("GET /api/trace", d.api(d.trace))
	return d
}

// ServeHTTP serves only requests addressed to a loopback host (a page on
// another site cannot reach it through DNS rebinding).
func (d *Dashboard) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !loopbackHost(r.Host) {
		http.Error(w, "co logs answers on the loopback address only", http.StatusForbidden)
		return
	}
	w.Header().Set("Content-Security-Policy", dashboardCSP)
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("Cache-Control", "no-store")
	d.mux.ServeHTTP(w, r)
}

// loopbackHost reports whether a host or host:port names this machine's
// loopback interface.
func loopbackHost(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func (d *Dashboard) page(name, ctype string) http.HandlerFunc {
	body := asset(name)
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", ctype)
		_, _ = w.Write([]byte(body))
	}
}

func (d *Dashboard) api(f func(ctx context.Context, r *http.Request) (any, error)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), 10*time.Second)
		defer cancel()
		v, err := f(ctx, r)
		status := http.StatusOK
		switch {
		case errors.Is(err, ErrNoStore):
			v, status = map[string]any{"error": "no telemetry yet: co has not written " + d.store.Path()}, http.StatusOK
			if r.URL.Path != "/api/meta" {
				v = []any{}
			}
		case errors.Is(err, ErrNoTrace):
			v, status = map[string]string{"error": err.Error()}, http.StatusNotFound
		case err != nil:
			v, status = map[string]string{"error": err.Error()}, http.StatusInternalServerError
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
}

func (d *Dashboard) meta(ctx context.Context, _ *http.Request) (any, error) {
	head, count, err := d.store.Head(ctx)
	if errors.Is(err, ErrNoStore) {
		return map[string]any{"path": d.store.Path(), "head": 0, "count": 0, "empty": true}, nil
	}
	if err != nil {
		return nil, err
	}
	return map[string]any{"path": d.store.Path(), "head": head, "count": count}, nil
}

func (d *Dashboard) traces(ctx context.Context, r *http.Request) (any, error) {
	q := r.URL.Query()
	f := TraceFilter{
		SessionID:  q.Get("session"),
		Tool:       q.Get("tool"),
		ErrorsOnly: q.Get("errors") == "1" || q.Get("errors") == "true",
		Text:       q.Get("q"),
	}
	if n, err := strconv.Atoi(q.Get("limit")); err == nil {
		f.Limit = min(n, 1000)
	}
	ts, err := d.store.Traces(ctx, f)
	return safeTraces(ts), err
}

func (d *Dashboard) trace(ctx context.Context, r *http.Request) (any, error) {
	id := r.URL.Query().Get("id")
	if id == "" {
		return nil, ErrNoTrace
	}
	spans, err := d.store.Trace(ctx, id)
	if err != nil {
		return nil, err
	}
	tid := ""
	if len(spans) > 0 {
		tid = spans[0].TraceID
	}
	return traceDoc{TraceID: safe.Text(tid), Spans: safeSpans(spans)}, nil
}

// Serve runs the dashboard on addr (host:port; port 0 picks one) until ctx
// ends. ready is called with the URL once it listens.
func (d *Dashboard) Serve(ctx context.Context, addr string, ready func(url string)) error {
	if !loopbackHost(addr) {
		return errors.New("co logs binds to a loopback address only (127.0.0.1)")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: d, ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	if ready != nil {
		ready("http://" + ln.Addr().String() + "/")
	}
	if err := srv.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
