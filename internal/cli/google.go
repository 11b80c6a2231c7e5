package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/co-cli/co/config"
	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/tools/google"
	"github.com/co-cli/co/ui/present"
)

// newGoogleCmd is co google auth and co google check.
func newGoogleCmd(s env) *cobra.Command {
	g := &cobra.Command{
		Use:   "google",
		Short: "Sign in to Google for the Drive, Gmail and Calendar tools, and check the sign-in",
	}
	g.AddCommand(newGoogleAuthCmd(s), newGoogleCheckCmd(s))
	return g
}

// scopeName describes one of co's scopes to the user ("" for others).
func scopeName(scope string) string {
	switch scope {
	case google.ScopeDriveReadOnly:
		return "Drive (read-only)"
	case google.ScopeGmailReadOnly:
		return "Gmail (read)"
	case google.ScopeGmailCompose:
		return "Gmail (drafts)"
	case google.ScopeCalendarReadOnly:
		return "Calendar (read-only)"
	case google.ScopeCalendarEvents:
		return "Calendar (create events)"
	}
	return ""
}

func describeScopes(scopes []string) string {
	var out []string
	for _, s := range scopes {
		if n := scopeName(s); n != "" {
			out = append(out, n)
		}
	}
	if len(out) == 0 {
		return "none of co's"
	}
	return strings.Join(out, ", ")
}

func newGoogleAuthCmd(s env) *cobra.Command {
	var clientSecret string
	var noBrowser bool
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Sign in to Google (OAuth in the browser) and save the token for the Google tools",
		Long: `co google auth signs you in to Google with an OAuth client of your own and
saves the token in co's config directory (google-token.json, mode 0600). It
asks only for what the tools need: Drive read-only, Gmail read and compose
(drafts; co never sends mail), Calendar read-only, and Calendar events (to
create the events you approve, and delete them on undo). A sign-in from an
older co lacks the last: run co google auth again to create events.

The client secret is the JSON of an OAuth client ID of type "Desktop app"
(Google Cloud console → APIs & Services → Credentials), in a project with the
Drive, Gmail and Calendar APIs enabled. co looks for it in --client-secret,
then in google_credentials_path when that names a client secret, then in
<config dir>/google-client-secret.json.

co opens the browser at Google's consent page and waits for Google to send the
browser back to 127.0.0.1. With --no-browser it prints the address instead;
if your browser runs on another machine, paste the address that browser
ends on (it fails to load) into co.`,
		Example: `  co google auth --client-secret ~/Downloads/client_secret_123.json
  co google auth --no-browser`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			l, err := loadConfig(s)
			if err != nil {
				return err
			}
			path, data, err := findClientSecret(l, clientSecret)
			if err != nil {
				return err
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			tokenPath := app.GoogleConfig(l).TokenPath
			fmt.Fprintf(s.Out, "Signing in to Google with the OAuth client in %s.\n", path)
			res, err := app.GoogleAuthorize(ctx, l, google.AuthOptions{
				ClientSecret: data,
				NoBrowser:    noBrowser,
				Out:          s.Out,
				In:           s.In,
			})
			if err != nil {
				return err
			}
			fmt.Fprintf(s.Out, "Signed in. Token saved to %s (mode 0600).\n", tokenPath)
			fmt.Fprintf(s.Out, "Granted: %s.\n", describeScopes(res.Token.Scopes))
			if len(res.Missing) > 0 {
				fmt.Fprintf(s.Out, "Not granted: %s. The tools that need it will fail; run co google auth again and tick every box on the consent screen.\n", describeScopes(res.Missing))
			}
			if src := google.Detect(app.GoogleConfig(l)); src.Kind == google.Explicit {
				fmt.Fprintf(s.Out, "Note: google_credentials_path (%s) comes first, so the tools use it, not this token; unset it to use the token.\n", src.Path)
			}
			fmt.Fprintln(s.Out, "New co sessions offer the Google tools; co google check tests them.")
			return nil
		},
	}
	cmd.Flags().StringVar(&clientSecret, "client-secret", "", "OAuth client secret JSON (Desktop app client)")
	cmd.Flags().BoolVar(&noBrowser, "no-browser", false, "print the sign-in address instead of opening a browser")
	cmd.Flags().DurationVar(&timeout, "timeout", 5*time.Minute, "how long to wait for the sign-in")
	return cmd
}

