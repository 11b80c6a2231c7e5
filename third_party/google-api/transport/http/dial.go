// Copyright 2015 Google LLC.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// Package http supports network connections to HTTP servers.
// This package is not intended for use by end developers. Use the
// google.golang.org/api/option package to configure API clients.
//
// co's trimmed copy only hands back the client given to
// option.WithHTTPClient, as upstream does when one is given; it builds no
// transports or credentials of its own (see third_party/google-api/PATCH.md).
package http

import (
	"context"
	"errors"
	"net/http"

	"google.golang.org/api/internal"
	"google.golang.org/api/option"
)

// ErrNoHTTPClient is returned by NewClient, and so by every generated
// NewService, when no option.WithHTTPClient (or a nil client) is given.
var ErrNoHTTPClient = errors.New("google api: a client without option.WithHTTPClient is not supported in co's trimmed google.golang.org/api (it has no credentials, API-key, mTLS or gRPC support); pass option.WithHTTPClient with a client that authorizes its requests")

// NewClient returns an HTTP client for use communicating with a Google cloud
// service, configured with the given ClientOptions. It also returns the endpoint
// for the service as specified in the options.
func NewClient(ctx context.Context, opts ...option.ClientOption) (*http.Client, string, error) {
	var settings internal.DialSettings
	for _, opt := range opts {
		opt.Apply(&settings)
	}
	endpoint, err := internal.GetHTTPEndpoint(&settings)
	if err != nil {
		return nil, "", err
	}
	if settings.HTTPClient == nil {
		return nil, "", ErrNoHTTPClient
	}
	return settings.HTTPClient, endpoint, nil
}
