package llmtest

// ForgetRequests drops the requests received so far from the server's
// record (Requests). A long run that never reads them calls it to keep
// the record from holding every request of the conversation: each one
// carries the whole history, so the record grows with the square of the
// turns.
func (s *Server) ForgetRequests() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.requests = nil
}
