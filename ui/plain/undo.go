package plain

import (
	"context"

	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/ui/present"
	"github.com/co-cli/co/ui/slash"
)

// rewind runs /undo or /rewind N: what it restored, removed and kept
// (conflicts), then a question whether to overwrite the conflicts, the
// prompt taken back, and what the turns sent, each undoable entry asked
// about (y/N). A script (Options.Script) is asked nothing: conflicts stay
// as they are and what was sent stays sent, both listed. It returns true
// when input ended.
func (s *session) rewind(ctx context.Context, rw *slash.Rewind) (inputEnded bool) {
	res, err := rw.Service.Rewind(ctx, rw.From, rw.Mode, false)
	if err != nil {
		s.println("error: " + safe.Text(err.Error()))
		return false
	}
	s.println(slash.Report(*rw, res))
	if len(res.Files.Conflicts) > 0 {
		if s.o.Script {
			s.println("The conflicting files were kept as they are (the input is not a terminal: nothing is overwritten without asking).")
		} else {
			yes, ended := s.yesNo(slash.ConflictQuestion(res))
			if ended {
				return true
			}
			if yes {
				forced, err := rw.Service.Rewind(ctx, rw.From, rw.Mode, true)
				if err != nil {
					s.println("error: " + safe.Text(err.Error()))
				} else {
					s.println(slash.ForcedReport(forced))
				}
			} else {
				s.println("Kept them as they are.")
			}
		}
	}
	if p := slash.PromptWas(res); p != "" {
		s.println(p)
	}
	ask, cannot := slash.SplitSent(res.Sent)
	for _, l := range cannot {
		s.println(l)
	}
	for _, e := range ask {
		if s.o.Script {
			s.println("not taken back (the input is not a terminal, nothing is asked): " + present.Line(safe.Text(e.What)))
			continue
		}
		yes, ended := s.yesNo(slash.SentQuestion(e))
		if ended {
			return true
		}
		if !yes {
			s.println("Kept: " + present.Line(safe.Text(e.What)))
			continue
		}
		r, err := rw.Service.UndoSent(ctx, e.Seq)
		s.println(slash.SentOutcome(e, r, err))
	}
	return false
}

// yesNo asks question and reads the answer: y or yes is yes, anything
// else no. ended: the input ended instead (no).
func (s *session) yesNo(question string) (yes, ended bool) {
	s.print(question + " [y/N] ")
	line, ok := <-s.lines
	if !ok {
		s.println("\n(input ended: not done)")
		return false, true
	}
	if !s.o.isTTYEcho() {
		s.println(line)
	}
	return isYes(line), false
}