// findClientSecret reads the OAuth client secret: the flag, else
// google_credentials_path when it holds one, else the default file.
func findClientSecret(l *config.Loaded, flag string) (string, []byte, error) {
	if flag != "" {
		data, err := os.ReadFile(flag)
		if err != nil {
			return "", nil, fmt.Errorf("cannot read the client secret: %w", err)
		}
		return flag, data, nil
	}
	candidates := []string{app.GoogleClientSecretPath(l)}
	if p := l.Settings.GoogleCredentialsPath; p != "" {
		candidates = append([]string{p}, candidates...)
	}
	for _, p := range candidates {
		data, err := os.ReadFile(p)
		var f struct{ Installed, Web json.RawMessage }
		if err == nil && json.Unmarshal(data, &f) == nil && (f.Installed != nil || f.Web != nil) {
			return p, data, nil
		}
	}
	return "", nil, usageError{errors.New("no OAuth client secret: pass --client-secret FILE, the JSON of an OAuth client ID of type Desktop app (Google Cloud console → APIs & Services → Credentials), or save it as " + candidates[len(candidates)-1]), "co google auth"}
}

func newGoogleCheckCmd(s env) *cobra.Command {
	var timeout time.Duration
	cmd := &cobra.Command{
		Use:   "check",
		Short: "Say where the Google credentials come from and whether Drive, Gmail and Calendar answer",
		Long: `co google check prints where the Google tools' credentials come from
(google_credentials_path, the token saved by co google auth, or Application
Default Credentials), then makes one cheap read-only call to Drive, Gmail and
Calendar each and prints OK or what went wrong and how to fix it.

Exit code 0 when every service answers, 1 otherwise (or when Google is not
configured).`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			l, err := loadConfig(s)
			if err != nil {
				return err
			}
			gc := app.GoogleConfig(l)
			src := google.Detect(gc)
			if !src.Configured() {
				fmt.Fprintf(s.Out, "credentials: not configured\nto configure: %s\n", google.Unconfigured(src).Hint)
				return exitCode(exitError)
			}
			fmt.Fprintf(s.Out, "credentials: %s\n", src)
			if src.Kind == google.Saved {
				if t, err := google.ReadToken(src.Path); err == nil && len(t.Scopes) > 0 {
					fmt.Fprintf(s.Out, "granted: %s\n", describeScopes(t.Scopes))
					// A sign-in from an older co lacks scopes added since
					// (Calendar events): its read-only probes below pass.
					var missing []string
					for _, sc := range google.Scopes() {
						if !slices.Contains(t.Scopes, sc) {
							missing = append(missing, sc)
						}
					}
					if len(missing) > 0 {
						fmt.Fprintf(s.Out, "not granted: %s; the tools that need it fail until you run co google auth again and allow it\n", describeScopes(missing))
					}
				}
			}
			if gc.Endpoint != "" {
				fmt.Fprintf(s.Out, "endpoint: %s (%s)\n", gc.Endpoint, app.EnvGoogleAPIEndpoint)
			}
			ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
			defer stop()
			w := tabwriter.NewWriter(s.Out, 0, 0, 2, ' ', 0)
			failed := false
			for _, r := range app.GoogleAccount(l).Probe(ctx, timeout) {
				status := "OK"
				if !r.OK {
					status, failed = "FAILED", true
				}
				fmt.Fprintf(w, "%s\t%s\t%s\n", r.Service, status, present.Line(safe.Text(r.Detail)))
			}
			w.Flush()
			if failed {
				return exitCode(exitError)
			}
			return nil
		},
	}
	cmd.Flags().DurationVar(&timeout, "timeout", 10*time.Second, "how long each service may take to answer")
	return cmd
}
