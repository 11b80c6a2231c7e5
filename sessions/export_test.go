package sessions

// DraftPath is draftPath, for the tests that drive a store with the agent
// (package sessions_test: sessions itself never imports the agent).
func (s *Store) DraftPath(id string) string { return s.draftPath(id) }
