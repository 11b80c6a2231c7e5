package undo

import (
	"github.com/co-cli/co/journal"
	"github.com/co-cli/co/sessions"
)

// Pending is what the session's undone turns sent that can still be taken
// back (undoable, not taken back yet), oldest first: the entries a front
// end offers again after a rewind whose questions were not answered (co
// undo without a terminal; co undo --sent asks them later). What live or
// summarised turns sent is not pending: those turns were not taken back.
func (s *Service) Pending() ([]journal.Entry, error) {
	if s.cfg.Journal == nil {
		return nil, nil
	}
	all, err := s.allTurns()
	if err != nil {
		return nil, err
	}
	undone := map[int64]bool{}
	for _, t := range all {
		if t.Undone == sessions.MarkUndone {
			undone[t.Seq] = true
		}
	}
	entries, err := s.cfg.Journal.List(0)
	if err != nil {
		return nil, err
	}
	var out []journal.Entry
	for _, e := range entries {
		if e.Undoable && e.Undone == "" && undone[int64(e.Turn)] {
			out = append(out, e)
		}
	}
	return out, nil
}

// Unfinished are the turns at the end of the session (after its last live
// turn) that a rewind took out of the conversation while leaving files of
// theirs as they were (a conflict, a failure, or the conversation only):
// their checkpoint is not marked undone. Oldest first; summarised turns
// are not among them (a summary leaves the files by design). co undo
// --force finishes them (Rewind from the first, with force) instead of
// taking another turn back.
func (s *Service) Unfinished() ([]Turn, error) {
	all, err := s.allTurns()
	if err != nil || s.cfg.Checkpoints == nil {
		return nil, err
	}
	var out []Turn
	for i := len(all) - 1; i >= 0 && all[i].Undone != ""; i-- {
		t, err := s.turn(all[i], 0)
		if err != nil {
			return nil, err
		}
		if all[i].Undone == sessions.MarkUndone && t.Checkpoint != nil && !t.Checkpoint.Undone {
			out = append([]Turn{t}, out...)
		}
	}
	return out, nil
}
