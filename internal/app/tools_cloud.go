package app

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/co-cli/co/config"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/google"
	"github.com/co-cli/co/tools/slack"
)

// Environment hooks that point the cloud tools at other servers: local test
// servers, or a proxy. They are not settings because users never need them.
const (
	// EnvSlackAPIURL is the Slack Web API base URL (default
	// https://slack.com/api/).
	EnvSlackAPIURL = "SLACK_API_URL"
	// EnvGoogleAPIEndpoint is the base URL of the Drive, Gmail and Calendar
	// REST APIs (default Google's own).
	EnvGoogleAPIEndpoint = "CO_GOOGLE_API_ENDPOINT"
	// EnvGoogleOAuthEndpoint replaces the authorization server of the
	// client secret file in co google auth.
	EnvGoogleOAuthEndpoint = "CO_GOOGLE_OAUTH_ENDPOINT"
)

// GoogleConfig is the Google side of the settings.
func GoogleConfig(l *config.Loaded) google.Config {
	return google.Config{
		CredentialsPath: l.Settings.GoogleCredentialsPath,
		TokenPath:       filepath.Join(l.Paths.ConfigDir, google.TokenFile),
		Endpoint:        os.Getenv(EnvGoogleAPIEndpoint),
	}
}

// GoogleAccount is the Google account the tools use (co google check
// probes it).
func GoogleAccount(l *config.Loaded) *google.Account { return google.NewAccount(GoogleConfig(l)) }

// GoogleClientSecretPath is where co google auth looks for the OAuth
// client secret when neither --client-secret nor google_credentials_path
// gives one.
func GoogleClientSecretPath(l *config.Loaded) string {
	return filepath.Join(l.Paths.ConfigDir, google.ClientSecretFile)
}

// GoogleAuthorize runs co google auth's sign-in with o, saving the token
// where the Google tools read it (GoogleConfig's TokenPath), against the
// authorization server EnvGoogleOAuthEndpoint names when it is set.
func GoogleAuthorize(ctx context.Context, l *config.Loaded, o google.AuthOptions) (*google.AuthResult, error) {
	o.TokenPath = GoogleConfig(l).TokenPath
	o.Endpoint = os.Getenv(EnvGoogleOAuthEndpoint)
	return google.Authorize(ctx, o)
}

// SlackConfig is the Slack side of the settings; false when no bot token
// is set.
func SlackConfig(l *config.Loaded) (slack.Config, bool) {
	token := strings.TrimSpace(l.Settings.SlackBotToken)
	return slack.Config{Token: token, Self: strings.TrimSpace(l.Settings.SlackMemberID), APIURL: os.Getenv(EnvSlackAPIURL)}, token != ""
}

// cloudTools are the Google and Slack tools of the run, and the
// families left out because they are not configured. Whether a service is
// configured is decided without the network (a token set, a credentials
// file present); credentials are resolved on the first call.
func (a *App) cloudTools() ([]tools.Tool, []tools.Unconfigured, error) {
	var all []tools.Tool
	var unconfigured []tools.Unconfigured

	gc := GoogleConfig(a.Config)
	if src := google.Detect(gc); src.Configured() {
		a.google = google.NewAccount(gc)
		all = append(all, google.Tools(a.google)...)
	} else {
		unconfigured = append(unconfigured, google.Unconfigured(src))
	}

	if sc, ok := SlackConfig(a.Config); ok {
		a.slack = slack.NewWorkspace(sc)
		all = append(all, slack.Tools(a.slack)...)
	} else {
		unconfigured = append(unconfigured, slack.Unconfigured())
	}
	return all, unconfigured, nil
}
