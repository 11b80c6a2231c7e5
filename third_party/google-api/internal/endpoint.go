// Copyright 2020 Google LLC.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

// endpoint.go is what co's trimmed copy keeps of upstream's cba.go
// (certificate-based access): the choice of the endpoint. The client
// certificate lookup (GOOGLE_API_USE_CLIENT_CERTIFICATE, enterprise
// certificate proxy, SecureConnect) and S2A are gone: a client given
// option.WithHTTPClient never presented that certificate, and never used S2A.

package internal

import (
	"errors"
	"net/url"
	"os"
	"strings"
)

const (
	mTLSModeAlways = "always"
	mTLSModeNever  = "never"
	mTLSModeAuto   = "auto"

	universeDomainPlaceholder = "UNIVERSE_DOMAIN"
)

var (
	errUniverseNotSupportedMTLS = errors.New("mTLS is not supported in any universe other than googleapis.com")
)

// GetHTTPEndpoint returns the endpoint to use for an HTTP client, as
// upstream's GetHTTPTransportConfigAndEndpoint does when no client
// certificate is found.
func GetHTTPEndpoint(settings *DialSettings) (string, error) {
	endpoint, err := getEndpoint(settings)
	if err != nil {
		return "", err
	}
	// TODO(chrisdsmith): https://github.com/googleapis/google-api-go-client/issues/2359
	if settings.Endpoint == "" && !settings.IsUniverseDomainGDU() && settings.DefaultEndpointTemplate != "" {
		endpoint = resolvedDefaultEndpoint(settings)
	}
	return endpoint, nil
}

// getEndpoint returns the endpoint for the service, taking into account the
// user-provided endpoint override "settings.Endpoint".
//
// If no endpoint override is specified, we will return the default endpoint,
// or the default mTLS endpoint if the GOOGLE_API_USE_MTLS_ENDPOINT environment
// variable is "always".
//
// If the endpoint override is an address (host:port) rather than full base
// URL (ex. https://...), then the user-provided address will be merged into
// the default endpoint. For example, WithEndpoint("myhost:8000") and
// WithDefaultEndpoint("https://foo.com/bar/baz") will return "https://myhost:8080/bar/baz"
func getEndpoint(settings *DialSettings) (string, error) {
	if settings.Endpoint == "" {
		if getMTLSMode() == mTLSModeAlways {
			if !settings.IsUniverseDomainGDU() {
				return "", errUniverseNotSupportedMTLS
			}
			return settings.DefaultMTLSEndpoint, nil
		}
		return resolvedDefaultEndpoint(settings), nil
	}
	if strings.Contains(settings.Endpoint, "://") {
		// User passed in a full URL path, use it verbatim.
		return settings.Endpoint, nil
	}
	if resolvedDefaultEndpoint(settings) == "" {
		// If DefaultEndpoint is not configured, use the user provided endpoint verbatim.
		return settings.Endpoint, nil
	}

	// Assume user-provided endpoint is host[:port], merge it with the default endpoint.
	return mergeEndpoints(resolvedDefaultEndpoint(settings), settings.Endpoint)
}

// resolvedDefaultEndpoint returns the DefaultEndpointTemplate merged with the
// Universe Domain if the DefaultEndpointTemplate is set, otherwise returns the
// deprecated DefaultEndpoint value.
func resolvedDefaultEndpoint(settings *DialSettings) string {
	if settings.DefaultEndpointTemplate == "" {
		return settings.DefaultEndpoint
	}
	return strings.Replace(settings.DefaultEndpointTemplate, universeDomainPlaceholder, settings.GetUniverseDomain(), 1)
}

func getMTLSMode() string {
	mode := os.Getenv("GOOGLE_API_USE_MTLS_ENDPOINT")
	if mode == "" {
		mode = os.Getenv("GOOGLE_API_USE_MTLS") // Deprecated.
	}
	if mode == "" {
		return mTLSModeAuto
	}
	return strings.ToLower(mode)
}

func mergeEndpoints(baseURL, newHost string) (string, error) {
	u, err := url.Parse(fixScheme(baseURL))
	if err != nil {
		return "", err
	}
	return strings.Replace(baseURL, u.Host, newHost, 1), nil
}

func fixScheme(baseURL string) string {
	if !strings.Contains(baseURL, "://") {
		return "https://" + baseURL
	}
	return baseURL
}
