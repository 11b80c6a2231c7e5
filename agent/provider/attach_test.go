package provider

import (
	"encoding/base64"
	"encoding/json"
	"testing"

	"github.com/co-cli/co/message"
)

// To OpenAI, a PDF goes as a file part (chat completions take PDFs only
// that way); elsewhere co sends no document part.
func TestPDFGoesAsAFilePartToOpenAI(t *testing.T) {
	p := Provider{Name: "openai", BaseURL: "https://api.openai.com/v1", Model: "gpt-4.1"}
	if m := MediaFor(p, nil, false); !m.PDF || !m.Images {
		t.Fatalf("OpenAI: %+v", m)
	}
	for _, q := range []Provider{
		{Name: "gemini", BaseURL: "https://generativelanguage.googleapis.com/v1beta/openai"},
		{Name: "ollama", BaseURL: "http://localhost:11434"},
		{Name: "openai", BaseURL: "http://localhost:8000/v1"},
	} {
		if MediaFor(q, nil, false).PDF {
			t.Errorf("%s takes PDF parts?", q.BaseURL)
		}
	}
	data := []byte("%PDF-1.4\n%%EOF\n")
	msgs := []message.Message{{Role: message.RoleUser, Content: "sum up", Attachments: []message.Attachment{
		{Kind: message.AttachPDF, Name: "r.pdf", MIME: "application/pdf", Data: data}}}}
	var body struct {
		Messages []struct {
			Content []struct {
				Type string
				Text string
				File struct {
					Filename string `json:"filename"`
					FileData string `json:"file_data"`
				}
			}
		}
	}
	if err := json.Unmarshal(encodeChatRequest(p, RequestOptions{}, "", msgs, nil, true), &body); err != nil {
		t.Fatal(err)
	}
	c := body.Messages[0].Content
	if len(c) != 2 || c[0].Text != "sum up" || c[1].Type != "file" || c[1].File.Filename != "r.pdf" ||
		c[1].File.FileData != "data:application/pdf;base64,"+base64.StdEncoding.EncodeToString(data) {
		t.Fatalf("content = %+v", c)
	}
}

// Ollama's capabilities decide: "vision" takes images, its absence none;
// no capabilities listed (an older Ollama) is tried.
func TestOllamaCapabilitiesDecideImages(t *testing.T) {
	p := Provider{Name: "ollama", BaseURL: "http://localhost:11434"}
	if m := MediaFor(p, []string{"completion", "vision"}, false); !m.Images || !m.Known {
		t.Errorf("vision: %+v", m)
	}
	if m := MediaFor(p, []string{"completion", "tools"}, false); m.Images || !m.Known {
		t.Errorf("no vision: %+v", m)
	}
	if m := MediaFor(p, nil, false); !m.Images || m.Known {
		t.Errorf("unknown: %+v", m)
	}
}
