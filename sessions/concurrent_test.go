package sessions

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/co-cli/co/message"
)

// TestStoresOpenedTogetherOnANewFile: co started in two terminals at once
// on a data dir without sessions.db. Each Store has its own connections, as
// two processes would. Every one must open the file (not call the other's
// half-migrated file "not a co session store") and save everything.
func TestStoresOpenedTogetherOnANewFile(t *testing.T) {
	const stores, msgs = 6, 20
	for round := 0; round < 20; round++ {
		path := filepath.Join(t.TempDir(), "data", FileName)
		var wg sync.WaitGroup
		start := make(chan struct{})
		errs := make(chan error, stores)
		for i := 0; i < stores; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-start
				s, err := Open(path)
				if err != nil {
					errs <- err
					return
				}
				defer s.Close()
				r := s.New("/work")
				for j := 0; j < msgs; j++ {
					role := message.RoleUser
					if j%2 == 1 {
						role = message.RoleAssistant
					}
					if err := r.Append(message.Message{Role: role, Content: fmt.Sprintf("store %d message %d", i, j)}); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
		close(start)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatalf("round %d: %v", round, err)
		}
		s, err := Open(path)
		if err != nil {
			t.Fatal(err)
		}
		list, err := s.List("", 0)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != stores {
			t.Fatalf("round %d: %d sessions saved, want %d", round, len(list), stores)
		}
		for _, info := range list {
			_, m, err := s.Load(info.ID)
			if err != nil || len(m) != msgs {
				t.Fatalf("round %d: session %s has %d messages (%v), want %d", round, info.ID, len(m), err, msgs)
			}
		}
		s.Close()
	}
}
