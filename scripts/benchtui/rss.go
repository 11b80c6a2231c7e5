package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/co-cli/co/agent/llmtest"
)

// compareRSS plays a long conversation in the full-screen chat of each
// build, alternating builds and lengths within each round so the
// machine's drift falls on all of them alike, and prints co's memory
// after each length: resident set (VmRSS; anonymous and file-backed),
// peak (VmHWM), and the live Go heap that the runtime's last collection
// found (GODEBUG=gctrace=1, in whole MB, read from co's stderr). A turn is a question, a read_file
// call on a 12-line file and its output, and a markdown reply of about
// 1,500 characters (heading, list, code block, table) streamed in
// 16-character chunks. co runs with the settings a user has
// (max_history_messages 40): old turns are summarised, as in a real
// conversation, and each build's summaries are counted on stderr. With
// keepAll, every message stays in the history (no summary), as with
// max_history_messages set past the conversation's length.
func compareRSS(spec string, lengths []int, rounds int, keepAll bool) {
	type sample struct{ rss, anon, file, hwm, heap []int64 }
	type build struct {
		name, path string
		at         map[int]*sample
	}
	var builds []*build
	names, paths, cleanup := freshBuilds("-rss", spec)
	defer cleanup()
	for i, name := range names {
		b := &build{name: name, path: paths[i], at: map[int]*sample{}}
		for _, n := range lengths {
			b.at[n] = &sample{}
		}
		builds = append(builds, b)
	}
	defaultHistory = !keepAll // the settings a user has: old turns summarised
	defer func() { defaultHistory = false }()
	for r := 0; r < rounds; r++ {
		for _, n := range lengths {
			for _, b := range builds {
				*bin = b.path
				m := playLong(n)
				s := b.at[n]
				s.rss, s.anon, s.file, s.hwm, s.heap = append(s.rss, m.rss), append(s.anon, m.anon), append(s.file, m.file), append(s.hwm, m.hwm), append(s.heap, m.heap)
				fmt.Fprintf(os.Stderr, "round %d, %s, %d turns: RSS %s (anon %s, file %s), peak %s, heap %s\n", r, b.name, n, mib(m.rss), mib(m.anon), mib(m.file), mib(m.hwm), mib(m.heap))
			}
		}
	}
	med := func(v []int64) int64 {
		if len(v) == 0 {
			return 0
		}
		v = append([]int64(nil), v...)
		sort.Slice(v, func(i, j int) bool { return v[i] < v[j] })
		return v[len(v)/2]
	}
	fmt.Printf("\nMedians of %d rounds.\n\n", rounds)
	fmt.Printf("| build | turns | RSS | anonymous / file-backed | peak RSS | live Go heap (last GC, whole MB) |\n|---|---|---|---|---|---|\n")
	for _, b := range builds {
		for _, n := range lengths {
			s := b.at[n]
			fmt.Printf("| %s | %d | %s | %s / %s | %s | %s |\n", b.name, n, mib(med(s.rss)), mib(med(s.anon)), mib(med(s.file)), mib(med(s.hwm)), mib(med(s.heap)))
		}
		if len(lengths) == 2 {
			a, z := b.at[lengths[0]], b.at[lengths[1]]
			per := float64(med(z.rss)-med(a.rss)) / float64(lengths[1]-lengths[0])
			heapPer := float64(med(z.heap)-med(a.heap)) / float64(lengths[1]-lengths[0])
			fmt.Printf("| %s | %d → %d | %+.1f%% (%+.1f KiB a turn) | | | %+.1f KiB a turn |\n", b.name, lengths[0], lengths[1], 100*float64(med(z.rss)-med(a.rss))/float64(med(a.rss)), per, heapPer)
		}
	}
}

// longMem is co's memory after a conversation, in KiB.
type longMem struct{ rss, anon, file, hwm, heap int64 }

// longFile is what each turn's read_file reads.
var longFile = func() string {
	var b strings.Builder
	for i := range 12 {
		fmt.Fprintf(&b, "func step%02d(ctx context.Context, ev Event) error { return store.Put(ctx, ev, %d) }\n", i, i)
	}
	return b.String()
}()

// longReply is turn i's markdown reply, about 1,500 characters, ending
// with its marker.
func longReply(i int) string {
	return fmt.Sprintf("## Turn %d\n\nThe service reads **events** from the queue, validates them against the `schema`, and writes the accepted ones to the store. Rejected events go to a *dead-letter* topic with the reason attached, so nothing is lost silently.\n\n"+
		"- Parse the payload and check the version field (%d).\n- Reject events older than the retention window.\n- Batch writes in groups of `500` to keep latency low.\n\n"+
		"```go\nfunc (s *Service) Handle(ctx context.Context, ev Event) error {\n\tif err := s.schema.Validate(ev); err != nil {\n\t\treturn s.deadLetter(ctx, ev, err)\n\t}\n\treturn s.store.Put(ctx, ev)\n}\n```\n\n"+
		"| setting | default | meaning |\n|---|---|---|\n| `batch_size` | 500 | events per write |\n| `retention` | %dd | oldest accepted event |\n\n"+
		"### Next steps\n\n1. Add a metric for the dead-letter rate.\n2. Alert when it stays above **1%%** for ten minutes.\n3. Document the replay procedure in the runbook.\n\nThat is turn %d. R%d-DONE", i, i, i%30+1, i, i)
}

