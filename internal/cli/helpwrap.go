package cli

import (
	"cmp"
	"fmt"
	"strings"
	"unicode"

	"github.com/mattn/go-runewidth"
	"github.com/spf13/cobra"
)

// helpWidth is the width every --help fits: a terminal's default, and
// what a pager or a narrow split shows without wrapping lines itself.
const helpWidth = 80

// helpFunc prints cobra's help (the long text, then the usage) fitted to
// helpWidth by fitHelp, so no command's help depends on its author
// breaking each line by hand (a SPEC's examples, a flag's description).
func helpFunc(c *cobra.Command, _ []string) {
	var b strings.Builder
	if text := strings.TrimRightFunc(cmp.Or(c.Long, c.Short), unicode.IsSpace); text != "" {
		b.WriteString(text + "\n\n")
	}
	if c.Runnable() || c.HasSubCommands() {
		b.WriteString(c.UsageString())
	}
	fmt.Fprint(c.OutOrStdout(), fitHelp(b.String(), helpWidth))
}

// fitHelp breaks the lines of help text wider than width at spaces. A
// line laid out in columns (a command and its summary, a flag and its
// description) continues under its last column; prose continues at its
// own indentation; an example stays a command that can be pasted: its
// "# comment" goes on a line above it, and a long command continues
// after " \".
func fitHelp(text string, width int) string {
	var out []string
	section := ""
	for _, line := range strings.Split(text, "\n") {
		if line != "" && !strings.HasPrefix(line, " ") && strings.HasSuffix(line, ":") {
			section = line
		}
		switch {
		case runewidth.StringWidth(line) <= width:
			out = append(out, line)
		case section == "Examples:":
			out = append(out, fitExample(line, width)...)
		default:
			out = append(out, wrapHanging(line, hangAt(line, width), width)...)
		}
	}
	return strings.Join(out, "\n")
}

// hangAt is the column a long line continues at: where its second column
// starts when it is laid out in columns (two spaces or more after its
// first words, in the line's first half), else its indentation.
func hangAt(line string, width int) int {
	ws := len(line) - len(strings.TrimLeft(line, " "))
	if i := strings.Index(line[ws:], "  "); i > 0 {
		j := ws + i
		for j < len(line) && line[j] == ' ' {
			j++
		}
		if j < width/2 && j < len(line) {
			return j
		}
	}
	return ws
}

// wrapHanging breaks line at spaces after its first hang bytes, each
// continuation indented to hang. A word wider than the room is left
// whole on its own line.
func wrapHanging(line string, hang, width int) []string {
	head, pad := line[:hang], strings.Repeat(" ", hang)
	var out []string
	cur := head
	fresh := true // cur holds no word yet
	for _, w := range strings.Fields(line[hang:]) {
		if !fresh && runewidth.StringWidth(cur)+1+runewidth.StringWidth(w) > width {
			out = append(out, cur)
			cur, fresh = pad, true
		}
		if !fresh {
			cur += " "
		}
		cur += w
		fresh = false
	}
	return append(out, cur)
}

// fitExample fits one example line: its trailing "# comment" moves to a
// line of its own above the command, and a command still too long is
// broken at a space outside quotes, continued after " \" as a shell
// reads it.
func fitExample(line string, width int) []string {
	ws := line[:len(line)-len(strings.TrimLeft(line, " "))]
	var out []string
	if i := strings.Index(line, "  #"); i > 0 {
		comment := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line[i:]), "#"))
		out = wrapHanging(ws+"# "+comment, len(ws)+2, width)
		for k := 1; k < len(out); k++ {
			out[k] = ws + "# " + strings.TrimLeft(out[k], " ")
		}
		line = strings.TrimRight(line[:i], " ")
		if runewidth.StringWidth(line) <= width {
			return append(out, line)
		}
	}
	cont := ws + "    "
	for runewidth.StringWidth(line) > width {
		cut := -1
		var quote rune
		for i, r := range line {
			switch {
			case quote != 0 && r == quote:
				quote = 0
			case quote == 0 && (r == '\'' || r == '"'):
				quote = r
			case quote == 0 && r == ' ' && i > len(cont) && runewidth.StringWidth(line[:i])+2 <= width:
				cut = i
			}
		}
		if cut < 0 {
			break // one word too long: left whole
		}
		out = append(out, line[:cut]+" \\")
		line = cont + strings.TrimLeft(line[cut:], " ")
	}
	return append(out, line)
}
