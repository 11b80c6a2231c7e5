// Command co is a personal AI assistant that lives in the terminal.
//
// The commands are in internal/cli; the start-up order is in internal/app
// (see docs/ARCHITECTURE.md).
package main

import (
	"os"

	"github.com/co-cli/co/internal/cli"
	"github.com/co-cli/co/lib/startmark"
	"github.com/co-cli/co/lib/tmuxprobe"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

func main() {
	tmuxprobe.Restore() // lib/tmuxprobe: lipgloss's init is over
	startmark.Mark("main")
	os.Exit(cli.Main(os.Args[1:], version))
}
