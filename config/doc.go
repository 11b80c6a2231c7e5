// Package config owns co's settings: the table of every setting (JSON key,
// environment variable, default, one-line description, allowed values), the
// typed Settings value, where the settings files live (XDG paths), loading
// with provenance, validation, masking secrets for display, and saving the
// user file.
//
// # Layers
//
// Load merges four layers, later wins, shallow per key: a key set in a later
// layer replaces the earlier value entirely (an environment
// shell_safe_commands list replaces the file's; lists are never
// concatenated, except project shell_policy rules, below):
//
//  1. defaults (the table in fields.go);
//  2. the user file, $XDG_CONFIG_HOME/co-cli/settings.json or
//     ~/.config/co-cli/settings.json;
//  3. the project file, ./.co-cli/settings.json in the working directory
//     only (no walk up to parent directories);
//  4. environment variables (LLM_PROVIDER, CO_CLI_THEME, ...).
//
// For every key Loaded records which layer the effective value came from
// (a Source: default, a file path, or an environment variable).
//
// # What a project file may set
//
// A project file arrives with a repository someone else wrote, so it may
// set only the settings on an allow list (projectAllowed in fields.go, each
// with why it is harmless there; Field.UserOnly is false for them): how co
// looks and how the model samples, retries and keeps its history. Every
// other setting is user-only — keys and tokens, endpoints and which provider
// and model receive the conversation, paths to private data, anything that
// approves calls or weakens the sandbox, every limit — and a project file's
// value for it is ignored: Load leaves the lower layer's value and source in
// effect, records the value in Loaded.Ignored, and warns with the key, the
// file, why, and the user file or variable to set it in instead. A setting
// added to the table is user-only until it is put on the allow list. Of the
// allowed settings, shell_policy keeps only ask and deny rules, added after
// the user's (allow rules are dropped with a warning), and mcp_servers are
// marked Project: they start only with the user's consent, "approve": "auto"
// is dropped, and a name the user already uses keeps the user's server.
//
// # Files
//
// A settings file is a JSON object whose keys are the setting keys. A key
// whose value is null counts as not set in that file (the predecessor wrote
// null for unset optional values). An empty file counts as {}. An unknown key
// is a warning, with a "did you mean" suggestion, never an error, so a file
// shared with a newer or older co still loads. Everything else that is wrong
// (malformed JSON, a value of the wrong type, a value out of range, a top level
// that is not an object) is an *Error that names the file (with line and
// column for syntax errors), the key, what was expected and what was found. A
// leading "~/" in a path setting (obsidian_vault_path,
// google_credentials_path) is expanded to the home directory.
//
// # Environment variables
//
// An environment variable that is set but empty counts as not set, for every
// kind of setting. Values are trimmed of surrounding white space. Booleans
// accept true/false, 1/0, yes/no, on/off (any case). Lists of strings accept
// either a JSON array (["git status","ls"]) or a comma-separated list
// (ls,cat,git status); "[]" sets an empty list. shell_policy takes a JSON
// array of {"match","decision","reason"} objects.
//
// # Saving
//
// Save writes only the values that differ from the defaults, so a user file
// does not pin today's defaults and later releases can improve them. It
// writes atomically: a temporary file in the same directory, fsync, rename,
// mode 0600, the directory created with mode 0700; a crash leaves the old
// file or the new one, never a partial one. Save writes what it is given:
// pass settings read with LoadFile from the user file, not the merged
// effective settings, or values from the project file and the environment
// (API keys included) end up copied into the user file.
//
// EditFile is the other way to write the user file, and the one `co config
// set`/`unset` and the chat's first-run setup use: it changes the keys it is
// given, checked as Load checks them, and keeps the rest of the file byte
// for byte (order, formatting, keys it does not know).
//
// The package imports no other package of co, starts no goroutines and
// touches no network; Load reads at most two small files.
package config
