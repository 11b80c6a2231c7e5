package provider

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"testing"
)

// The failures no test server can make on demand, as net/http returns
// them: a host not found (no network yet after a wake), a dial that timed
// out; a stream that sent nothing. A cancelled turn is not unreachable.
func TestUnreachableKinds(t *testing.T) {
	dns := &url.Error{Op: "Post", URL: "https://api.example/v1/chat/completions",
		Err: &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "no such host", Name: "api.example", IsNotFound: true}}}
	timeout := &url.Error{Op: "Post", URL: "http://10.0.0.9:8080/v1/chat/completions",
		Err: &net.OpError{Op: "dial", Net: "tcp", Err: &net.DNSError{Err: "i/o timeout", IsTimeout: true}}}
	for _, tc := range []struct {
		name string
		err  error
		want bool
	}{
		{"no such host", dns, true},
		{"dial timeout", timeout, true},
		{"stalled", fmt.Errorf("reading the stream: %w", ErrStalled), true},
		{"cancelled", context.Canceled, false},
		{"nil", nil, false},
		{"something else", errors.New("the reply was not JSON"), false},
	} {
		if got := Unreachable(tc.err); got != tc.want {
			t.Errorf("%s: Unreachable(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}
