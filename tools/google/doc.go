// Package google holds co's Google tools (Drive, Gmail, Calendar) and the
// credentials they share.
//
// The tools of one chat session share one *Account. It decides whether
// Google is configured without touching the network (Detect) and resolves
// the credentials lazily, on the first Google call of the session, in this
// order: the file named by google_credentials_path (an authorized-user
// token or a service account key; an OAuth client secret there means "use
// the token co google auth saved with it"), the token saved by co google
// auth (<config dir>/google-token.json), then Application Default
// Credentials found in a file (GOOGLE_APPLICATION_CREDENTIALS or gcloud's
// well-known file). The resolved client is cached on the Account for the
// session and dropped again when Google rejects it, so that signing in
// again in another terminal takes effect on the next call.
//
// Authorize runs the OAuth flow of an installed app (the loopback redirect
// on 127.0.0.1) for co google auth; Probe makes the cheap calls of co google
// check.
//
// Concurrency: an Account and the tools may be used from several
// goroutines; their per-session state (credentials, Drive page tokens, the
// account's address) is guarded by mutexes. Nothing lives in package
// globals.
package google
