package tui

import (
	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/styles"
)

// Code block colours, one chroma style per theme, registered under names
// of their own. glamour registers the style of a StyleConfig's Chroma
// under one fixed name, once per process, so the first theme to render
// code would colour it for every later theme (a switch from the
// provisional light theme to dark would keep light's near-black text).
// Every colour has a contrast of at least 4.5:1 against the backgrounds
// its theme is for (TestCodeContrast).
const (
	codeStyleLight = "co-light"
	codeStyleDark  = "co-dark"
)

func init() {
	styles.Register(chroma.MustNewStyle(codeStyleLight, chroma.StyleEntries{
		chroma.Text:                "#1F2328",
		chroma.Error:               "#82071E",
		chroma.Comment:             "italic #57606A",
		chroma.CommentPreproc:      "#953800",
		chroma.Keyword:             "#CF222E",
		chroma.KeywordType:         "#953800",
		chroma.Operator:            "#0550AE",
		chroma.Punctuation:         "#1F2328",
		chroma.Name:                "#1F2328",
		chroma.NameBuiltin:         "#6639BA",
		chroma.NameTag:             "#116329",
		chroma.NameAttribute:       "#0550AE",
		chroma.NameClass:           "#953800",
		chroma.NameConstant:        "#0550AE",
		chroma.NameDecorator:       "#6639BA",
		chroma.NameException:       "#82071E",
		chroma.NameFunction:        "#6639BA",
		chroma.Literal:             "#0550AE",
		chroma.LiteralNumber:       "#0550AE",
		chroma.LiteralString:       "#0A3069",
		chroma.LiteralStringEscape: "#116329",
		chroma.GenericDeleted:      "#82071E",
		chroma.GenericEmph:         "italic",
		chroma.GenericInserted:     "#116329",
		chroma.GenericStrong:       "bold",
		chroma.GenericSubheading:   "#57606A",
		chroma.GenericHeading:      "bold #0550AE",
	}))
	styles.Register(chroma.MustNewStyle(codeStyleDark, chroma.StyleEntries{
		chroma.Text:                "#D8D8D8",
		chroma.Error:               "#F7768E",
		chroma.Comment:             "italic #9AA0B0",
		chroma.CommentPreproc:      "#FF9E64",
		chroma.Keyword:             "#BB9AF7",
		chroma.KeywordType:         "#7DCFFF",
		chroma.Operator:            "#89DDFF",
		chroma.Punctuation:         "#C0CAF5",
		chroma.Name:                "#D8D8D8",
		chroma.NameBuiltin:         "#E0AF68",
		chroma.NameTag:             "#F7768E",
		chroma.NameAttribute:       "#7DCFFF",
		chroma.NameClass:           "#E0AF68",
		chroma.NameConstant:        "#FF9E64",
		chroma.NameDecorator:       "#E0AF68",
		chroma.NameException:       "#F7768E",
		chroma.NameFunction:        "#7AA2F7",
		chroma.Literal:             "#FF9E64",
		chroma.LiteralNumber:       "#FF9E64",
		chroma.LiteralString:       "#9ECE6A",
		chroma.LiteralStringEscape: "#89DDFF",
		chroma.GenericDeleted:      "#F7768E",
		chroma.GenericEmph:         "italic",
		chroma.GenericInserted:     "#9ECE6A",
		chroma.GenericStrong:       "bold",
		chroma.GenericSubheading:   "#9AA0B0",
		chroma.GenericHeading:      "bold #7AA2F7",
	}))
}
