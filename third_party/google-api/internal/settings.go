// Copyright 2017 Google LLC.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package internal supports the options and transport packages.
package internal

import (
	"log/slog"
	"net/http"
	"os"
)

const (
	universeDomainEnvVar  = "GOOGLE_CLOUD_UNIVERSE_DOMAIN"
	defaultUniverseDomain = "googleapis.com"
)

// DialSettings holds information needed to establish a connection with a
// Google API service.
//
// co's trimmed copy keeps only what a client given option.WithHTTPClient
// uses: the endpoint, the HTTP client and the logger. The defaults the
// generated code sets (scopes, the new-auth switch) are recorded, unused.
type DialSettings struct {
	Endpoint                string
	DefaultEndpoint         string
	DefaultEndpointTemplate string
	DefaultMTLSEndpoint     string
	DefaultScopes           []string
	HTTPClient              *http.Client
	UniverseDomain          string
	Logger                  *slog.Logger
	EnableNewAuthLibrary    bool
}

// GetDefaultUniverseDomain returns the Google default universe domain
// ("googleapis.com").
func (ds *DialSettings) GetDefaultUniverseDomain() string {
	return defaultUniverseDomain
}

// GetUniverseDomain returns the default service domain for a given Cloud
// universe, with the following precedence:
//
// 1. A non-empty option.WithUniverseDomain.
// 2. A non-empty environment variable GOOGLE_CLOUD_UNIVERSE_DOMAIN.
// 3. The default value "googleapis.com".
func (ds *DialSettings) GetUniverseDomain() string {
	if ds.UniverseDomain != "" {
		return ds.UniverseDomain
	}
	if envUD := os.Getenv(universeDomainEnvVar); envUD != "" {
		return envUD
	}
	return defaultUniverseDomain
}

// IsUniverseDomainGDU returns true if the universe domain is the default Google
// universe ("googleapis.com").
func (ds *DialSettings) IsUniverseDomainGDU() bool {
	return ds.GetUniverseDomain() == defaultUniverseDomain
}
