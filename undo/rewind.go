package undo

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"

	"github.com/co-cli/co/checkpoint"
	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/sessions"
)

// ErrNotSaved is the answer for a conversation that is not saved: its
// turns have no keys, so nothing of them can be taken back.
var ErrNotSaved = errors.New("this conversation is not saved (no session store), so its turns cannot be undone")

// String is the mode as the span and the front ends name it.
func (m Mode) String() string {
	switch m {
	case Both:
		return "both"
	case FilesOnly:
		return "files"
	case ConversationOnly:
		return "conversation"
	case Summarise:
		return "summarise"
	}
	return "mode " + strconv.Itoa(int(m))
}

func (s *Service) tracer() trace.Tracer {
	if s.cfg.Tracer != nil {
		return s.cfg.Tracer
	}
	return noop.NewTracerProvider().Tracer("undo")
}

// checkpointID is turn seq's checkpoint id.
func (s *Service) checkpointID(seq int64) string {
	return s.cfg.Session + "-" + strconv.FormatInt(seq, 10)
}

// Turns lists the session's live turns, oldest first.
func (s *Service) Turns() ([]Turn, error) {
	all, err := s.allTurns()
	if err != nil {
		return nil, err
	}
	var out []Turn
	for _, t := range all {
		if t.Undone != "" {
			continue
		}
		u, err := s.turn(t, len(out)+1)
		if err != nil {
			return nil, err
		}
		out = append(out, u)
	}
	return out, nil
}

func (s *Service) allTurns() ([]sessions.Turn, error) {
	if s.cfg.Sessions == nil || s.cfg.Session == "" {
		return nil, ErrNotSaved
	}
	t, err := s.cfg.Sessions.Turns(s.cfg.Session)
	if errors.Is(err, sessions.ErrNotFound) {
		return nil, nil // saved from its first message: no turn yet
	}
	return t, err
}

// turn is t with its checkpoint and journal; n its number among the live
// turns (0 for one taken out).
func (s *Service) turn(t sessions.Turn, n int) (Turn, error) {
	u := Turn{Seq: t.Seq, N: n, Prompt: t.Prompt, At: t.At}
	if t.Shown != "" {
		u.Prompt = t.Shown
	}
	if c := s.cfg.Checkpoints; c != nil {
		rec, ok, err := c.Turn(s.checkpointID(t.Seq))
		if err != nil {
			return u, err
		}
		if ok {
			u.Checkpoint = rec
		}
	}
	if j := s.cfg.Journal; j != nil {
		sent, err := j.List(int(t.Seq))
		if err != nil {
			return u, err
		}
		u.Sent = sent
	}
	return u, nil
}

