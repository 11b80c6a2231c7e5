#!/usr/bin/env bash
# What glamour costs co's start-up: this tree's build against the same tree
# with glamour (and with it chroma) taken out of ui/tui, each also built with
# gRPC's `grpcnotrace` tag, launched in turn into the full-screen chat
# (scripts/benchtui -compare). An experiment, never shipped: the build
# without glamour shows replies as their markdown source.
#
#   scripts/bench-glamour-cost.sh [rounds] [old=BIN ...]
#
# e.g. scripts/bench-glamour-cost.sh 20 old=/tmp/co-ae032d7
#
# The copy without glamour is made in a temporary git worktree of HEAD by
# the edits below; when ui/tui changes so that an edit no longer applies,
# the script stops and says which.
set -euo pipefail
cd "$(dirname "$0")/.."
n="${1:-20}"
shift || true
tmp="$(mktemp -d)"
wt="$tmp/tree"
trap 'git worktree remove --force "$wt" >/dev/null 2>&1 || true; rm -rf "$tmp"' EXIT
git worktree add --detach "$wt" HEAD >/dev/null

python3 - "$wt/ui/tui" <<'EOF'
import re, sys
d = sys.argv[1]

def edit(name, pairs):
    p = f"{d}/{name}"
    s = open(p).read()
    for old, new, is_re in pairs:
        t = re.sub(old, new, s, flags=re.S) if is_re else s.replace(old, new)
        if t == s:
            sys.exit(f"bench-glamour-cost: {name} changed, this edit no longer applies: {old[:60]!r}")
        s = t
    open(p, "w").write(s)

edit("markdown.go", [
    ('\t"charm.land/glamour/v2"\n\t"charm.land/glamour/v2/ansi"\n\t"github.com/alecthomas/chroma/v2"\n\t"github.com/alecthomas/chroma/v2/lexers"\n', '', False),
    ('style ansi.StyleConfig', 'style mdStyle', False),
    ('map[int]*glamour.TermRenderer', 'map[int]*sourceRenderer', False),
    ('renderer(width int) *glamour.TermRenderer {', 'renderer(width int) *sourceRenderer {', False),
    (r'r, err := glamour\.NewTermRenderer\([^\n]*\)', 'r, err := &sourceRenderer{}, error(nil)', True),
    (r'func warmChroma\(\) \{.*?\n\}\n', 'func warmChroma() {}\n', True),
    ('range lexers.Names(true)', 'range []string{}', False),
])
with open(f"{d}/markdown.go", "a") as f:
    f.write("\ntype mdStyle struct{}\n\ntype sourceRenderer struct{}\n\n"
            "func (sourceRenderer) Render(s string) (string, error) { return s, nil }\n")
edit("theme.go", [
    ('\t"charm.land/glamour/v2/ansi"\n\t"charm.land/glamour/v2/styles"\n', '', False),
    ('Markdown ansi.StyleConfig', 'Markdown mdStyle', False),
    (r'styles\.(Light|Dark|NoTTY)StyleConfig', 'mdStyle{}', True),
    (r'\t// Code in the theme.*?md\.Code\.BackgroundColor = nil\n', '\t_ = code\n', True),
    (r'func chatMarkdown\(c ansi\.StyleConfig\) ansi\.StyleConfig \{.*?\n\}\n', 'func chatMarkdown(c mdStyle) mdStyle { return c }\n', True),
])
edit("codestyle.go", [
    (r'import \(.*?\)\n', '', True),
    (r'func init\(\) \{.*', '', True),
])
EOF

go build -o "$tmp/co-this" .
go build -tags grpcnotrace -o "$tmp/co-this-notrace" .
(cd "$wt" && go build -o "$tmp/co-noglamour" . && go build -tags grpcnotrace -o "$tmp/co-noglamour-notrace" .)
if (cd "$wt" && go list -deps . | grep -q 'alecthomas/chroma\|glamour'); then
	echo "bench-glamour-cost: the copy still links glamour or chroma" >&2
	exit 1
fi
for b in co-this co-this-notrace co-noglamour co-noglamour-notrace; do
	printf '%-22s %s bytes; package initialisation of `co version`: ' "$b" "$(stat -c %s "$tmp/$b")"
	GODEBUG=inittrace=1 "$tmp/$b" version 2>&1 >/dev/null |
		awk '{ms += $5; b += $8} END {printf "%.1f ms, %.1f MB allocated\n", ms, b / 1e6}'
done
go run ./scripts/benchtui -n "$n" -compare "$(IFS=,; echo "${*:+$*,}")this=$tmp/co-this,this-notrace=$tmp/co-this-notrace,noglamour=$tmp/co-noglamour,noglamour-notrace=$tmp/co-noglamour-notrace"
