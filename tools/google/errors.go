package google

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"golang.org/x/oauth2"
	"google.golang.org/api/googleapi"

	"github.com/co-cli/co/tools"
)

// service is one of the three Google APIs, for messages.
type service int

const (
	svcDrive service = iota
	svcGmail
	svcCalendar
)

func (s service) String() string {
	return [...]string{"Drive", "Gmail", "Calendar"}[s]
}

// api is the API's name in the Cloud console.
func (s service) api() string {
	return [...]string{"drive.googleapis.com", "gmail.googleapis.com", "calendar-json.googleapis.com"}[s]
}

// scopes is how the scopes the service needs are described to the user.
func (s service) scopes() string {
	return [...]string{"Drive read-only", "Gmail read and compose", "Calendar read-only and events"}[s]
}

// errNotConfigured is returned when the credentials vanished after start.
var errNotConfigured = errors.New("Google is not configured")

// credentialsError is a credentials file that cannot be used; its message
// says what to do.
type credentialsError struct{ error }

// explain turns an error from a Google call into a message that says what
// happened and what to do. Mistakes of the call (400, 404) are *tools.Retry
// errors for the model; everything else is a plain error, whose message
// the model passes on to the user. A rejected credential is dropped, so the
// next call reads the credentials again.
func (a *Account) explain(s service, what string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || tools.IsRetry(err) {
		return err
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		a.forget(false)
		return fmt.Errorf("Google no longer accepts the sign-in from %s (%s: the token was revoked or has expired): %s", a.Source(), oauthErrorText(re), a.signInAgain())
	}
	var ge *googleapi.Error
	if !errors.As(err, &ge) {
		var ce credentialsError
		if errors.Is(err, errNotConfigured) || errors.As(err, &ce) {
			return err
		}
		return fmt.Errorf("could not reach Google %s: %v", s, err)
	}
	msg := ge.Message
	if msg == "" {
		msg = http.StatusText(ge.Code)
	}
	reasons := errorReasons(ge)
	switch {
	case ge.Code == http.StatusBadRequest:
		return tools.Retryf("Google %s rejected the request for %s (400: %s): fix the arguments", s, what, msg)
	case ge.Code == http.StatusUnauthorized:
		a.forget(true)
		return fmt.Errorf("Google %s rejected co's credentials (401: %s): %s", s, msg, a.signInAgain())
	case ge.Code == http.StatusNotFound:
		return tools.Retryf("%s was not found in Google %s (404): check the id; it may have been deleted, or not be shared with this Google account", what, s)
	case ge.Code == http.StatusTooManyRequests || hasReason(reasons, "rateLimitExceeded", "userRateLimitExceeded", "RATE_LIMIT_EXCEEDED", "quotaExceeded", "dailyLimitExceeded"):
		return fmt.Errorf("Google %s is rate-limiting co or its quota is used up (HTTP %d: %s), for longer than co waits (%s): try again in a minute", s, ge.Code, msg, a.cfg.maxRateWait())
	case ge.Code == http.StatusForbidden && hasReason(reasons, "insufficientPermissions", "ACCESS_TOKEN_SCOPE_INSUFFICIENT", "insufficientScopes"):
		return fmt.Errorf("the Google sign-in does not grant the %s scope co needs (403: %s): %s, and grant every permission it asks for", s.scopes(), msg, a.signInAgain())
	case ge.Code == http.StatusForbidden && hasReason(reasons, "accessNotConfigured", "SERVICE_DISABLED"):
		return fmt.Errorf("the %s API is not enabled in the Google Cloud project of the credentials (403): enable it at https://console.cloud.google.com/apis/library/%s, wait a minute, and try again", s, s.api())
	case ge.Code == http.StatusForbidden && hasReason(reasons, "exportSizeLimitExceeded"):
		return fmt.Errorf("%s is too large for Google to export as text (over 10 MB): open it in the browser instead", what)
	case ge.Code == http.StatusForbidden && hasReason(reasons, "cannotDownloadFile", "cannotExportFile"):
		return fmt.Errorf("the owner of %s does not allow downloading or exporting it (403): open it in the browser instead", what)
	case ge.Code == http.StatusForbidden && hasReason(reasons, "domainPolicy"):
		return fmt.Errorf("the Google Workspace domain's policy does not allow co to use %s (403: %s): ask its administrator", s, msg)
	case ge.Code == http.StatusForbidden:
		return fmt.Errorf("Google %s refused access to %s (403: %s)", s, what, msg)
	case ge.Code >= 500:
		return fmt.Errorf("Google %s failed (HTTP %d: %s): try again later", s, ge.Code, msg)
	}
	return fmt.Errorf("Google %s: %s (HTTP %d)", s, msg, ge.Code)
}

// signInAgain says how to renew the credentials of the current source.
func (a *Account) signInAgain() string {
	src := a.Source()
	switch {
	case src.Kind == ADC && src.FileType == "authorized_user":
		return "run `co google auth` (or `gcloud auth application-default login --scopes=" + strings.Join(append([]string{"openid", "https://www.googleapis.com/auth/cloud-platform"}, Scopes()...), ",") + "`)"
	case src.Kind == Explicit && src.FileType == "service_account":
		return "check the service account key in " + src.Path + " (a service account reads Gmail only with domain-wide delegation), or run `co google auth` and unset google_credentials_path"
	case src.Kind == Explicit:
		return "replace " + src.Path + ", or unset google_credentials_path and run `co google auth`"
	}
	return "run `co google auth` to sign in again"
}

func oauthErrorText(re *oauth2.RetrieveError) string {
	switch {
	case re.ErrorCode != "" && re.ErrorDescription != "":
		return re.ErrorCode + ", " + re.ErrorDescription
	case re.ErrorCode != "":
		return re.ErrorCode
	case re.Response != nil:
		return re.Response.Status
	}
	return "refused"
}

// errorReasons collects the reasons of a Google error: the legacy
// errors[].reason and the google.rpc.ErrorInfo reason in details.
func errorReasons(ge *googleapi.Error) []string {
	var out []string
	for _, e := range ge.Errors {
		out = append(out, e.Reason)
	}
	for _, d := range ge.Details {
		if m, ok := d.(map[string]any); ok {
			if r, ok := m["reason"].(string); ok {
				out = append(out, r)
			}
		}
	}
	return out
}

func hasReason(reasons []string, want ...string) bool {
	for _, r := range reasons {
		for _, w := range want {
			if r == w {
				return true
			}
		}
	}
	return false
}
