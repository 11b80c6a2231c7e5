package cli

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// directUse is why internal/cli may name a package of co's directly, past
// internal/app, and which of its names: nil names allows any (a front end,
// a leaf, plain data). Everything else a command needs — a store opened,
// a tool, the sandbox, telemetry's pipeline, an MCP manager, a provider
// probed, an account, the settings loaded — it takes from internal/app.
type directUse struct {
	why   string
	names []string
}

// directUses is the rule docs/ARCHITECTURE.md ("How commands reach the
// program") states. A package under one of the prefixes lib/ and ui/ is
// allowed whole.
var directUses = map[string]directUse{
	"internal/app": {why: "the container: every command's way to the program"},
	"lib/":         {why: "leaves (lib/safe sanitises what reaches the terminal, lib/media tells a file's kind)"},
	"ui/":          {why: "the front ends are what the commands run: cli hands them the app's parts as plain Options"},
	"message":      {why: "the conversation's plain data: the commands render messages and read piped text and attachments"},
	"schedule": {why: "co schedule's own subject: a SPEC as typed, parsed, and the system scheduler's entry for it; " +
		"it imports nothing of ours and holds no state of a run"},
	"agent": {why: "the events and records a command renders, and the wording it shares with the turn loop; the agent itself is app.App.Agent",
		names: []string{"Agent", "DeniedNote", "DenyReason", "Event", "NoToolsLine", "Outcome", "Risk", "SourceList",
			"SummaryIntro", "ToolCallFinished", "TurnFailed", "WaitingCall"}},
	"agent/provider": {why: "the provider and its settings as values (its endpoint, its error kinds, its wording); the probes are app.App's (OllamaStatus, Reachable)",
		names: []string{"DescribeError", "Endpoint", "ErrNoProvider", "ModelSetting", "OllamaNumCtx", "OllamaRoot", "Provider",
			"ProviderSettings", "Unreachable"}},
	"config": {why: "the settings as values (Loaded, a problem's Error, a layer), and the user's settings file, which co config, " +
		"co schedule add, co mcp add and /setup read and edit as their subject; the settings a run sees are loaded by app.LoadSettings",
		names: []string{"Change", "CheckValue", "EditFile", "Error", "Fields", "LayerEnv", "LayerProject", "LayerUser", "LoadFile",
			"Loaded", "MCPServer", "MCPServersChange", "ParseNotify", "Schedule", "SchedulesChange", "Settings"}},
	"hooks": {why: "the hooks in force as values, which /hooks, co hooks and co config list; the set is made by app.NewHooks or app.App.Hooks",
		names: []string{"DefaultTimeout", "FailOpen", "Listed", "Set"}},
	"deliver": {why: "a scheduled run's delivery record, which co schedule shows",
		names: []string{"Outcome", "Run"}},
	"extensions": {why: "the instruction files, skills and custom commands app.App.Extensions read, listed by /help and co status",
		names: []string{"Set"}},
	"memory": {why: "memories as values, the store's type and its errors; the store is opened by app.OpenMemory or app.App.Memory",
		names: []string{"ErrNotFound", "Memory", "Store", "Terms"}},
	"sessions": {why: "saved sessions as values (kinds, states, entries, an export's document, which co sessions import reads with ParseExport) " +
		"and the store's type; the store is opened by app.OpenSessions or app.App.Sessions",
		names: []string{"Approved", "Chat", "Denied", "Entry", "ErrNotFound", "Info", "Kind", "OutcomeRunning", "ParseExport", "Pending",
			"PendingState", "Run", "Scheduled", "Store", "Waiting"}},
	"telemetry": {why: "the span store's viewers (co tail, co traces, co logs) are front ends that live beside the store they read; " +
		"the store is opened by app.OpenSpans, the pipeline set up by app.New",
		names: []string{"ErrNoStore", "ErrNoTrace", "NewDashboard", "Store", "Tail", "TailOptions", "WriteTraceHTML"}},
	"tools": {why: "a tool as /tools and co status describe it (its class, how it is approved), and the shell policy's decisions; the registry is app.App.Tools",
		names: []string{"Allow", "Checker", "Decision", "Deny", "OwnState", "ReadOnly", "Registry", "Tool", "Unconfigured"}},
	"tools/files": {why: "the chat's @ list reads app.App.Files, a file tools' workspace, at most MaxMentionFiles",
		names: []string{"MaxMentionFiles", "Workspace"}},
	"tools/google": {why: "co google's subject: where the credentials come from (no network), the token's scopes, the sign-in's options; " +
		"the account and the sign-in are app.GoogleAccount and app.GoogleAuthorize",
		names: []string{"AuthOptions", "Detect", "Explicit", "ReadToken", "Saved", "ScopeCalendarEvents", "ScopeCalendarReadOnly", "ScopeDriveReadOnly",
			"ScopeGmailCompose", "ScopeGmailReadOnly", "Scopes", "Unconfigured"}},
	"tools/mcp": {why: "the states of app.App.MCP's servers, which the commands show, and a login's options",
		names: []string{"AwaitingConsent", "Connected", "Disabled", "Failed", "LoginOptions", "Manager", "NeedsLogin", "NotStarted",
			"Starting", "State", "Status"}},
	"tools/shell": {why: "co config lists the commands the shell policy allows built in",
		names: []string{"BuiltinSafeCommands"}},
	"undo": {why: "co undo's subject: what a rewind of a saved session did, as values, and its modes; the service is opened by app.OpenUndo",
		names: []string{"Both", "ConversationOnly", "FilesOnly", "Mode", "Result", "Service"}},
	"journal": {why: "what a turn sent, as values: co undo lists each entry and asks before taking it back through undo.Service",
		names: []string{"Entry"}},
	"tools/todo": {why: "the chat's side panel shows the list app.App.Todos finds, as the todo tools render it",
		names: []string{"List", "Render"}},
}

