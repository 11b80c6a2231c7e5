package styles

import (
	"embed"
	"sort"
	"sync"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/internal/gzfs"
)

// co patch: the styles are embedded gzip-compressed and read through gzfs
// under their plain names.
//
//go:embed *.xml.gz
var embeddedGz embed.FS

var embedded = gzfs.FS{Base: embeddedGz}

// Registry of Styles.
//
// co patch: the embedded styles are parsed when first needed (Names, or
// Get of a style not registered), not at package init, where they cost
// every start of the program about 5 ms and 1.6 MB of garbage. A program
// that registers its own style and only uses that one (glamour) never
// parses them. Code that reads Registry directly sees only the styles
// registered so far until then.
var Registry = map[string]*chroma.Style{}

var (
	loadOnce sync.Once
	mu       sync.Mutex // orders this package's own reads and writes of Registry
)

// load parses the embedded styles; mu is held.
func load() {
	loadOnce.Do(func() {
		files, err := embedded.ReadDir(".")
		if err != nil {
			panic(err)
		}
		for _, file := range files {
			if file.IsDir() {
				continue
			}
			r, err := embedded.Open(file.Name())
			if err != nil {
				panic(err)
			}
			style, err := chroma.NewXMLStyle(r)
			if err != nil {
				panic(err)
			}
			_ = r.Close()
			// A style registered before the first use wins, as it
			// did when registration always came after init.
			if _, ok := Registry[style.Name]; !ok {
				Registry[style.Name] = style
			}
		}
		if Fallback == nil {
			Fallback = Registry["swapoff"]
		}
	})
}

// Fallback style. Reassign to change the default fallback style.
// (co patch: nil until the registry is first used.)
var Fallback *chroma.Style

// Register a chroma.Style.
func Register(style *chroma.Style) *chroma.Style {
	mu.Lock()
	defer mu.Unlock()
	Registry[style.Name] = style
	return style
}

// Names of all available styles.
func Names() []string {
	mu.Lock()
	defer mu.Unlock()
	load()
	out := []string{}
	for name := range Registry {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}

// Get named style, or Fallback.
func Get(name string) *chroma.Style {
	mu.Lock()
	defer mu.Unlock()
	if style, ok := Registry[name]; ok {
		return style
	}
	load()
	if style, ok := Registry[name]; ok {
		return style
	}
	return Fallback
}
