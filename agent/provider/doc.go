// Package provider is co's provider layer: it speaks to the LLM servers
// behind the stream interface (Stream, Chunk), so that the agent's turn loop
// knows requests and replies, not wires.
//
// It resolves which provider a run uses (ResolveProvider), encodes the
// chat-completions request body itself (EncodeChatRequestCached, with a
// cache of the finished turns) and sends it through go-openai's client by
// way of an HTTP transport (bodySeam), decodes OpenAI-compatible streams
// chunk by chunk (StartOpenAI) and Ollama's native NDJSON (Ollama), and
// turns the providers' errors into one plain sentence for the user
// (DescribeError, DescribeStreamError, QuotaError, AsContextExceeded). It
// stands on package message and imports nothing of the agent.
//
// Where each provider's behaviour was read (documentation, bug reports,
// recorded answers of real servers) is kept in one place, a table per
// provider in docs/providers.md; comments here say what co does and point
// there.
package provider
