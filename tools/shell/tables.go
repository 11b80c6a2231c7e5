package shell

import (
	"strings"
)

// builtins fills the lookup tables. They are built once per Policy and
// never change.
func (p *Policy) builtins() {
	p.safe = map[string]safeProg{}
	for _, name := range strings.Fields(`ls cat head tail wc grep egrep fgrep echo pwd cd true false : sleep
		which type stat du df basename dirname realpath readlink cut tr nl paste join fold column expand
		unexpand rev tac seq comm cmp diff od hexdump strings md5sum sha1sum sha256sum sha512sum b2sum
		cksum jq uname whoami id groups nproc uptime free ps arch`) {
		p.safe[name] = safeProg{}
	}
	p.safe["find"] = safeProg{options: true, findLike: true, check: checkFind}
	p.safe["git"] = safeProg{options: true, check: p.checkGit}
	p.safe["sed"] = safeProg{options: true, check: checkSed}
	p.safe["uniq"] = safeProg{options: true, check: checkUniq}
	p.safe["test"] = safeProg{options: true, check: checkTest}
	p.safe["["] = safeProg{options: true, check: checkTest}
	p.safe["printf"] = safeProg{check: checkPrintf}
	p.safe["sort"] = safeProg{options: true, check: getopt{
		prog: "sort", short: map[byte]string{'o': "writes to a file"}, argShort: "ktSTo",
		long: []dangerOpt{{"output", "writes to a file"}, {"compress-program", "runs a program"}},
	}.checker()}
	p.safe["rg"] = safeProg{options: true, check: getopt{
		prog: "rg", short: map[byte]string{'z': "runs decompression programs"},
		long: []dangerOpt{{"pre", "runs a program on every file"}, {"search-zip", "runs decompression programs"}, {"hostname-bin", "runs a program"}},
	}.checker()}
	dateOpts := getopt{
		prog: "date", short: map[byte]string{'s': "sets the system clock"}, argShort: "dfrI",
		long: []dangerOpt{{"set", "sets the system clock"}},
	}
	p.safe["date"] = safeProg{options: true, check: func(args []arg, _ bool) string {
		if why := dateOpts.check(args); why != "" {
			return why
		}
		for i := 0; i < len(args); i++ {
			switch v := args[i].val; {
			case v == "-d" || v == "-f" || v == "-r" || v == "--date" || v == "--file" || v == "--reference":
				i++
			case v == "--":
			case len(v) > 1 && v[0] == '-', strings.HasPrefix(v, "+"):
			default:
				return "date " + v + " sets the system clock"
			}
		}
		return ""
	}}
	p.safe["tree"] = safeProg{options: true, check: getopt{
		prog: "tree", short: map[byte]string{'o': "writes to a file", 'R': "writes files"},
		long: []dangerOpt{{"output", "writes to a file"}},
	}.checker()}
	p.safe["file"] = safeProg{options: true, check: getopt{
		prog: "file", short: map[byte]string{'C': "writes a compiled magic file", 'z': "runs decompression programs", 'Z': "runs decompression programs"},
		long: []dangerOpt{{"compile", "writes a compiled magic file"}, {"uncompress", "runs decompression programs"}, {"uncompress-noreport", "runs decompression programs"}},
	}.checker()}

	p.gitRead = map[string]func([]arg) string{}
	for _, sub := range strings.Fields(`status log diff show rev-parse ls-files ls-tree blame annotate describe
		shortlog rev-list cat-file show-ref for-each-ref merge-base name-rev count-objects diff-tree
		diff-files diff-index grep whatchanged cherry show-branch check-ignore check-attr var version`) {
		p.gitRead[sub] = nil
	}
	p.gitRead["branch"] = gitListing("branch", "arlvi",
		[]string{"all", "remotes", "verbose", "color", "no-color", "column", "no-column", "show-current", "ignore-case", "abbrev", "no-abbrev", "omit-empty"},
		[]string{"sort", "format", "contains", "no-contains", "merged", "no-merged", "points-at"})
	p.gitRead["tag"] = gitListing("tag", "lni",
		[]string{"color", "no-color", "column", "no-column", "ignore-case", "omit-empty"},
		[]string{"sort", "format", "contains", "no-contains", "merged", "no-merged", "points-at"})
	p.gitRead["remote"] = gitRemote
	p.gitRead["config"] = gitConfig
	p.gitRead["stash"] = gitSub("stash", "list", "show")
	p.gitRead["worktree"] = gitSub("worktree", "list")
	p.gitRead["reflog"] = gitReflog

	generic := wrapper{}
	p.wrappers = map[string]wrapper{
		"sudo":     {argShort: "CDghpRrtTUu", argLong: []string{"close-from", "chdir", "group", "host", "prompt", "chroot", "role", "type", "command-timeout", "other-user", "user"}, assigns: true, shell: "si"},
		"doas":     {argShort: "uC", shell: "s"},
		"env":      {argShort: "uCP", argLong: []string{"unset", "chdir"}, cShort: 'S', cLong: []string{"split-string"}, assigns: true},
		"xargs":    {argShort: "adEILnPs", argLong: []string{"arg-file", "delimiter", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"}},
		"timeout":  {argShort: "sk", argLong: []string{"signal", "kill-after"}, skip: 1},
		"nice":     {argShort: "n", argLong: []string{"adjustment"}},
		"exec":     {argShort: "a"},
		"time":     {argShort: "fo", argLong: []string{"format", "output"}},
		"stdbuf":   {argShort: "ioe", argLong: []string{"input", "output", "error"}},
		"ionice":   {argShort: "cnpPu", argLong: []string{"class", "classdata", "pid", "pgid", "uid"}},
		"chroot":   {argLong: []string{"userspec", "groups"}, skip: 1},
		"script":   {argShort: "TBIOEm", cShort: 'c', cLong: []string{"command"}, noCmd: true, permute: true},
		"su":       {argShort: "gGsw", argLong: []string{"group", "supp-group", "shell", "whitelist-environment"}, cShort: 'c', cLong: []string{"command", "session-command"}, noCmd: true, permute: true},
		"runuser":  {argShort: "ugGsw", argLong: []string{"user", "group", "supp-group", "shell", "whitelist-environment"}, cShort: 'c', cLong: []string{"command", "session-command"}},
		"pkexec":   {argLong: []string{"user"}},
		"flock":    {argShort: "wE", argLong: []string{"timeout", "conflict-exit-code"}, cShort: 'c', cLong: []string{"command"}, skip: 1},
		"sg":       {cShort: 'c', skip: 1},
		"strace":   {argShort: "abeEIoOpPsSuUX"},
		"ltrace":   {argShort: "aAeEnoOpPsSuxX"},
		"chrt":     {skip: 1},
		"taskset":  {skip: 1},
		"faketime": {skip: 1},
		"watch":    {kind: wrapJoin, argShort: "nq", argLong: []string{"interval", "equexit"}},
		"parallel": {kind: wrapParallel, argShort: "jPSadEILnNs"},
		"busybox":  {kind: wrapApplet},
		"eval":     {kind: wrapJoin},
		"trap":     {kind: wrapTrap},
		"source":   {kind: wrapNone},
		".":        {kind: wrapNone},
	}
	for _, name := range strings.Fields(`nohup command builtin setsid unbuffer caffeinate fakeroot catchsegv nocache
		torsocks proxychains proxychains4 unshare nsenter firejail systemd-run valgrind numactl cpulimit`) {
		p.wrappers[name] = generic
	}
	for name := range shells {
		p.wrappers[name] = wrapper{kind: wrapShell}
	}

	p.never = map[string]string{}
	for _, name := range strings.Fields(`awk gawk mawk nawk lua luajit deno Rscript osascript tclsh wish pwsh powershell irb`) {
		p.never[name] = "runs code"
	}
	for _, name := range strings.Fields(`alias unalias hash enable set shopt unset read mapfile readarray getopts
		export declare typeset local readonly let bind`) {
		p.never[name] = "changes the shell's state"
	}
	p.never["fc"] = "runs commands from history"

	p.denyHint = map[string]bool{"rm": true, "find": true, "dd": true, "chmod": true, "chown": true, "chgrp": true, "tee": true, "mke2fs": true, "eval": true}
	for name := range shells {
		p.denyHint[name] = true
	}

	p.subcmd = map[string][]string{
		"git":     gitGlobalArgOpts,
		"npm":     {"--prefix", "-w", "--workspace"},
		"yarn":    {"--cwd"},
		"pnpm":    {"-C", "--dir", "--filter", "-F"},
		"bun":     {"--cwd"},
		"cargo":   {"-C", "--config", "-Z"},
		"go":      {"-C"},
		"docker":  {"-H", "--host", "--context", "-c", "--config", "-l", "--log-level"},
		"podman":  {"--connection", "-c", "--url"},
		"kubectl": {"-n", "--namespace", "--context", "--cluster", "--user", "--kubeconfig", "-s", "--server"},
		"helm":    {"-n", "--namespace", "--kube-context"},
		"make":    {"-C", "-f", "--file", "--makefile", "-I", "-o", "-W", "--directory", "--include-dir", "--old-file", "--what-if"},
		"gh":      {"-R", "--repo"},
		"npx":     {"-p", "--package"},
	}
	for _, name := range strings.Fields(`pip pip3 uv poetry apt apt-get brew dotnet terraform systemctl gradle gradlew mvn mvnw`) {
		p.subcmd[name] = nil
	}
}
