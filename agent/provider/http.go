package provider

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// Small JSON requests to a provider's server (model lists, Ollama's
// /api/show, a server's context window).

// getJSON decodes the JSON answer to GET url (with key as a bearer token
// when set) into v; an error status is a *ListError about what, with the
// body's message in plain words.
func getJSON(ctx context.Context, client *http.Client, what, url, key string, v any) error {
	status, msg, err := DoJSON(ctx, client, http.MethodGet, url, key, nil, v)
	switch {
	case err != nil && status == http.StatusOK:
		return fmt.Errorf("%s: %w", what, err)
	case err != nil:
		return err
	case status != http.StatusOK:
		return &ListError{What: what, Status: status, Message: msg}
	}
	return nil
}

// doJSON makes one small JSON request (a bearer key and a body when set)
// and decodes a 200 answer into out. Another status is returned with the
// body's message in plain words (PlainError) and no error; err with status
// 200 means the answer did not decode, with status 0 that the request
// failed.
func DoJSON(ctx context.Context, client *http.Client, method, url, key string, body []byte, out any) (status int, msg string, err error) {
	var r io.Reader
	if body != nil {
		r = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, r)
	if err != nil {
		return 0, "", err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return 0, "", err
	}
	if resp.StatusCode != http.StatusOK {
		return resp.StatusCode, PlainError(b), nil
	}
	return http.StatusOK, "", json.Unmarshal(b, out)
}

// ollamaRoot is Ollama's address without the /v1 of its OpenAI-compatible
// API.
func OllamaRoot(base string) string {
	return strings.TrimSuffix(strings.TrimRight(base, "/"), "/v1")
}
