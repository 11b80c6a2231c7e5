package agent

import "strings"

// contextWindows are the context sizes, in tokens, of model families co
// knows; the longest matching prefix wins.
var contextWindows = []struct {
	prefix string
	tokens int
}{
	{"gemini-1.5-pro", 2_097_152},
	{"gemini-", 1_048_576},
	{"gpt-4.1", 1_047_576},
	{"gpt-4o", 128_000},
	{"gpt-5", 400_000},
	{"o3", 200_000},
	{"o4", 200_000},
	{"claude", 200_000},
	{"llama3.1", 131_072},
	{"llama3.2", 131_072},
	{"llama3", 8_192},
	{"qwen2.5", 32_768},
	{"qwen3", 40_960},
	{"mistral", 32_768},
	{"glm-4", 131_072},
}

// ContextWindow returns the known context size of model in tokens, or 0.
func ContextWindow(model string) int {
	m := strings.ToLower(model)
	if i := strings.LastIndexByte(m, '/'); i >= 0 {
		m = m[i+1:]
	}
	best, size := 0, 0
	for _, c := range contextWindows {
		if strings.HasPrefix(m, c.prefix) && len(c.prefix) > best {
			best, size = len(c.prefix), c.tokens
		}
	}
	return size
}