// stderrTo, when set, is co's stderr instead of the terminal.
var stderrTo *os.File

// defaultHistory leaves co's history settings at their defaults
// (max_history_messages 40: older turns are summarised) instead of
// keeping every message.
var defaultHistory bool

// summaryMatch is in the request that asks for a summary (the
// transcript the agent sends, agent/history.go) and in no turn's
// question.
const summaryMatch = "ASSISTANT CALLED read_file"

// playLong launches co, plays turns turns and returns its memory then.
// The model's replies are rules chosen by the question, so that the
// summary requests compaction makes between turns get a summary.
func playLong(turns int) longMem {
	srv := llmtest.NewServer()
	defer srv.Close()
	rules := []llmtest.Reply{{Match: summaryMatch, Reusable: true,
		Text: "- The user asks, turn by turn, how the service handles events; each turn read handler.go (twelve step functions that put events in the store).\n- Answers covered validation, the dead-letter topic, batching by 500 and the retention window.\n- Open: metrics and alerting for the dead-letter rate, the replay runbook."}}
	for i := range turns {
		q := fmt.Sprintf("question %d: how", i) // "question 1: how" is not in "question 10: how"
		rules = append(rules,
			llmtest.Reply{Match: q, Text: fmt.Sprintf("Let me read the handler for event %d.", i), ChunkSize: 16, ToolCalls: []llmtest.ToolCall{{Name: "read_file", Args: `{"path":"handler.go"}`}}},
			llmtest.Reply{Match: q, Text: longReply(i), ChunkSize: 16})
	}
	srv.Rules(rules...)
	gc, err := os.CreateTemp("", "co-benchrss-gctrace-")
	if err != nil {
		fail(err)
	}
	defer os.Remove(gc.Name())
	defer gc.Close()
	stderrTo = gc
	defer func() { stderrTo = nil }()
	env := []string{"GODEBUG=gctrace=1"}
	if p := os.Getenv("BENCHRSS_MEMPROFILE"); p != "" { // where the heap goes, at exit
		env = append(env, "CO_MEMPROFILE="+p)
	}
	t := launch(srv.URL, env...)
	if err := os.WriteFile(filepath.Join(t.home, "handler.go"), []byte(longFile), 0o644); err != nil {
		fail(err)
	}
	t.wait(10*time.Second, func(s string) bool { return strings.Contains(s, readyText) })
	summaries := 0
	defer func() { fmt.Fprintf(os.Stderr, "%d turns, %d summaries\n", turns, summaries) }()
	for i := range turns {
		t0 := time.Now()
		t.send(fmt.Sprintf("question %d: how is event %d handled?\r", i, i))
		want := fmt.Sprintf("R%d-DONE", i)
		t.wait(60*time.Second, func(s string) bool { return strings.Contains(s, want) && !strings.Contains(s, "thinking") })
		for _, r := range srv.Requests() {
			if strings.Contains(r.LastUserMessage(), summaryMatch) {
				summaries++
			}
		}
		srv.ForgetRequests()
		if os.Getenv("BENCHRSS_TRACE") != "" {
			fmt.Fprintln(os.Stderr, "turn", i, time.Since(t0))
		}
	}
	time.Sleep(time.Second) // the last frames, the session's last write
	var m longMem
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", t.cmd.Process.Pid))
	for _, l := range strings.Split(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		v, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			m.rss = v
		case "RssAnon:":
			m.anon = v
		case "RssFile:":
			m.file = v
		}
	}
	m.heap = lastLiveHeap(gc.Name())
	t.quit()
	m.hwm = t.hwm
	return m
}

// lastLiveHeap is the live heap after the last collection in a gctrace
// ("gc 12 @1.2s 1%: …, 4->5->2 MB, 5 MB goal, …": the third figure), in
// KiB.
func lastLiveHeap(path string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		fail(err)
	}
	var live int64 = -1
	for _, l := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(l, "gc ") {
			continue
		}
		for _, f := range strings.Split(l, ",") {
			f = strings.TrimSpace(f)
			if !strings.HasSuffix(f, " MB") || strings.Count(f, "->") != 2 {
				continue
			}
			parts := strings.Split(strings.TrimSuffix(f, " MB"), "->")
			if v, err := strconv.ParseInt(parts[2], 10, 64); err == nil {
				live = v * 1024
			}
		}
	}
	if live < 0 {
		fail(fmt.Errorf("no collection in co's gctrace (%s)", path))
	}
	return live
}
