package main

import (
	"os"
	"path/filepath"
	"strings"
)

// crushKind runs Crush (github.com/charmbracelet/crush, built from
// source) against the same scripted server, configured as its own
// documentation says (a crushrc: an openai-compat provider, no provider
// auto-update, no metrics, no LSP), with nothing between the launch and
// its prompt and no network (HTTPS_PROXY to a closed port stops its
// release check). Where each setting and the ready text ("Ready!", …)
// were read: docs/SOURCES.md, "Crush, as the peer harness runs it".
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
