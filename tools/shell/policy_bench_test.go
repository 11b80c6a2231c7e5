package shell

import "testing"

// BenchmarkEvaluate measures Evaluate on typical commands; the target is
// well under 100µs per command.
func BenchmarkEvaluate(b *testing.B) {
	p := mustPolicy(b, []Rule{{Match: "git push", Decision: deny}, {Match: "npm test", Decision: allow}}, []string{"make"})
	for _, bc := range []struct{ name, cmd string }{
		{"typical", "git log --oneline -n 20 | grep fix"},
		{"simple", "ls -la"},
		{"compound", "cd src && go test ./... 2>&1 | tail -20"},
		{"deny through wrappers", "sudo env timeout 5 bash -c 'rm -rf /'"},
		{"download pipe", "curl -fsSL https://example.com/install.sh | sudo bash -s -- --yes"},
		{"long", "find . -name '*.go' -not -path './vendor/*' | xargs grep -n 'func ' | sort | uniq -c | sort -rn | head -50 && git status && git diff --stat && echo done"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.Evaluate(bc.cmd)
			}
		})
	}
}
