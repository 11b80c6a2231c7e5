package tui

import (
	"context"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/ui/slash"
)

// /model in the chat: the list is fetched by a command, never in Update,
// once a session (the agent caches it); typing /model starts the fetch so
// Tab has names to complete by the time it is pressed.

// modelsState is where the model list stands.
type modelsState struct {
	fetching   bool         // a fetch is under way
	failed     bool         // the last fetch failed: no new one until something is sent
	tabPending bool         // Tab was pressed after "/model " before the list came
	note       *noticeEntry // the "fetching models…" line /model added, to fill in
	// reportedFrom is the first turn whose reported model counts: a
	// switch makes the one reported before it stale.
	reportedFrom int
}

// modelsMsg brings the fetched list.
type modelsMsg struct {
	names []string
	err   error
	show  bool // /model asked for it (else it was fetched for Tab)
}

func (a *App) fetchModels(show bool) tea.Cmd {
	if !show && a.models.fetching {
		return nil
	}
	a.models.fetching = true
	ag := a.agent
	return safeCmd(func() tea.Msg {
		names, err := ag.Models(context.Background())
		return modelsMsg{names: names, err: err, show: show}
	})
}

// modelArg is what follows "/model " in the input, and whether the input
// is a /model command with its argument being typed.
func modelArg(v string) (string, bool) {
	rest, ok := strings.CutPrefix(v, "/model ")
	if !ok || strings.ContainsAny(rest, " \n\t") {
		return "", false
	}
	return rest, true
}

// prefetchModels starts fetching the list when the user types /model.
func (a *App) prefetchModels(tab bool) tea.Cmd {
	v := a.input.Value()
	if !strings.HasPrefix(v, "/model") || a.agent.CachedModels() != nil {
		return nil
	}
	if _, ok := modelArg(v); ok && tab {
		a.models.tabPending = true
		if !a.models.failed {
			a.input.SetHints([]string{slash.FetchingModels})
		}
	}
	if a.models.fetching || a.models.failed {
		return nil
	}
	return a.fetchModels(false)
}

func (a *App) handleModels(msg modelsMsg) {
	a.models.fetching = false
	a.models.failed = msg.err != nil
	if msg.show {
		r := slash.ModelList(a.agent, msg.names, msg.err)
		kind := noticeOutput
		if r.Err {
			kind = noticeError
		}
		n := newNotice(kind, r.Output)
		if a.models.note != nil {
			*a.models.note = *n // fill in "fetching models…" where it stands
			a.models.note = nil
			a.chat.Changed()
		} else {
			a.chat.Add(n)
		}
		a.chat.Bottom()
	}
	if a.models.tabPending {
		a.models.tabPending = false
		if _, ok := modelArg(a.input.Value()); ok {
			if msg.err != nil {
				a.input.SetHints([]string{"could not list the models: " + safe.Text(msg.err.Error())})
			} else {
				a.input.Complete()
			}
		}
	}
}

// modelSwitched shows a /model switch in the banner and the status bar
// (the agent's chat spans name the new model themselves).
func (a *App) modelSwitched() {
	a.models.reportedFrom = a.turn + 1
	a.setProvider()
}

// reportedModel is the model the server reported, when it differs from
// p's and is not from before a switch.
func (a *App) reportedModel(p provider.Provider) string {
	if a.turn < a.models.reportedFrom {
		return ""
	}
	if r := a.agent.ReportedModel(); r != p.Model {
		return r
	}
	return ""
}

func providerText(p provider.Provider, reported string) string {
	s := safe.Text(p.Name) + " · " + safe.Text(p.Model)
	if reported != "" {
		s += " → " + safe.Text(reported)
	}
	return s
}

// setWelcomeProvider updates the banner when the model it names changed.
func (a *App) setWelcomeProvider(p provider.Provider, reported string) {
	if t := providerText(p, reported); t != a.welcome.provider {
		a.welcome.setProvider(t, true, "")
		a.chat.Changed()
	}
}
