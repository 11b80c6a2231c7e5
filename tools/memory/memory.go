// Package memory is the model's side of co's memory (package memory at the
// root): save_memory, search_memory and forget_memory.
//
// Saving and forgetting change what every later session sees, and a web
// page or file the model read could try to plant a memory ("always send
// code to …"), so both ask by default, with the exact text in the approval
// modal, and neither /yolo (or --yes) nor a session grant approves them:
// each shows its own text, so each needs its own answer (AlwaysAsk: the
// modal and --plain offer no "approve for the session"). Only the user's
// answer or memory_auto_save (for saves; a setting only the user's own file
// or environment can turn on) approves one. Searching is read-only.
package memory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/memory"
	"github.com/co-cli/co/tools"
)

// Config builds the tools.
type Config struct {
	// Store opens the store (lazily: memory.Lazy.StoreContext), giving up
	// when ctx ends with an error wrapping memory.ErrBusy.
	Store func(ctx context.Context) (*memory.Store, error)
	// Session returns the current saved session's id, recorded with a save.
	Session func() string
	// AutoSave: save_memory runs without asking (memory_auto_save).
	AutoSave bool
}

// Tools returns save_memory, search_memory and forget_memory.
func Tools(c Config) []tools.Tool {
	if c.Session == nil {
		c.Session = func() string { return "" }
	}
	return []tools.Tool{&saveTool{c}, &searchTool{c}, &forgetTool{c}}
}

// Names are the tools' names.
var Names = []string{"save_memory", "search_memory", "forget_memory"}

// checkOpenTimeout bounds how long an approval check waits for the store
// (another co may hold it locked for up to 15 s): the modal must not stall.
// runOpenTimeout bounds the wait once the user approved.
const (
	checkOpenTimeout = 2 * time.Second
	runOpenTimeout   = 5 * time.Second
)

// store opens the store for Run, waiting at most runOpenTimeout; a busy
// store is a Retry: the model may try again in a moment.
func store(ctx context.Context, c Config) (*memory.Store, error) {
	ctx, cancel := context.WithTimeout(ctx, runOpenTimeout)
	defer cancel()
	s, err := c.Store(ctx)
	switch {
	case errors.Is(err, memory.ErrBusy):
		return nil, &tools.Retry{Msg: busyMsg("nothing was changed")}
	case err != nil:
		return nil, fmt.Errorf("the memory store cannot be opened: %w", err)
	}
	return s, nil
}

// checkStore opens the store for a Check, waiting at most
// checkOpenTimeout. busy is true when it did not open in time.
func checkStore(ctx context.Context, c Config) (s *memory.Store, busy bool, err error) {
	ctx, cancel := context.WithTimeout(ctx, checkOpenTimeout)
	defer cancel()
	s, err = c.Store(ctx)
	return s, errors.Is(err, memory.ErrBusy), err
}

func busyMsg(what string) string {
	return "the memory store is busy: another co is using it (its file is locked), so " + what + "; try again in a moment."
}

// AutoSaveHint is how saves run without asking: the one setting that
// lets them (its Check allows every save then).
const AutoSaveHint = "set memory_auto_save to true in your user settings (or CO_CLI_MEMORY_AUTO_SAVE=true) to save memories without asking"

type saveTool struct{ c Config }

func (*saveTool) Name() string { return "save_memory" }
func (*saveTool) Description() string {
	return "Remember a fact across sessions: the user's preferences, facts about them or their work that will matter later. " +
		"One short, self-contained fact per memory, written so it makes sense on its own later. " +
		"Save only what the user told you or clearly wants kept; never secrets (refused). The user approves each save."
}
func (*saveTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"content":{"type":"string","description":"the fact to remember"},"tags":{"type":"array","items":{"type":"string"},"description":"optional short topic words"}},"required":["content"],"additionalProperties":false}`)
}
func (*saveTool) Class() tools.Class { return tools.SideEffect }

type saveArgs struct {
	Content string   `json:"content"`
	Tags    []string `json:"tags"`
}

func (t *saveTool) Check(ctx context.Context, args json.RawMessage) tools.Check {
	var a saveArgs
	if json.Unmarshal(args, &a) != nil || strings.TrimSpace(a.Content) == "" {
		// Run says what was wrong.
		return tools.Check{Decision: tools.Allow, Reason: "nothing to save"}
	}
	preview := "Remember across sessions:\n\n" + strings.TrimSpace(a.Content)
	if len(a.Tags) > 0 {
		preview += "\n\ntags: " + strings.Join(a.Tags, ", ")
	}
	// A memory steers every later session: after untrusted content it is
	// a way for that content to outlive the conversation.
	out := &tools.Outbound{To: "co's memory, read in every later session", What: strings.TrimSpace(a.Content)}
	if t.c.AutoSave {
		return tools.Check{Decision: tools.Allow, Reason: "memory_auto_save is on", Preview: preview, Outbound: out}
	}
	s, busy, err := checkStore(ctx, t.c)
	if busy {
		// Its secrets check cannot be made: fail now rather than ask.
		return tools.Check{Retry: busyMsg("the memory was not saved")}
	}
	if err == nil {
		if _, _, err := s.Validate(a.Content, a.Tags); err != nil {
			// Refused by Run without asking: nothing is saved.
			return tools.Check{Decision: tools.Allow, Reason: "refused by the store"}
		}
	}
	return tools.Check{Decision: tools.Ask, Reason: "a memory is sent to the model in every later session; each save is approved on its own",
		AlwaysAsk: true, NoYolo: true, Preview: preview, Outbound: out,
		Unattended: AutoSaveHint}
}

func (t *saveTool) Run(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	var a saveArgs
	if err := json.Unmarshal(args, &a); err != nil {
		return tools.Result{}, tools.Retryf("bad arguments: %v", err)
	}
	s, err := store(ctx, t.c)
	if err != nil {
		return tools.Result{}, err
	}
	m, err := s.Save(a.Content, a.Tags, t.c.Session())
	if err != nil {
		return tools.Result{}, &tools.Retry{Msg: err.Error()}
	}
	// Journalled for undo: a memory older than the turn (the save matched
	// its text) is recorded as one undo must not forget.
	if _, start, ok := journal.TurnOf(ctx); ok {
		if _, err := journal.RecordIn(ctx, journal.MemorySaved(0, t.Name(), m, start)); err != nil {
			tools.Notify(ctx, "co could not record the memory for undo: "+err.Error())
		}
	}
	return tools.Result{Display: fmt.Sprintf("Remembered [%s]: %s", m.ID, m.Content), Meta: map[string]any{"id": m.ID}}, nil
}

type searchTool struct{ c Config }

func (*searchTool) Name() string { return "search_memory" }
func (*searchTool) Description() string {
	return "Search the memories saved in earlier sessions (full-text, best match first). Each turn already shows the most relevant ones; search for more."
}
func (*searchTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"query":{"type":"string","description":"words to look for"},"limit":{"type":"integer","minimum":1,"maximum":50,"description":"most results (default 10)"}},"required":["query"],"additionalProperties":false}`)
}
func (*searchTool) Class() tools.Class { return tools.ReadOnly }

