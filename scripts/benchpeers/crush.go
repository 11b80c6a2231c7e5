package main

import (
	"os"
	"path/filepath"
	"strings"
)

// crushKind runs Crush (github.com/charmbracelet/crush, built from
// source) against the same scripted server, configured as its own
// documentation says, with nothing between the launch and its prompt.
//
// Configuration: crush's docs/config/README.md (v0.90.0) — "Crush is
// configured with Bash via a set of Crush-specific builtin commands" in
// $XDG_CONFIG_HOME/crush/crushrc: `provider add <id> --type … --base-url
// … --api-key …`, `model add <provider>/<id> --name … --context-window …
// --default-max-tokens …`, `model large|small <provider>/<id>`, and
// `option <key> <value>` with the keys provider-auto-update, metrics,
// auto-lsp and default-providers. The provider type is openai-compat, not
// openai: README.md, "Custom Providers": "`openai` should be used when
// proxying or routing requests through OpenAI. `openai-compat` should be
// used when using non-OpenAI providers that have OpenAI-compatible APIs"
// (and the stub speaks chat completions only).
//
// No network: README.md, "Disabling automatic provider updates": `option
// provider-auto-update false` or CRUSH_DISABLE_PROVIDER_AUTO_UPDATE=1
// keeps Crush on the provider list (Catwalk) embedded at build time
// (internal/config/load.go reads the variable); "Metrics": CRUSH_DISABLE_METRICS=1
// (and DO_NOT_TRACK=1). Crush also asks GitHub for its latest release in
// the background at every start (internal/app/app.go, checkForUpdates),
// with no setting to turn it off: every program here gets HTTPS_PROXY
// pointing at a closed local port, so that request fails at once, while
// the stub on 127.0.0.1 is reached directly (Go never proxies loopback).
//
// No first-run screens: the onboarding screen shows only when no provider
// is configured (internal/ui/model/ui.go, IsConfigured), and the "initialize
// this project?" question only in a working directory that has visible
// files and no context file (internal/config/init.go,
// ProjectNeedsInitialization): the working directory here is empty.
//
// The ready prompt: the editor's placeholder, one of "Ready!", "Ready...",
// "Ready?" and "Ready for instructions" chosen at random
// (internal/ui/model/ui.go, readyPlaceholders).
var crushKind = &kind{
	name: "crush",
	setup: func(home, base string) ([]string, []string, error) {
		rc := `# benchpeers: the scripted server as an OpenAI-compatible provider.
option provider-auto-update false
option metrics false
option auto-lsp false
option default-providers false
provider add bench --name Bench --type openai-compat --base-url "` + base + `" --api-key sk-bench
model add bench/bench-model --name "Bench model" --context-window 128000 --default-max-tokens 4096
model add bench/bench-small --name "Bench small" --context-window 128000 --default-max-tokens 4096
model large bench/bench-model
model small bench/bench-small
`
		dir := filepath.Join(home, ".config", "crush")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, "crushrc"), []byte(rc), 0o644); err != nil {
			return nil, nil, err
		}
		return []string{"CRUSH_DISABLE_PROVIDER_AUTO_UPDATE=1", "CRUSH_DISABLE_METRICS=1", "DO_NOT_TRACK=1"}, nil, nil
	},
	ready: func(s string) bool {
		for _, p := range []string{"Ready!", "Ready...", "Ready?", "Ready for instructions"} {
			if strings.Contains(s, p) {
				return true
			}
		}
		return false
	},
}

// noNetwork is every program's environment for HTTP: a proxy that
// refuses, for anything but the stub on loopback (see crushKind).
var noNetwork = []string{"HTTPS_PROXY=http://127.0.0.1:9", "HTTP_PROXY=http://127.0.0.1:9", "NO_PROXY=127.0.0.1,localhost"}
