package mcp

import (
	"errors"
	"fmt"
)

// checkConsent marks the project servers the user has not consented to,
// as their definitions and files are now, AwaitingConsent; once.
func (m *Manager) checkConsent() {
	m.consentOnce.Do(func() {
		for _, name := range m.order {
			s := m.servers[name]
			if !s.cfg.Project {
				continue
			}
			data, files := consent(m.opts.Project, s.cfg, m.opts.Getenv)
			trusted := m.opts.Trust.Trusted(m.opts.Project, name, data)
			m.mu.Lock()
			s.files = files
			if !trusted && s.state == NotStarted {
				s.state = AwaitingConsent
			}
			m.mu.Unlock()
		}
	})
}

// Trust records the user's consent to project server name's definition,
// and the files it names as they are now, and starts it.
func (m *Manager) Trust(name string) error {
	m.checkConsent()
	m.mu.Lock()
	s, ok := m.servers[name]
	m.mu.Unlock()
	if !ok {
		return m.unknown(name)
	}
	if !s.cfg.Project {
		return fmt.Errorf("MCP server %s is in your own settings: it needs no consent", name)
	}
	if m.opts.Trust == nil {
		return errors.New("no place to record consent (no data directory)")
	}
	data, files := consent(m.opts.Project, s.cfg, m.opts.Getenv)
	if err := m.opts.Trust.Grant(m.opts.Project, name, data); err != nil {
		return fmt.Errorf("recording consent to MCP server %s: %w", name, err)
	}
	m.mu.Lock()
	s.files = files
	if s.state != AwaitingConsent {
		m.mu.Unlock()
		return nil
	}
	s.state = NotStarted
	m.started = true
	m.mu.Unlock()
	s.start()
	return nil
}
