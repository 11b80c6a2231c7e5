// Command llmtest serves scripted OpenAI chat-completions replies, for
// end-to-end tests and for trying co without a model.
//
//	llmtest [--addr 127.0.0.1:0] [--script FILE] [--rules] [--echo] [--quiet]
//	        [--profile NAME] [--api-key KEY] [--ctx-size N] [--no-jinja]
//
// The first line on stdout is LLMTEST_URL=<base url>, the URL to give co:
//
//	OPENAI_BASE_URL=<base url> LLM_PROVIDER=openai OPENAI_MODEL=test co
//
// --profile makes the server imitate a provider (see llmtest.Profile):
// gemini, deepseek, vllm, openai, ollama or llamacpp. With gemini the base URL ends
// in /v1beta/openai and requests need "Authorization: Bearer KEY": the
// --api-key if given, otherwise any key. Each profile serves its own model
// ids (e.g. gemini-3.8-flash, deepseek-v4-flash, qwen3:8b), not "test".
// With llamacpp, --ctx-size is llama-server's -c (4096 by default) and
// --no-jinja makes it refuse any request with tools (HTTP 500 "tools param
// requires --jinja flag"), as llama-server started with --no-jinja does.
//
// It serves until SIGINT or SIGTERM and then exits 0. A line per request
// goes to stderr unless --quiet is given.
//
// The script file is a JSON array of replies (llmtest.Reply), for example
//
//	[
//	  {"text": "Hello!", "chunk_size": 2, "chunk_delay": "20ms"},
//	  {"tool_calls": [{"name": "run_shell_command", "args": {"cmd": "ls"}, "split": 3}]},
//	  {"status": 429, "header": {"Retry-After": "1"}}
//	]
//
// Durations are Go duration strings; tool-call args are a JSON string
// holding the arguments text or any other JSON value. A tool call names one
// of co's tools with its arguments as the tool's schema has them (co
// /tools lists the tools): run_shell_command takes "cmd" (and "timeout"),
// read_file "path". Without --rules the
// replies answer requests in order. With --rules they are rules: a request
// is answered by the first reply, in file order, that is unused or has
// "reusable": true and whose "match" is a substring (case-sensitive) of the
// last user message; an empty or missing "match" matches every message. A
// reply answers once unless reusable. A tool result does not change the
// last user message, so two replies with the same match answer a question
// and then its tool result.
//
// A request that nothing answers gets --echo's "You said: <last user
// message>" or, without --echo, a 500 error.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/co-cli/co/agent/llmtest"
)

func main() {
	err := run(os.Args[1:], os.Stdout, os.Stderr)
	if errors.Is(err, flag.ErrHelp) {
		// -h or --help: the usage was printed, as asked; not a failure.
		return
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "llmtest:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("llmtest", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:0", "address to listen on")
	script := fs.String("script", "", "JSON file with an array of replies")
	rules := fs.Bool("rules", false, "choose replies by their \"match\" against the last user message instead of in order")
	echo := fs.Bool("echo", false, "answer requests nothing else answers with \"You said: <last user message>\"")
	quiet := fs.Bool("quiet", false, "do not log requests to stderr")
	profile := fs.String("profile", "", "imitate a provider: gemini, deepseek, vllm, openai, ollama or llamacpp")
	apiKey := fs.String("api-key", "", "API key the gemini profile requires as a Bearer token (default: any)")
	ctxSize := fs.Int("ctx-size", 0, "the llamacpp profile's context window, llama-server's -c (default 4096)")
	noJinja := fs.Bool("no-jinja", false, "the llamacpp profile refuses requests with tools, as llama-server --no-jinja does")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments: %q", fs.Args())
	}
	prof, err := llmtest.ParseProfile(*profile)
	if err != nil {
		return err
	}
	if (*ctxSize != 0 || *noJinja) && prof != llmtest.ProfileLlamaCpp {
		return fmt.Errorf("--ctx-size and --no-jinja are for --profile llamacpp")
	}
	if *ctxSize < 0 {
		return fmt.Errorf("--ctx-size %d: want a number of tokens above 0", *ctxSize)
	}

	var replies []llmtest.Reply
	if *script != "" {
		b, err := os.ReadFile(*script)
		if err != nil {
			return err
		}
		if err := json.Unmarshal(b, &replies); err != nil {
			return fmt.Errorf("%s: %w", *script, err)
		}
	}

	srv, err := llmtest.NewServerAt(*addr)
	if err != nil {
		return err
	}
	defer srv.Close()
	if !*quiet {
		srv.SetLog(stderr)
	}
	srv.SetProfile(prof)
	srv.SetAPIKey(*apiKey)
	srv.SetLlamaContext(*ctxSize)
	srv.SetLlamaNoJinja(*noJinja)
	if *rules {
		srv.Rules(replies...)
	} else {
		srv.Script(replies...)
	}
	if *echo {
		srv.SetDefault(llmtest.Reply{Echo: true})
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if _, err := fmt.Fprintf(stdout, "LLMTEST_URL=%s\n", srv.URL); err != nil {
		return err
	}
	<-ctx.Done()
	return nil
}
