package app

import (
	"context"
	"fmt"
	"os"

	"github.com/co-cli/co/extensions"
	"github.com/co-cli/co/tools"
	"github.com/co-cli/co/tools/files"
	"github.com/co-cli/co/tools/notes"
	"github.com/co-cli/co/tools/skills"
	"github.com/co-cli/co/tools/todo"
	"github.com/co-cli/co/tools/web"
)

// localTools are the workspace file, todo, notes and web tools of the
// run, and the families left out because they are not configured.
//
// Every family gets fresh values here, so per-run state (the todo
// list, the notes cache, the URLs web_fetch has seen) is never shared
// between runs. The todo list is found again with
// App.Todos by the chat's side panel.
func (a *App) localTools() ([]tools.Tool, []tools.Unconfigured, error) {
	st := a.Config.Settings
	ws, err := files.New(a.Workspace)
	if err != nil {
		return nil, nil, err
	}
	a.onClose(func() { _ = ws.Close() })
	// Writes to the instruction files always ask, context_files included.
	ws.SetInstructionFiles(st.ContextFiles)
	// Where the workspace holds the home folder or co's own folders.
	ws.SetPlaces(Places(a.Config))
	a.Files = ws

	var out []tools.Tool
	var unconfigured []tools.Unconfigured
	out = append(out, ws.Tools()...)
	out = append(out, todo.NewList().Tools()...)
	// read_skill only where a skills folder exists (a few stats: the
	// skills themselves are read in the background).
	if extensions.MayHaveSkills(a.extOpts) {
		out = append(out, skills.New(a.Extensions))
	}

	notesTools := []string{"search_notes", "list_notes", "read_note", "write_note"}
	switch fi, err := os.Stat(st.ObsidianVaultPath); {
	case st.ObsidianVaultPath == "":
		unconfigured = append(unconfigured, tools.Unconfigured{Family: "Obsidian notes", Tools: notesTools, Hint: notes.ConfigHint})
	case err != nil || !fi.IsDir():
		unconfigured = append(unconfigured, tools.Unconfigured{Family: "Obsidian notes", Tools: notesTools,
			Hint: fmt.Sprintf("obsidian_vault_path %s is not a folder that can be read; %s", st.ObsidianVaultPath, notes.ConfigHint)})
	default:
		vault := notes.New(st.ObsidianVaultPath)
		out = append(out, vault.Tools()...)
		if !a.opts.ReportOnly {
			// Read the vault while the user types: the first search is then
			// as fast as the later ones (tens of ms on 10,000 notes).
			ctx, cancel := context.WithCancel(context.Background())
			a.onClose(cancel)
			go func() { _ = vault.Warm(ctx) }()
		}
	}

	w := web.New(web.Options{
		BraveAPIKey:  st.BraveSearchAPIKey,
		BraveBaseURL: st.BraveSearchBaseURL,
		AllowPrivate: st.WebAllowPrivate,
	})
	out = append(out, w.Tools()...) // web_fetch needs no key
	if st.BraveSearchAPIKey == "" {
		unconfigured = append(unconfigured, tools.Unconfigured{Family: "Web search", Tools: []string{"web_search"}, Hint: web.ConfigHint})
	}
	return out, unconfigured, nil
}
