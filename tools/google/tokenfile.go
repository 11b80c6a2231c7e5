package google

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// googleTokenURL is Google's token endpoint, used when a file names none.
const googleTokenURL = "https://oauth2.googleapis.com/token"

// SavedToken is the file co google auth writes: an "authorized_user"
// credentials file, as gcloud writes for Application Default Credentials,
// with the current access token, its expiry and the granted scopes beside
// it. Other Google tools can read it as ADC.
type SavedToken struct {
	Type         string    `json:"type"`
	ClientID     string    `json:"client_id"`
	ClientSecret string    `json:"client_secret"`
	RefreshToken string    `json:"refresh_token"`
	TokenURI     string    `json:"token_uri,omitempty"`
	AccessToken  string    `json:"access_token,omitempty"`
	TokenType    string    `json:"token_type,omitempty"`
	Expiry       time.Time `json:"expiry,omitzero"`
	Scopes       []string  `json:"scopes,omitempty"`
}

// ReadToken reads an authorized-user file (co's or gcloud's).
func ReadToken(path string) (*SavedToken, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var t SavedToken
	if err := json.Unmarshal(data, &t); err != nil {
		return nil, fmt.Errorf("%s is not a token file: %v", path, err)
	}
	if t.Type != "" && t.Type != "authorized_user" {
		return nil, fmt.Errorf("%s holds %q credentials, not an authorized-user token", path, t.Type)
	}
	if t.RefreshToken == "" || t.ClientID == "" {
		return nil, fmt.Errorf("%s has no refresh token or client id: run `co google auth` to sign in again", path)
	}
	return &t, nil
}

// WriteToken saves t at path with mode 0600 (its directory 0700), replacing
// the file atomically.
func WriteToken(path string, t *SavedToken) error {
	if t.Type == "" {
		t.Type = "authorized_user"
	}
	data, err := json.MarshalIndent(t, "", "  ")
	if err != nil {
		return err
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".google-token-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// oauthConfig is the refresh side of t.
func (t *SavedToken) oauthConfig() *oauth2.Config {
	uri := t.TokenURI
	if uri == "" {
		uri = googleTokenURL
	}
	return &oauth2.Config{
		ClientID:     t.ClientID,
		ClientSecret: t.ClientSecret,
		Endpoint:     oauth2.Endpoint{TokenURL: uri, AuthStyle: oauth2.AuthStyleInParams},
		Scopes:       t.Scopes,
	}
}

func (t *SavedToken) token() *oauth2.Token {
	return &oauth2.Token{AccessToken: t.AccessToken, TokenType: t.TokenType, RefreshToken: t.RefreshToken, Expiry: t.Expiry}
}

// persistingSource saves each new access token back to the token file, so
// the next session does not refresh at once.
type persistingSource struct {
	mu   sync.Mutex
	src  oauth2.TokenSource
	path string
	file SavedToken
	last string
}

func (p *persistingSource) Token() (*oauth2.Token, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	tok, err := p.src.Token()
	if err != nil || tok.AccessToken == p.last {
		return tok, err
	}
	p.last = tok.AccessToken
	f := p.file
	f.AccessToken, f.TokenType, f.Expiry = tok.AccessToken, tok.TokenType, tok.Expiry
	if tok.RefreshToken != "" {
		f.RefreshToken = tok.RefreshToken
	}
	_ = WriteToken(p.path, &f) // best effort: the token works without it
	return tok, nil
}