// stillDirect are direct uses in files other changes were editing when the
// rule was written, by file ("pkg.Name", or "pkg.*" for all of pkg's): each
// builds or loads what internal/app should give, and moves there next.
var stillDirect = map[string][]string{
	"config.go":   {"config.Load", "config.LoadOptions", "config.ResolvePaths"}, // co config's own loads (user file only, no project)
	"setup.go":    {"config.Load", "config.LoadOptions"},                        // /setup reloads after saving
	"models.go":   {"agent/provider.ResolveProvider", "agent/provider.ProbeHTTP", "agent/provider.ListModels"},
	"mcp.go":      {"tools.NewRegistry"}, // co mcp builds its manager on a registry of its own
	"schedrun.go": {"deliver.*", "tools/google.NewAccount", "tools/slack.*"},
}

// TestCommandsReachTheProgramThroughApp keeps internal/cli's direct uses of
// co's packages to directUses: a command that opens a store, builds a tool
// or account, or loads the settings itself fails here, naming the use.
func TestCommandsReachTheProgramThroughApp(t *testing.T) {
	const mod = "github.com/co-cli/co/"
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	seen := map[string]bool{} // "file pkg.Name" and rule keys met
	checked := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		af, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		local := map[string]string{} // name in the file → package, relative to the module
		for _, im := range af.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			rel, ok := strings.CutPrefix(p, mod)
			if !ok {
				continue
			}
			if ruleFor(rel) == "" && !stillAllows(f, rel, "*") {
				t.Errorf("%s imports %s, which is not on internal/cli's list of direct uses: take it from internal/app, or add it to directUses with why", f, rel)
			}
			n := path.Base(rel)
			if im.Name != nil {
				n = im.Name.Name
			}
			local[n] = rel
		}
		ast.Inspect(af, func(n ast.Node) bool {
			se, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			id, ok := se.X.(*ast.Ident)
			if !ok {
				return true
			}
			rel, ok := local[id.Name]
			if !ok {
				return true
			}
			checked++
			name := se.Sel.Name
			if stillAllows(f, rel, name) {
				seen[f+" "+rel+"."+name], seen[f+" "+rel+".*"] = true, true
				return true
			}
			key := ruleFor(rel)
			if key == "" {
				return true // said above, once per import
			}
			seen[key] = true
			if u := directUses[key]; u.names != nil && !slices.Contains(u.names, name) {
				t.Errorf("%s uses %s.%s: internal/cli may use %s only for what directUses lists (%s); take this from internal/app",
					fset.Position(se.Pos()), rel, name, rel, u.why)
			}
			return true
		})
	}
	if checked < 100 {
		t.Fatalf("only %d uses of co's packages read; the files moved?", checked)
	}
	for key := range directUses {
		if !seen[key] && !strings.HasSuffix(key, "/") {
			t.Errorf("directUses allows %s, which internal/cli no longer uses: take it off the list", key)
		}
	}
	for f, uses := range stillDirect {
		for _, u := range uses {
			if !seen[f+" "+u] {
				t.Errorf("stillDirect lists %s in %s, which no longer uses it: take it off the list", u, f)
			}
		}
	}
}

// ruleFor is the directUses key that covers package rel, or "".
func ruleFor(rel string) string {
	if _, ok := directUses[rel]; ok {
		return rel
	}
	for key := range directUses {
		if strings.HasSuffix(key, "/") && strings.HasPrefix(rel, key) {
			return key
		}
	}
	return ""
}

// stillAllows reports whether stillDirect lets file use rel.name ("*": any
// of rel's names).
func stillAllows(file, rel, name string) bool {
	uses := stillDirect[file]
	return slices.Contains(uses, rel+".*") || (name != "*" && slices.Contains(uses, rel+"."+name))
}
