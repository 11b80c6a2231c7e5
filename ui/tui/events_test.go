package tui

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/co-cli/co/agent"
)

// The pump joins text deltas into at most ~25 messages a second, passes
// every other event alone and in order, and ends with turnClosedMsg.
// The clock is synctest's: the frames are counted against the time the
// stream takes on it, the same on a loaded machine as on an idle one.
func TestPumpCoalescesTextAndKeepsOrder(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		in := make(chan agent.Event, 64)
		done := make(chan struct{})
		defer close(done)
		p := newPump(7, in, done, nil)
		go func() {
			for i := 0; i < 200; i++ {
				in <- agent.TextDelta{Text: "abcd"}
				time.Sleep(time.Millisecond)
			}
			in <- agent.ToolCallStarted{CallID: "c1"}
			in <- agent.TextDelta{Text: "tail"}
			in <- agent.TurnFinished{}
			close(in)
		}()
		start := time.Now()
		var text strings.Builder
		var texts int
		var order []string
		for {
			msg := p.next()
			if msg == nil {
				t.Fatal("pump closed before turnClosedMsg")
			}
			if c, ok := msg.(turnClosedMsg); ok {
				if c.Turn != 7 {
					t.Fatalf("closed turn %d", c.Turn)
				}
				break
			}
			ev := msg.(agentEventMsg)
			switch e := ev.Event.(type) {
			case agent.TextDelta:
				text.WriteString(e.Text)
				texts++
				order = append(order, "text")
			case agent.ToolCallStarted:
				order = append(order, "tool")
			case agent.TurnFinished:
				order = append(order, "finished")
			}
		}
		elapsed := time.Since(start)
		if want := strings.Repeat("abcd", 200) + "tail"; text.String() != want {
			t.Fatalf("text lost or reordered: %d bytes", text.Len())
		}
		if max := int(elapsed/frameInterval) + 3; texts > max {
			t.Errorf("%d text messages in %v (at most %d)", texts, elapsed, max)
		}
		t.Logf("%d text messages in %v", texts, elapsed)
		got := strings.Join(order, ",")
		if !strings.HasSuffix(got, "text,tool,text,finished") {
			t.Errorf("order %s", got)
		}
	})
}

// A pump whose program has ended drains the agent and answers approvals,
// so the agent never blocks.
func TestPumpDrainsWhenTheProgramEnds(t *testing.T) {
	in := make(chan agent.Event)
	done := make(chan struct{})
	close(done)
	newPump(1, in, done, nil)
	finished := make(chan struct{})
	go func() {
		in <- agent.ToolCallStarted{}
		in <- agent.TurnFinished{}
		close(in)
		close(finished)
	}()
	select {
	case <-finished:
	case <-time.After(time.Minute): // a hang detector
		t.Fatal("the agent blocked on a pump nobody reads")
	}
}

// Reasoning deltas are joined too, apart from the reply's text: the two
// never merge and their order is kept.
func TestPumpJoinsReasoningApartFromText(t *testing.T) {
	in := make(chan agent.Event, 64)
	done := make(chan struct{})
	defer close(done)
	p := newPump(1, in, done, nil)
	for i := 0; i < 10; i++ {
		in <- agent.ReasoningDelta{Text: "r"}
	}
	for i := 0; i < 10; i++ {
		in <- agent.TextDelta{Text: "t"}
	}
	in <- agent.ReasoningDelta{Text: "again"}
	close(in)
	var got []string
	for {
		msg := p.next()
		if _, ok := msg.(turnClosedMsg); ok || msg == nil {
			break
		}
		switch e := msg.(agentEventMsg).Event.(type) {
		case agent.TextDelta:
			got = append(got, "text:"+e.Text)
		case agent.ReasoningDelta:
			got = append(got, "reasoning:"+e.Text)
		}
	}
	j := strings.Join(got, ",")
	// However they are framed, joining each kind's pieces in order gives
	// back what was sent, and the kinds alternate as they were sent.
	var kinds []string
	var r, tx strings.Builder
	for _, g := range got {
		k, v, _ := strings.Cut(g, ":")
		if len(kinds) == 0 || kinds[len(kinds)-1] != k {
			kinds = append(kinds, k)
		}
		if k == "text" {
			tx.WriteString(v)
		} else {
			r.WriteString(v)
		}
	}
	if strings.Join(kinds, ",") != "reasoning,text,reasoning" || r.String() != "rrrrrrrrrragain" || tx.String() != "tttttttttt" {
		t.Fatalf("pump handed out %s", j)
	}
}
