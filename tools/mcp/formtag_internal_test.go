package mcp

import (
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

// An SSE body read through tagReader, whole or a byte at a time: each
// elicitation/create request gets the call's tag in its params' _meta
// (beside the server's own _meta), whatever the line endings or however
// its data lines are split; every other event passes byte for byte.
func TestTagReader(t *testing.T) {
	const elicit = `{"jsonrpc":"2.0","id":3,"method":"elicitation/create","params":{"message":"x?","requestedSchema":{"type":"object"}}}`
	cases := []struct {
		name, body string
		tagged     int // the events that are requests for a form
	}{
		{"lf", "id: 1\ndata: " + elicit + "\n\n", 1},
		{"crlf", "id: 1\r\ndata: " + elicit + "\r\n\r\n", 1},
		{"cr", "id: 1\rdata: " + elicit + "\r\r", 1},
		{"split data lines", "data: {\"jsonrpc\":\"2.0\",\"id\":4,\ndata: \"method\":\"elicitation/create\",\"params\":{}}\n\n", 1},
		{"server meta kept", `data: {"jsonrpc":"2.0","id":5,"method":"elicitation/create","params":{"_meta":{"k":"v"}}}` + "\n\n", 1},
		{"others untouched", ": comment\n\nid: 2\nretry: 10\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/progress\",\"params\":{}}\n\n" +
			"data: {\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{\"content\":[]}}\n\ndata: not json\n\n", 0},
		{"a notification named so", `data: {"jsonrpc":"2.0","method":"elicitation/create","params":{}}` + "\n\n", 0},
		{"unended event", "data: " + elicit, 0},
	}
	for _, c := range cases {
		for _, oneByte := range []bool{false, true} {
			body := io.NopCloser(strings.NewReader(c.body))
			if oneByte {
				body = io.NopCloser(iotest.OneByteReader(body))
			}
			b, err := io.ReadAll(&tagReader{body: body, tag: "T1"})
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			got := string(b)
			if c.tagged == 0 {
				if got != c.body {
					t.Errorf("%s (one byte %v): changed to %q", c.name, oneByte, got)
				}
				continue
			}
			n := 0
			for _, ev := range strings.Split(got, "\n\n") {
				d, ok := strings.CutPrefix(ev[strings.Index(ev, "data: ")+1:], "ata: ")
				if !ok {
					continue
				}
				var msg struct {
					Method string
					Params struct {
						Meta map[string]any `json:"_meta"`
					}
				}
				if err := json.Unmarshal([]byte(d), &msg); err != nil {
					t.Fatalf("%s: %q: %v", c.name, d, err)
				}
				if msg.Params.Meta[formTagKey] != "T1" {
					t.Errorf("%s (one byte %v): %q not tagged", c.name, oneByte, d)
				}
				if strings.Contains(c.body, `"k":"v"`) && msg.Params.Meta["k"] != "v" {
					t.Errorf("%s: the server's _meta lost: %q", c.name, d)
				}
				n++
			}
			if n != c.tagged || !strings.HasPrefix(got, "id: 1\n") && strings.HasPrefix(c.body, "id: 1") {
				t.Errorf("%s (one byte %v): %q", c.name, oneByte, got)
			}
		}
	}
}
