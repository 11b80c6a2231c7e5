// Copyright 2022 Google LLC. All rights reserved.
// Use of this source code is governed by a BSD-style
// license that can be found in the LICENSE file.

package gensupport

// WrapError returns err unchanged.
//
// Upstream wraps an [apierror.APIError] parsed from a *googleapi.Error into
// it, so that errors.As finds one; co's trimmed copy leaves that out, with
// gax-go's apierror package and the protobuf and gRPC packages it pulls in.
// The *googleapi.Error itself (code, message, details, errors, header, body)
// is unchanged; its Unwrap returns nil.
//
// [apierror.APIError]: https://pkg.go.dev/github.com/googleapis/gax-go/v2/apierror#APIError
func WrapError(err error) error {
	return err
}
