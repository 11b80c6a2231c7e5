package lexers

import (
	"embed"
	"io/fs"
	"sync"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/internal/gzfs"
)

// co patch: the definitions are embedded gzip-compressed (0.4 MB instead
// of 2.1 MB) and read through gzfs under their plain names.
//
//go:embed embedded
var embeddedGz embed.FS

var embedded = gzfs.FS{Base: embeddedGz}

// GlobalLexerRegistry is the global LexerRegistry of Lexers.
//
// co patch: the embedded XML lexers are parsed on first use of this
// package's functions, not at package init, where they cost every start
// of the program about 4 ms and 2.3 MB of garbage. Until then the
// registry holds only the lexers written in Go; code that uses
// GlobalLexerRegistry directly should call Names, Get or Match first.
var GlobalLexerRegistry = chroma.NewLexerRegistry()

var loadOnce sync.Once

// initDone is set once every lexer written in Go has registered itself
// (package init functions run after the package's variables).
var initDone bool

func init() { initDone = true }

// load registers the embedded lexers. They go in before the lexers
// registered so far, which are registered again after them, so a later
// registration still wins as it did when the embedded ones came first.
func load() {
	loadOnce.Do(func() {
		paths, err := fs.Glob(embedded, "embedded/*.xml")
		if err != nil {
			panic(err)
		}
		earlier := GlobalLexerRegistry.Lexers
		*GlobalLexerRegistry = *chroma.NewLexerRegistry()
		for _, path := range paths {
			GlobalLexerRegistry.Register(chroma.MustNewXMLLexer(embedded, path))
		}
		for _, lexer := range earlier {
			GlobalLexerRegistry.Register(lexer)
		}
		setDNSAnalyser()
		setMySQLAnalyser()
		setZedAnalyser()
	})
}

// Names of all lexers, optionally including aliases.
func Names(withAliases bool) []string {
	load()
	return GlobalLexerRegistry.Names(withAliases)
}

// Get a Lexer by name, alias or file extension.
//
// Note that this if there isn't an exact match on name or alias, this will
// call Match(), so it is not efficient.
func Get(name string) chroma.Lexer {
	load()
	return GlobalLexerRegistry.Get(name)
}

// MatchMimeType attempts to find a lexer for the given MIME type.
func MatchMimeType(mimeType string) chroma.Lexer {
	load()
	return GlobalLexerRegistry.MatchMimeType(mimeType)
}

// Match returns the first lexer matching filename.
//
// Note that this iterates over all file patterns in all lexers, so it's not
// particularly efficient.
func Match(filename string) chroma.Lexer {
	load()
	return GlobalLexerRegistry.Match(filename)
}

// Register a Lexer with the global registry.
func Register(lexer chroma.Lexer) chroma.Lexer {
	if initDone {
		load()
	}
	return GlobalLexerRegistry.Register(lexer)
}

// Analyse text content and return the "best" lexer..
func Analyse(text string) chroma.Lexer {
	load()
	return GlobalLexerRegistry.Analyse(text)
}

// PlaintextRules is used for the fallback lexer as well as the explicit
// plaintext lexer.
func PlaintextRules() chroma.Rules {
	return chroma.Rules{
		"root": []chroma.Rule{
			{`.+`, chroma.Text, nil},
			{`\n`, chroma.Text, nil},
		},
	}
}

// Fallback lexer if no other is found.
var Fallback chroma.Lexer = chroma.MustNewLexer(&chroma.Config{
	Name:      "fallback",
	Filenames: []string{"*"},
	Priority:  -1,
}, PlaintextRules)
