package google_test

// These tests pin what co relies on in google.golang.org/api beyond what
// the tool tests reach through googlefake: the request headers with co's
// own HTTP client (option.WithHTTPClient, which every co service passes),
// and the retries of gensupport (which upstream makes only in resumable
// uploads; a plain call that gets a 503 returns it, see
// TestServiceErrorsSayWhatToDo).

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/googleapis/gax-go/v2/callctx"
	drive "google.golang.org/api/drive/v3"
	"google.golang.org/api/googleapi"
	"google.golang.org/api/option"
)

func TestRequestHeaders(t *testing.T) {
	var mu sync.Mutex
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r.Header.Clone()
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"files":[]}`)
	}))
	defer srv.Close()
	srvc, err := drive.NewService(context.Background(), option.WithHTTPClient(srv.Client()), option.WithEndpoint(srv.URL+"/drive/v3/"))
	if err != nil {
		t.Fatal(err)
	}
	ctx := callctx.SetHeaders(context.Background(), "x-goog-api-client", "extra/1", "x-goog-request-params", "a=1", "x-other", "v")
	if _, err := srvc.Files.List().Context(ctx).Do(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	for _, h := range []struct{ key, want string }{
		{"User-Agent", `^google-api-go-client/0\.5$`},
		{"X-Goog-Api-Client", `^gl-go/[0-9.]+\S* gdcl/0\.[0-9]+\.[0-9]+ extra/1$`},
		{"X-Goog-Request-Params", `^a=1$`},
		{"X-Other", `^v$`},
	} {
		if v := got.Get(h.key); !regexp.MustCompile(h.want).MatchString(v) {
			t.Errorf("%s: %q, want %s", h.key, v, h.want)
		}
	}
}

// uploadServer speaks Drive's resumable upload protocol, as Google does for
// a client that sends X-GUploader-No-308, and fails the first try of the
// first chunk with a 503.
type uploadServer struct {
	mu       sync.Mutex
	content  bytes.Buffer
	tries    map[string]int // by Content-Range
	attempts []string       // the gccl-attempt-count of each chunk request
}

func (s *uploadServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case r.URL.Path == "/upload/drive/v3/files" && r.URL.Query().Get("uploadType") == "resumable":
		w.Header().Set("Location", "http://"+r.Host+"/upload/session/1")
	case r.URL.Path == "/upload/session/1":
		rng := r.Header.Get("Content-Range")
		_, count, _ := strings.Cut(r.Header.Get("X-Goog-Api-Client"), "gccl-attempt-count/")
		s.attempts = append(s.attempts, count)
		s.tries[rng]++
		data, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if len(s.tries) == 1 && s.tries[rng] == 1 {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = io.WriteString(w, `{"error":{"code":503,"message":"Backend Error"}}`)
			return
		}
		var first, last int64
		var total string
		if _, err := fmt.Sscanf(rng, "bytes %d-%d/%s", &first, &last, &total); err != nil || first != int64(s.content.Len()) || last-first+1 != int64(len(data)) {
			http.Error(w, "bad Content-Range "+rng, http.StatusBadRequest)
			return
		}
		s.content.Write(data)
		if total == "*" {
			w.Header().Set("X-Http-Status-Code-Override", "308")
			w.Header().Set("Range", "bytes=0-"+strconv.Itoa(s.content.Len()-1))
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"id":"up-1","name":"notes.txt","size":"%d"}`, s.content.Len())
	default:
		http.NotFound(w, r)
	}
}

func TestDriveUploadRetries503(t *testing.T) {
	us := &uploadServer{tries: map[string]int{}}
	srv := httptest.NewServer(us)
	defer srv.Close()
	srvc, err := drive.NewService(context.Background(), option.WithHTTPClient(srv.Client()), option.WithEndpoint(srv.URL+"/drive/v3/"))
	if err != nil {
		t.Fatal(err)
	}
	const chunk = googleapi.MinUploadChunkSize
	content := bytes.Repeat([]byte("0123456789abcdef"), (chunk+chunk/2)/16)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	f, err := srvc.Files.Create(&drive.File{Name: "notes.txt"}).
		Media(bytes.NewReader(content), googleapi.ChunkSize(chunk), googleapi.ContentType("text/plain")).
		Context(ctx).Do()
	if err != nil {
		t.Fatalf("upload: %v", err)
	}
	if f.Id != "up-1" || f.Size != int64(len(content)) {
		t.Errorf("file %+v, want id up-1 and size %d", f, len(content))
	}
	us.mu.Lock()
	defer us.mu.Unlock()
	if !bytes.Equal(us.content.Bytes(), content) {
		t.Errorf("the server got %d bytes, not the %d sent", us.content.Len(), len(content))
	}
	if want := []string{"1", "2", "1"}; strings.Join(us.attempts, ",") != strings.Join(want, ",") {
		t.Errorf("attempt counts %v, want %v (the first chunk retried once)", us.attempts, want)
	}
}
