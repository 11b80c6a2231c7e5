package undo

import "github.com/co-cli/co/journal"

// Pending is what the session's undone turns sent that can still be taken
// back (undoable, not taken back yet), oldest first: the entries a front
// end offers again after a rewind whose questions were not answered (co
// undo without a terminal; co undo --sent asks them later). The entries of
// live turns are not pending: their turns were not taken back.
func (s *Service) Pending() ([]journal.Entry, error) {
	if s.cfg.Journal == nil {
		return nil, nil
	}
	turns, err := s.Turns()
	if err != nil {
		return nil, err
	}
	live := make(map[int64]bool, len(turns))
	for _, t := range turns {
		live[t.Seq] = true
	}
	all, err := s.cfg.Journal.List(0)
	if err != nil {
		return nil, err
	}
	var out []journal.Entry
	for _, e := range all {
		if e.Undoable && e.Undone == "" && !live[int64(e.Turn)] {
			out = append(out, e)
		}
	}
	return out, nil
}
