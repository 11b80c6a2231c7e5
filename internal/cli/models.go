package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/co-cli/co/agent/provider"
	"github.com/co-cli/co/internal/app"
	"github.com/co-cli/co/lib/safe"
	"github.com/co-cli/co/ui/present"
)

func newModelsCmd(s env) *cobra.Command {
	return &cobra.Command{
		Use:   "models",
		Short: "List the current provider's chat models; * marks the configured one",
		Long: `co models asks the current provider for the models it can chat with
(GET {base}/models for Gemini and OpenAI-compatible servers, /api/tags for
Ollama) and prints them one per line, the configured one marked with *.
Models that cannot chat (embeddings, speech, images) are left out.`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(*cobra.Command, []string) error {
			l, err := loadConfig(s)
			if err != nil {
				return err
			}
			ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
			defer cancel()
			ps := app.ProviderSettings(l)
			var probe func(context.Context, string) bool
			if app.NeedsProbe(ps) {
				probe = provider.ProbeHTTP
			}
			p, note, err := provider.ResolveProvider(ctx, ps, probe)
			if err != nil {
				return err
			}
			if note != "" {
				fmt.Fprintf(s.Err, "co: %s\n", safe.Text(note))
			}
			models, err := provider.ListModels(ctx, p, nil)
			if err != nil {
				return errors.New(strings.TrimSuffix(provider.DescribeError(p, err), "."))
			}
			if len(models) == 0 {
				fmt.Fprintf(s.Err, "co: %s at %s lists no chat models.\n", p.Name, p.BaseURL)
				return nil
			}
			want := strings.TrimPrefix(p.Model, "models/")
			found := false
			for _, m := range models {
				mark := "  "
				if m == want {
					mark, found = "* ", true
				}
				fmt.Fprintf(s.Out, "%s%s\n", mark, present.Line(safe.Text(m)))
			}
			if !found && want != "" {
				fmt.Fprintf(s.Err, "co: %s\n", safe.Text(missingNote(p, want)))
			}
			return nil
		},
	}
}

// missingNote explains a configured model the list lacks.
func missingNote(p provider.Provider, model string) string {
	if strings.HasSuffix(model, "-latest") {
		// Google's -latest aliases (co's default, gemini-flash-latest)
		// follow its current model of a family.
		return fmt.Sprintf("* %s (configured) is not in the list: it is an alias %s resolves to one of its current models.", model, p.Name)
	}
	return fmt.Sprintf("%s (configured) is not in the list, so chats will fail; to use a listed model, %s.", model, provider.ModelSetting(p))
}
