package app

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/co-cli/co/agent"
	"github.com/co-cli/co/memory"
	"github.com/co-cli/co/tools"
	memtools "github.com/co-cli/co/tools/memory"
)

// memoryTools makes the store handle (opened on first use: never before a
// front end's first frame) and the memory tools, unless memory_enabled is
// off or the run only reports.
func (a *App) memoryTools() ([]tools.Tool, []tools.Unconfigured) {
	st := a.Config.Settings
	if !st.MemoryEnabled {
		return nil, []tools.Unconfigured{{Family: "Memory", Tools: memtools.Names, Hint: "memory_enabled is off"}}
	}
	a.Memory = memory.NewLazy(MemoryPath(a.Config), memoryOptions(a.Config))
	a.onClose(func() { a.Memory.Close() })
	return memtools.Tools(memtools.Config{
		Store: a.Memory.StoreContext,
		Session: func() string {
			if a.Agent != nil {
				return a.Agent.SessionID()
			}
			return a.SessionID
		},
		AutoSave: st.MemoryAutoSave,
	}), nil
}

// recallTimeout bounds how long a turn waits for its memories (another co
// holding the store's write lock): the turn goes on without them.
const recallTimeout = 500 * time.Millisecond

// memoryRecall is the agent's Config.Recall: the memories relevant to the
// turn's prompt (and the pinned ones), as a block before it. A store that
// cannot be opened or read (damaged, written by a newer co) is said once
// per run, as a notice, and the turns go on without memories; a store busy
// in another co is not a fault and is not said.
func (a *App) memoryRecall() func(ctx context.Context, prompt string) (string, []agent.Recalled, string) {
	if a.Memory == nil {
		return nil
	}
	lazy := a.Memory
	var said atomic.Bool
	return func(ctx context.Context, prompt string) (string, []agent.Recalled, string) {
		type res struct {
			ms  []memory.Memory
			err error
		}
		ch := make(chan res, 1)
		octx, cancel := context.WithTimeout(ctx, recallTimeout)
		defer cancel()
		go func() {
			defer func() {
				if p := recover(); p != nil {
					ch <- res{err: fmt.Errorf("recall failed: %v", p)}
				}
			}()
			s, err := lazy.StoreContext(octx) // the open goes on for the next turn
			if err != nil {
				ch <- res{err: err}
				return
			}
			ms, err := s.Recall(prompt)
			ch <- res{ms, err}
		}()
		var r res
		select {
		case r = <-ch:
		case <-time.After(recallTimeout):
		case <-ctx.Done():
		}
		notice := ""
		if r.err != nil && !errors.Is(r.err, memory.ErrBusy) && ctx.Err() == nil && !said.Swap(true) {
			notice = "Memory is unavailable, so this conversation goes on without saved memories: " + r.err.Error()
		}
		if len(r.ms) == 0 {
			return "", nil, notice
		}
		out := make([]agent.Recalled, len(r.ms))
		for i, m := range r.ms {
			out[i] = agent.Recalled{ID: m.ID, Text: m.Content}
		}
		return memory.Block(r.ms), out, notice
	}
}
