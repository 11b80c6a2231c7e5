package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/co-cli/co/schedule"
)

// atRe is a --at SPEC of a co schedule add or /schedule add line, quoted
// or not.
var atRe = regexp.MustCompile(`--at[= ](?:"([^"]*)"|'([^']*)'|(\S+))`)

// placeholder: an --at that stands for a SPEC (SPEC, "SPEC").
var placeholder = regexp.MustCompile(`^[A-Z_…. ]+$`)

// Every time the help and the docs give as an example reads as a SPEC and
// has not passed: the quoted times of co schedule --help and co schedule
// add --help (SPEC's forms and the examples), and the --at of every
// co schedule add and /schedule add line in README.md and docs/*.md (the
// README's and the help's "2026-12-01 09:30" was refused by December).
// Times said from now are read on the wall clock: that an example is
// past is a fact about today, not a race.
func TestScheduleExamplesRead(t *testing.T) {
	now := time.Now()
	check := func(where, at string) {
		t.Helper()
		if _, err := schedule.ParseAt(at, now); err != nil {
			t.Errorf("%s: the example %q is refused: %v", where, at, err)
		}
	}

	quoted := regexp.MustCompile(`"([^"]*)"`)
	for _, args := range [][]string{{"schedule", "--help"}, {"schedule", "add", "--help"}} {
		code, out, errOut := run(t, "v", args...)
		if code != 0 {
			t.Fatalf("co %s: exit %d %s", strings.Join(args, " "), code, errOut)
		}
		where := "co " + strings.Join(args, " ")
		n := 0
		for _, m := range quoted.FindAllStringSubmatch(out, -1) {
			// A wrapped help line may split a quoted SPEC.
			spec := strings.Join(strings.Fields(m[1]), " ")
			if !strings.ContainsAny(spec, "0123456789") || strings.HasPrefix(spec, "co ") {
				continue // a word ("schedules", "hourly" is read below) or a command
			}
			check(where, spec)
			n++
		}
		for _, w := range []string{"hourly", "tomorrow 9am"} {
			if !strings.Contains(out, `"`+w+`"`) {
				t.Errorf("%s does not show %q", where, w)
			}
		}
		if n < 10 {
			t.Errorf("%s: only %d quoted times found:\n%s", where, n, out)
		}
	}

	files, _ := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	files = append(files, filepath.Join("..", "..", "README.md"))
	found := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			for _, cmd := range []string{"co schedule add ", "/schedule add "} {
				for rest := line; ; {
					j := strings.Index(rest, cmd)
					if j < 0 {
						break
					}
					rest = rest[j+len(cmd):]
					m := atRe.FindStringSubmatch(rest)
					if m == nil || atRe.FindStringIndex(rest)[0] > strings.IndexAny(rest+"`", "`") {
						continue // no --at in this command
					}
					at := m[1] + m[2] + m[3]
					if placeholder.MatchString(at) {
						continue
					}
					check(fmt.Sprintf("%s:%d", filepath.Base(f), i+1), at)
					found++
				}
			}
		}
	}
	if found < 3 {
		t.Errorf("only %d co schedule add examples with --at found in README.md and docs/*.md", found)
	}
}