// Rewind takes back every live turn from fromSeq on (the last turn: its
// own Seq) as mode says. A file changed since its turn ended is a
// conflict, left as it is and named in Result.Files, unless force.
//
// Files (Both, FilesOnly) are taken back for every turn from fromSeq on,
// those already out of the conversation too: the workspace goes back to
// where it was before fromSeq. A turn with a conflict stays not undone in
// the checkpoint store, so the same call again with force finishes it
// (the conversation, taken back the first time, is then left as it is).
// Both and ConversationOnly take the turns out of the conversation (and
// list what they sent, Result.Sent); FilesOnly leaves the conversation
// and the journal alone; Summarise replaces the turns by a summary and
// leaves the files.
func (s *Service) Rewind(ctx context.Context, fromSeq int64, mode Mode, force bool) (res Result, err error) {
	ctx, span := s.tracer().Start(ctx, "execute_tool undo", trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", "undo"),
		attribute.String("co.session.id", s.cfg.Session),
		attribute.String("co.undo.mode", mode.String()),
		attribute.Int64("co.undo.from_seq", fromSeq),
		attribute.Bool("co.undo.force", force),
	))
	defer func() {
		f := res.Files
		span.SetAttributes(
			attribute.Int("co.undo.turns", len(res.Taken)),
			attribute.Int("co.undo.restored", len(f.Restored)),
			attribute.Int("co.undo.removed", len(f.Removed)),
			attribute.Int("co.undo.conflicts", len(f.Conflicts)),
			attribute.Int("co.undo.not_restorable", len(f.NotRestorable)),
			attribute.Int("co.undo.sent", len(res.Sent)),
		)
		// Paths only: never a file's content.
		if paths := reportPaths(f); len(paths) > 0 {
			span.SetAttributes(attribute.StringSlice("co.undo.paths", paths))
		}
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
			span.RecordError(err)
		}
		span.End()
	}()
	if mode < Both || mode > Summarise {
		return res, fmt.Errorf("undo: unknown mode %d", mode)
	}
	if mode == Summarise && s.cfg.Summarise == nil {
		return res, errors.New("summarising turns needs the model, which is not available here")
	}
	if s.cfg.Sessions == nil || s.cfg.Session == "" {
		return res, ErrNotSaved
	}
	if s.cfg.Hold != nil {
		release, err := s.cfg.Hold()
		if err != nil {
			return res, err
		}
		defer release()
	}
	all, err := s.allTurns()
	if err != nil {
		return res, err
	}
	at := -1
	for i, t := range all {
		if t.Seq == fromSeq {
			at = i
			break
		}
	}
	if at < 0 {
		return res, fmt.Errorf("undo: session %s has no turn %d (list them with co undo --list or /rewind)", s.cfg.Session, fromSeq)
	}
	from := all[at:]
	var live []sessions.Turn
	for _, t := range from {
		if t.Undone == "" {
			live = append(live, t)
		}
	}
	files := mode == Both || mode == FilesOnly
	conversation := mode == Both || mode == ConversationOnly || mode == Summarise
	if len(live) == 0 && !files {
		return res, fmt.Errorf("undo: turn %d and those after it are already out of the conversation", fromSeq)
	}

	restored := map[string]bool{}
	if files {
		if s.cfg.Checkpoints == nil {
			res.Notes = append(res.Notes, "Files were not restored: there are no checkpoints of this workspace.")
		} else {
			ids := make([]string, len(from))
			for i, t := range from {
				ids[i] = s.checkpointID(t.Seq)
			}
			rep, err := s.cfg.Checkpoints.Rewind(ids, force)
			res.Files = rep
			if err != nil {
				return res, err
			}
			for _, id := range rep.Turns {
				restored[id] = true
			}
			res.Notes = append(res.Notes, s.missingNotes(from, rep.Missing)...)
			if len(rep.Conflicts) > 0 && !force {
				res.Notes = append(res.Notes, fmt.Sprintf("%s changed after the turn and kept as %s now; undo again with force to put back the turn's version.",
					plural(len(rep.Conflicts), "file was", "files were"), plural(len(rep.Conflicts), "it is", "they are")))
			}
		}
	}

	// The turns taken back: those still in the conversation, or, when none
	// is (force after a conflict), those whose files came back now.
	taken := live
	if len(taken) == 0 {
		for _, t := range from {
			if restored[s.checkpointID(t.Seq)] {
				taken = append(taken, t)
			}
		}
	}
	if len(taken) == 0 && len(res.Files.AlreadyUndone) == len(from) {
		return res, fmt.Errorf("undo: turn %d and those after it were undone before", fromSeq)
	}
	for _, t := range taken {
		u, err := s.turn(t, 0)
		if err != nil {
			return res, err
		}
		res.Taken = append(res.Taken, u)
	}
	if len(res.Taken) > 0 {
		res.Prompt = res.Taken[0].Prompt
	}

	changed := false
	if conversation && len(live) > 0 {
		switch mode {
		case Summarise:
			msgs, err := s.messagesFrom(live[0].Seq)
			if err != nil {
				return res, err
			}
			summary, err := s.cfg.Summarise(ctx, msgs)
			if err != nil {
				return res, fmt.Errorf("summarising failed, the conversation is unchanged: %w", err)
			}
			if err := s.cfg.Sessions.SummariseFrom(s.cfg.Session, live[0].Seq, summary); err != nil {
				return res, err
			}
			res.Summary = summary
		default:
			if _, err := s.cfg.Sessions.UndoFrom(s.cfg.Session, live[0].Seq); err != nil {
				return res, err
			}
		}
		changed = true
	}
	if mode == Both || mode == ConversationOnly {
		for _, t := range res.Taken {
			for _, e := range t.Sent {
				if e.Undone == "" {
					res.Sent = append(res.Sent, e)
				}
			}
		}
		if s.cfg.Journal == nil {
			res.Notes = append(res.Notes, "What these turns sent (messages, drafts, events) is not known here: this session has no journal.")
		}
	}
	if changed && s.cfg.Changed != nil {
		if err := s.cfg.Changed(); err != nil {
			return res, fmt.Errorf("the turns were taken back, but reloading the conversation failed: %w", err)
		}
	}
	return res, nil
}

