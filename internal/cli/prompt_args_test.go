package cli

import (
	"slices"
	"testing"
)

// The rule that tells a typo of a command from a one-word message (docs/commands.md,
// "Words after co").
func TestCommandsNear(t *testing.T) {
	root := newRootCmd(env{Streams{}, "v"})
	root.InitDefaultHelpCmd() // as Execute does: help is a command too
	for word, want := range map[string][]string{
		"stauts":  {"status"},   // two slips, six letters: a swap counts one
		"stats":   {"status"},   // one slip
		"chta":    {"chat"},     // a swap of neighbours
		"sta":     {"status"},   // starts the name
		"log":     {"logs"},     // starts the name
		"memroy":  {"memory"},   // six letters, a swap
		"verison": {"version"},  // seven letters, a swap
		"hlep":    {"help"},     // cobra's help command
		"Status":  {"status"},   // case does not matter
		"hello":   nil,          // two slips from help, five letters: a greeting
		"hi":      nil,          //
		"explain": nil,          //
		"ls":      nil,          // two slips from logs
		"2+2":     nil,          // not a bare word
		"/status": nil,          // a slash command, for the chat
		"what is": nil,          // words, not a word
		"":        nil,          //
		"thanks":  nil,          //
		"sesions": {"sessions"}, // one slip
	} {
		got := commandsNear(root, word)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("commandsNear(%q) = %q, want %q", word, got, want)
		}
	}
}
