package cli

import (
	"bytes"
	"os"
	"strings"
	"testing"
)

func run(t *testing.T, version string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = Run(args, Streams{In: strings.NewReader(""), Out: &out, Err: &errb}, version)
	return code, out.String(), errb.String()
}

// co version prints the version main hands it (main's, set by -ldflags).
func TestVersionPrintsTheVersionItIsGiven(t *testing.T) {
	code, out, _ := run(t, "1.2.3-test", "version")
	if code != exitOK || out != "co 1.2.3-test\n" {
		t.Errorf("co version = %d, %q", code, out)
	}
}

// A mistake in the command line exits 2 and says how to get help: the
// help of the command whose line it is.
func TestUsageErrorsExitTwo(t *testing.T) {
	for args, hint := range map[[2]string]string{{"version", "extra"}: "co version", {"--no-such-flag"}: "co", {"run"}: "co run"} {
		args := args[:]
		if args[1] == "" {
			args = args[:1]
		}
		code, _, errOut := run(t, "v", args...)
		if code != exitUsage || !strings.Contains(errOut, "Run '"+hint+" --help' for usage.") {
			t.Errorf("co %v = %d, %q; want exit 2 and the usage hint", args, code, errOut)
		}
	}
}

// Each command has its own file, named after it: one hop finds it.
func TestEveryCommandHasItsFile(t *testing.T) {
	root := newRootCmd(env{Streams{}, "v"})
	if _, err := os.Stat("chat.go"); err != nil {
		t.Errorf("the chat (co itself) has no chat.go: %v", err)
	}
	for _, c := range root.Commands() {
		if _, err := os.Stat(c.Name() + ".go"); err != nil {
			t.Errorf("co %s has no %s.go", c.Name(), c.Name())
		}
	}
}

// co status of my build: a command of co's that takes no words, given some,
// is a usage error with the root's hint for sending them to the model
// (co -- …), not cobra's bare "unknown command".
func TestWordsAfterACommandPointToCoDashDash(t *testing.T) {
	code, _, errOut := run(t, "v", "status", "of", "my", "build")
	want := `unknown command "of" for "co status"` + "\n\n" + `(To send "status of my build" to the model as your first message: co -- status of my build)`
	if code != exitUsage || !strings.Contains(errOut, want) {
		t.Errorf("co status of my build = %d, %q; want exit 2 and %q", code, errOut, want)
	}
	// A sub-command's words (co config unset a b) are not a question.
	if _, _, errOut := run(t, "v", "config", "unset", "a", "b"); strings.Contains(errOut, "To send") {
		t.Errorf("co config unset a b: %q", errOut)
	}
}

// co --version says what co version says, as most commands' --version
// does: it was an unknown flag (exit 2).
func TestVersionFlagPrintsTheVersion(t *testing.T) {
	code, out, errOut := run(t, "1.2.3-test", "--version")
	if code != exitOK || out != "co 1.2.3-test\n" {
		t.Errorf("co --version = %d, %q, %q", code, out, errOut)
	}
}

// A command missing its argument, or given one too many, says which and
// shows the command's line: cobra's own "accepts 1 arg(s), received 0"
// named neither.
func TestMissingOrExtraArgumentsNameWhatIsExpected(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"sessions", "rm"}, []string{"co: missing ID: co sessions rm ID"}},
		{[]string{"mcp", "trust"}, []string{"co: missing NAME: co mcp trust NAME"}},
		{[]string{"memory", "search"}, []string{"co: missing QUERY: co memory search QUERY"}},
		{[]string{"sessions", "rm", "a", "b"}, []string{`co: one argument too many ("b"): co sessions rm ID`}},
	} {
		code, _, errOut := run(t, "v", c.args...)
		if code != exitUsage {
			t.Errorf("co %v exit %d", c.args, code)
		}
		for _, w := range c.want {
			if !strings.Contains(errOut, w) {
				t.Errorf("co %v says %q, want %q in it", c.args, errOut, w)
			}
		}
	}
}
