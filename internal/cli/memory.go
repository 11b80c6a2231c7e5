package cli

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/spf13/cobra"

	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/memory"
	"github.com/co-cli/co/ui/slash"
)

// memoryListMax is how many memories /memory shows before saying how many
// more there are.
const memoryListMax = 50

// memoryTable renders memories for co memory and /memory: one line each,
// every string from the store made safe.
func memoryTable(ms []memory.Memory, more int) string {
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tSAVED\tLAST USED\tTAGS\tMEMORY")
	for _, m := range ms {
		used := "—"
		if !m.Used.IsZero() {
			used = m.Used.Format("2006-01-02 15:04")
		}
		text := cell(m.Content)
		if m.Pinned {
			text = "(pinned) " + text
		}
		tags := cell(strings.Join(m.Tags, ","))
		if tags == "" {
			tags = "—"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\n", cell(m.ID), m.Created.Format("2006-01-02 15:04"), used, tags, text)
	}
	w.Flush()
	out := strings.TrimRight(b.String(), "\n")
	if more > 0 {
		out += fmt.Sprintf("\n… and %d more (search to narrow them down)", more)
	}
	return out
}

// memorySlash is /memory for a chat (both front ends).
func memorySlash(a *app.App) func(arg string) slash.Result {
	return func(arg string) slash.Result {
		if a.Memory == nil {
			return slash.Result{Output: "memory is off (memory_enabled); co memory list still shows what was saved", Err: true}
		}
		s, err := a.Memory.Store()
		if err != nil {
			return slash.Result{Output: safe.Text(err.Error()), Err: true}
		}
		return memoryCommand(s, arg)
	}
}

const memoryUsage = "usage: /memory, /memory search WORDS, /memory pin ID, /memory unpin ID, /memory edit ID NEW TEXT, /memory rm ID"

// memoryCommand runs one /memory line against s.
func memoryCommand(s *memory.Store, arg string) slash.Result {
	verb, rest, _ := strings.Cut(strings.TrimSpace(arg), " ")
	rest = strings.TrimSpace(rest)
	fail := func(err error) slash.Result { return slash.Result{Output: safe.Text(err.Error()), Err: true} }
	needID := func() (string, string, bool) {
		id, more, _ := strings.Cut(rest, " ")
		return id, strings.TrimSpace(more), id != ""
	}
	switch verb {
	case "", "list", "ls":
		ms, err := s.List()
		if err != nil {
			return fail(err)
		}
		if len(ms) == 0 {
			return slash.Result{Output: "No memories yet. co saves one when you ask it to remember something (you approve each save)."}
		}
		more := 0
		if len(ms) > memoryListMax {
			more, ms = len(ms)-memoryListMax, ms[:memoryListMax]
		}
		return slash.Result{Output: memoryTable(ms, more) + "\n/memory search WORDS · pin ID · edit ID TEXT · rm ID"}
	case "search", "find":
		if rest == "" {
			return slash.Result{Output: memoryUsage, Err: true}
		}
		ms, err := s.Search(rest, memoryListMax)
		if err != nil {
			return fail(err)
		}
		if len(ms) == 0 {
			return slash.Result{Output: "No memory matches " + cell(rest) + "."}
		}
		return slash.Result{Output: memoryTable(ms, 0)}
	case "pin", "unpin":
		id, _, ok := needID()
		if !ok {
			return slash.Result{Output: memoryUsage, Err: true}
		}
		m, err := s.Pin(id, verb == "pin")
		if err != nil {
			return fail(err)
		}
		if m.Pinned {
			return slash.Result{Output: fmt.Sprintf("Pinned [%s]: it is recalled on every turn.", m.ID)}
		}
		return slash.Result{Output: fmt.Sprintf("Unpinned [%s]: recalled only when relevant.", m.ID)}
	case "edit":
		id, text, ok := needID()
		if !ok || text == "" {
			return slash.Result{Output: memoryUsage, Err: true}
		}
		m, err := s.Update(id, text)
		if err != nil {
			return fail(err)
		}
		return slash.Result{Output: fmt.Sprintf("Updated [%s]: %s", m.ID, cell(m.Content))}
	case "rm", "forget", "delete":
		id, _, ok := needID()
		if !ok {
			return slash.Result{Output: memoryUsage, Err: true}
		}
		m, err := s.Get(id)
		if err != nil {
			return fail(err)
		}
		return slash.Result{
			Confirm: fmt.Sprintf("Forget [%s] %s?", m.ID, cell(m.Content)),
			OnConfirm: func() slash.Result {
				if _, err := s.Forget(m.ID); err != nil {
					return fail(err)
				}
				return slash.Result{Output: fmt.Sprintf("Forgot [%s].", m.ID)}
			},
		}
	}
	return slash.Result{Output: memoryUsage, Err: true}
}

// storeForMemory opens the memory store for co memory.
func storeForMemory(s env) (*memory.Store, error) {
	l, err := loadConfig(s)
	if err != nil {
		return nil, err
	}
	return app.OpenMemory(l)
}

func newMemoryCmd(s env) *cobra.Command {
	with := func(f func(st *memory.Store, args []string) error) func(*cobra.Command, []string) error {
		return func(_ *cobra.Command, args []string) error {
			st, err := storeForMemory(s)
			if err != nil {
				return err
			}
			defer st.Close()
			return f(st, args)
		}
	}
	list := func(st *memory.Store, _ []string) error {
		ms, err := st.List()
		if err != nil {
			return err
		}
		if len(ms) == 0 {
			fmt.Fprintln(s.Out, "No memories yet.")
			return nil
		}
		fmt.Fprintln(s.Out, memoryTable(ms, 0))
		return nil
	}
	cmd := &cobra.Command{
		Use:   "memory",
		Short: "List, search, forget and export what co remembers across sessions",
		Long: `co memory lists the memories co keeps across sessions (memory.db in the data
directory): what you approved co saving, with when it was saved and last
recalled. co memory search WORDS finds some, co memory rm ID forgets one, and
co memory export writes them all as JSON. In a chat, /memory does the same and
pins and edits them.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: with(list),
	}
	cmd.AddCommand(
		&cobra.Command{Use: "list", Short: "List every memory", Args: usageArgs(cobra.NoArgs), RunE: with(list)},
		&cobra.Command{Use: "search QUERY", Short: "Search the memories (best match first)", Args: usageArgs(cobra.MinimumNArgs(1)),
			RunE: with(func(st *memory.Store, args []string) error {
				q := strings.Join(args, " ")
				if len(memory.Terms(q)) == 0 {
					return usageError{fmt.Errorf("%q has no word to search for (common words are left out)", q), "co memory search"}
				}
				ms, err := st.Search(q, 0)
				if err != nil {
					return err
				}
				if len(ms) == 0 {
					fmt.Fprintf(s.Out, "No memory matches %s.\n", cell(q))
					return nil
				}
				fmt.Fprintln(s.Out, memoryTable(ms, 0))
				return nil
			})},
		&cobra.Command{Use: "rm ID", Short: "Forget a memory (a unique id prefix is enough)", Args: usageArgs(cobra.ExactArgs(1)),
			ValidArgsFunction: oneArg(completeMemoryIDs), // the ids, with each memory's text
			RunE: with(func(st *memory.Store, args []string) error {
				m, err := st.Forget(args[0])
				if err != nil {
					if errors.Is(err, memory.ErrNotFound) {
						return fmt.Errorf("%s", safe.Text(err.Error()))
					}
					return err
				}
				fmt.Fprintf(s.Out, "Forgot [%s] %s\n", m.ID, cell(m.Content))
				return nil
			})},
		&cobra.Command{Use: "export", Short: "Write every memory as JSON (id, content, tags, pinned, session, created, last_used)", Args: usageArgs(cobra.NoArgs),
			RunE: with(func(st *memory.Store, _ []string) error {
				var b bytes.Buffer
				if err := st.Export(&b); err != nil {
					return err
				}
				_, err := s.Out.Write(jsonTerminalSafe(b.Bytes()))
				return err
			})},
	)
	return cmd
}

// jsonTerminalSafe escapes the C1 controls and DEL that encoding/json
// leaves raw (it escapes only those below U+0020), so that exported text
// cannot drive a terminal; the JSON means the same.
func jsonTerminalSafe(b []byte) []byte {
	var out []byte
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			if out == nil {
				out = append(make([]byte, 0, len(b)+16), b[:i]...)
			}
			out = fmt.Appendf(out, `\u%04x`, r)
		} else if out != nil {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	if out == nil {
		return b
	}
	return out
}