// missingNotes says which live turns have no checkpoint.
func (s *Service) missingNotes(from []sessions.Turn, missing []string) []string {
	if len(missing) == 0 {
		return nil
	}
	gone := map[string]bool{}
	for _, id := range missing {
		gone[id] = true
	}
	var n int
	for _, t := range from {
		if gone[s.checkpointID(t.Seq)] {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	return []string{fmt.Sprintf("%s no checkpoint: %s no files, or %s not checkpointed (a workspace too large, a checkpoint pruned, an older co).",
		plural(n, "1 turn has", strconv.Itoa(n)+" turns have"), plural(n, "it changed", "they changed"), plural(n, "it was", "they were"))}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// messagesFrom are the live messages of the session from seq fromSeq (a
// turn's user message) on. The transcript's messages are in seq order, and
// its user messages are the turns, so the turn's place among them finds
// its message.
func (s *Service) messagesFrom(fromSeq int64) ([]message.Message, error) {
	all, err := s.allTurns()
	if err != nil {
		return nil, err
	}
	k := -1
	for i, t := range all {
		if t.Seq == fromSeq {
			k = i
		}
	}
	_, entries, err := s.cfg.Sessions.Transcript(s.cfg.Session)
	if err != nil {
		return nil, err
	}
	var out []message.Message
	users := 0
	for _, e := range entries {
		if e.Aside != nil || e.Decision != nil {
			continue
		}
		if e.Message.Role == message.RoleUser {
			users++
		}
		if k >= 0 && users > k && e.Undone == "" {
			out = append(out, e.Message)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("undo: turn %d has no messages to summarise", fromSeq)
	}
	return out, nil
}

// reportPaths are the paths a rewind touched or left, at most 100.
func reportPaths(f checkpoint.Report) []string {
	var out []string
	add := func(p string) {
		if len(out) < 100 {
			out = append(out, p)
		}
	}
	for _, p := range f.Restored {
		add(p)
	}
	for _, p := range f.Removed {
		add(p)
	}
	for _, c := range f.Conflicts {
		add(c.Path)
	}
	for _, n := range f.NotRestorable {
		add(n.Path)
	}
	return out
}

// UndoSent takes back one journal entry (Result.Sent's Seq).
func (s *Service) UndoSent(ctx context.Context, seq int) (r journal.Result, err error) {
	ctx, span := s.tracer().Start(ctx, "execute_tool undo_sent", trace.WithAttributes(
		attribute.String("gen_ai.operation.name", "execute_tool"),
		attribute.String("gen_ai.tool.name", "undo_sent"),
		attribute.String("co.session.id", s.cfg.Session),
		attribute.Int("co.undo.entry", seq),
	))
	defer func() {
		if r.Outcome != "" {
			span.SetAttributes(attribute.String("co.undo.outcome", string(r.Outcome)))
		}
		if err != nil {
			span.SetAttributes(attribute.String("co.undo.outcome", "failed"))
			span.SetStatus(codes.Error, err.Error())
			span.RecordError(err)
		}
		span.End()
	}()
	if s.cfg.Journal == nil {
		return r, errors.New("this session has no journal: nothing it sent can be taken back here")
	}
	if e, err := s.cfg.Journal.Get(seq); err == nil {
		span.SetAttributes(attribute.String("co.undo.kind", string(e.Kind)), attribute.String("co.undo.tool", e.Tool))
	}
	reg := s.cfg.Registry
	if reg == nil {
		reg = journal.NewRegistry()
	}
	return reg.Undo(ctx, s.cfg.Journal, seq)
}