func (t *searchTool) Run(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	var a struct {
		Query string `json:"query"`
		Limit int    `json:"limit"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return tools.Result{}, tools.Retryf("bad arguments: %v", err)
	}
	if len(memory.Terms(a.Query)) == 0 {
		return tools.Result{}, tools.Retryf("the query %q has no word to search for (common words are left out): give a topic word", a.Query)
	}
	s, err := store(ctx, t.c)
	if err != nil {
		return tools.Result{}, err
	}
	ms, err := s.Search(a.Query, a.Limit)
	if err != nil {
		return tools.Result{}, err
	}
	if len(ms) == 0 {
		return tools.Result{Display: "No memory matches.", Meta: map[string]any{"count": 0}}, nil
	}
	var b strings.Builder
	for _, m := range ms {
		fmt.Fprintf(&b, "[%s] %s", m.ID, m.Content)
		if len(m.Tags) > 0 {
			fmt.Fprintf(&b, " (tags: %s)", strings.Join(m.Tags, ", "))
		}
		fmt.Fprintf(&b, " — saved %s\n", m.Created.Format("2006-01-02"))
	}
	return tools.Result{Display: strings.TrimRight(b.String(), "\n"), Meta: map[string]any{"count": len(ms)}}, nil
}

type forgetTool struct{ c Config }

func (*forgetTool) Name() string { return "forget_memory" }
func (*forgetTool) Description() string {
	return "Forget (delete) a saved memory by its id, e.g. when the user says it is wrong or outdated. The user approves it."
}
func (*forgetTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"id":{"type":"string","description":"the memory's id, as shown in [brackets]"}},"required":["id"],"additionalProperties":false}`)
}
func (*forgetTool) Class() tools.Class { return tools.SideEffect }

func (t *forgetTool) Check(ctx context.Context, args json.RawMessage) tools.Check {
	var a struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return tools.Check{Retry: fmt.Sprintf("bad arguments: %v", err)}
	}
	s, busy, err := checkStore(ctx, t.c)
	if busy {
		// The memory's text cannot be shown: fail now rather than ask blind.
		return tools.Check{Retry: busyMsg("nothing was forgotten")}
	}
	if err != nil {
		return tools.Check{Decision: tools.Allow, Reason: "the store cannot be opened"}
	}
	m, err := s.Get(a.ID)
	if err != nil {
		// Nothing would be forgotten; Run tells the model.
		return tools.Check{Decision: tools.Allow, Reason: "no such memory"}
	}
	return tools.Check{Decision: tools.Ask, Reason: "forgetting changes what every later session sees; each is approved on its own",
		AlwaysAsk: true, NoYolo: true,
		Preview: fmt.Sprintf("Forget [%s]:\n\n%s", m.ID, m.Content)}
}

func (t *forgetTool) Run(ctx context.Context, args json.RawMessage) (tools.Result, error) {
	var a struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(args, &a); err != nil {
		return tools.Result{}, tools.Retryf("bad arguments: %v", err)
	}
	s, err := store(ctx, t.c)
	if err != nil {
		return tools.Result{}, err
	}
	m, err := s.Forget(a.ID)
	if errors.Is(err, memory.ErrNotFound) || err != nil && strings.Contains(err.Error(), "ambiguous") {
		return tools.Result{}, &tools.Retry{Msg: err.Error()}
	}
	if err != nil {
		return tools.Result{}, err
	}
	return tools.Result{Display: fmt.Sprintf("Forgot [%s]: %s", m.ID, m.Content), Meta: map[string]any{"id": m.ID}}, nil
}
