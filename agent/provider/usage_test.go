package provider

import (
	"testing"

	"github.com/co-cli/co/message"
)

// The usage fields each provider reports, as co counts them
// (docs/SOURCES.md#llm-prices-and-cached-tokens).
func TestUsageFields(t *testing.T) {
	for name, tc := range map[string]struct {
		raw  string
		want message.Usage
	}{
		"openai": {`{"choices":[],"usage":{"prompt_tokens":1000,"completion_tokens":300,"total_tokens":1300,` +
			`"prompt_tokens_details":{"cached_tokens":600,"audio_tokens":0},"completion_tokens_details":{"reasoning_tokens":200}}}`,
			message.Usage{InputTokens: 1000, OutputTokens: 300, CachedTokens: 600, ReasoningTokens: 200}},
		"deepseek": {`{"choices":[],"usage":{"prompt_tokens":1000,"completion_tokens":50,"total_tokens":1050,` +
			`"prompt_cache_hit_tokens":800,"prompt_cache_miss_tokens":200}}`,
			message.Usage{InputTokens: 1000, OutputTokens: 50, CachedTokens: 800}},
		"no details": {`{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5}}`,
			message.Usage{InputTokens: 10, OutputTokens: 5}},
	} {
		c, err := decodeChunk([]byte(tc.raw))
		if err != nil || c.Usage == nil || *c.Usage != tc.want {
			t.Errorf("%s: usage %+v, %v; want %+v", name, c.Usage, err, tc.want)
		}
	}
}
