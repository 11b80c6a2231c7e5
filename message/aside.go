package message

// BangTool is the tool a !cmd runs through, and BangCallID the id of its
// call.
const (
	BangTool   = "run_shell_command"
	BangCallID = "bang"
)

// Aside is something a conversation showed that is not a message to the
// model: a !cmd the user ran, or the notice that older messages were
// summarised. Sessions save asides so that a resumed conversation shows
// them again where they happened; the model never sees them.
type Aside struct {
	// After is the number of history messages before it.
	After int
	// Notice is the notice's text; empty for a command.
	Notice string
	// Bang is the !cmd's call (its arguments) and outcome; nil for a
	// notice.
	Bang *BangRun
}

// BangRun is a !cmd as it ran.
type BangRun struct {
	Args     string // the shell tool's JSON arguments
	Finished ToolCallFinished
}
