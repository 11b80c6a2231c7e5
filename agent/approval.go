package agent

import (
	"errors"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/co-cli/co/hooks"
	"github.com/co-cli/co/message"
	"github.com/co-cli/co/tools"
)

// Approvals is the one place that decides whether a call may run without
// asking: the policy's Check first (deny always wins), then session grants,
// then yolo. The TUI, --plain, headless mode and the !cmd escape all go
// through it. Safe for concurrent use.
type Approvals struct {
	mu          sync.Mutex
	yolo        bool
	yoloAllowed bool
	grants      map[string]*grant
	maxUses     int
	ttl         time.Duration
	now         func() time.Time
	isolated    bool
	yes         bool
	// yolo is bounded like a grant: yoloMax uses within yoloTTL of being
	// turned on (invariant 8: no unbounded elevation).
	yoloMax     int
	yoloTTL     time.Duration
	yoloUses    int
	yoloExpires time.Time
	// unattended: a scheduled run (SetUnattended). No grant, yolo or
	// --yes applies; approve are the tools the schedule lets run.
	unattended bool
	approve    []string
}

type grant struct {
	label   string
	uses    int
	expires time.Time
}

// GrantInfo describes a live session grant.
type GrantInfo struct {
	Scope     string
	Label     string
	UsesLeft  int
	ExpiresIn time.Duration
}

// ApprovalOptions configures Approvals.
type ApprovalOptions struct {
	// GrantMaxUses is how many calls one session grant approves (default 20).
	GrantMaxUses int
	// GrantTTL is how long a session grant lasts (default 30 minutes).
	GrantTTL time.Duration
	// Isolated is true when shell commands run in a sandbox with full
	// isolation.
	Isolated bool
	// YoloUnsandboxed lets /yolo work without isolation.
	YoloUnsandboxed bool
	// Yolo starts the session with yolo on (auto_confirm).
	Yolo bool
	// YoloMaxUses is how many calls yolo approves before it turns itself
	// off (default 50).
	YoloMaxUses int
	// YoloTTL is how long yolo lasts once on (default 30 minutes).
	YoloTTL time.Duration
	// Now is the clock (tests); default time.Now.
	Now func() time.Time
}

// ErrYoloUnsandboxed is returned when yolo is asked for without isolation.
var ErrYoloUnsandboxed = errors.New("yolo is off while commands run unsandboxed; set yolo_unsandboxed (CO_CLI_YOLO_UNSANDBOXED=true) to allow it")

// ErrYoloUnattended is returned when yolo is asked for in a scheduled run.
var ErrYoloUnattended = errors.New("yolo never applies to a scheduled run: list the tools it may use without asking in the schedule's \"approve\" setting")

// NewApprovals makes the approval state of one session.
func NewApprovals(o ApprovalOptions) *Approvals {
	a := &Approvals{
		grants:   map[string]*grant{},
		maxUses:  o.GrantMaxUses,
		ttl:      o.GrantTTL,
		now:      o.Now,
		isolated: o.Isolated,
	}
	if a.maxUses <= 0 {
		a.maxUses = 20
	}
	if a.ttl <= 0 {
		a.ttl = 30 * time.Minute
	}
	if a.now == nil {
		a.now = time.Now
	}
	a.yoloMax, a.yoloTTL = o.YoloMaxUses, o.YoloTTL
	if a.yoloMax <= 0 {
		a.yoloMax = 50
	}
	if a.yoloTTL <= 0 {
		a.yoloTTL = 30 * time.Minute
	}
	a.yoloAllowed = o.Isolated || o.YoloUnsandboxed
	if o.Yolo && a.yoloAllowed {
		a.yoloOn()
	}
	return a
}

// Decide says whether a call with this check runs without asking. When
// decided is false the user must be asked. A call the policy denies is
// decided and never runs.
func (a *Approvals) Decide(c tools.Check) (decided, run bool, by message.Source) {
	return a.DecideCall(nil, c)
}

// DecideCall is Decide for a call of tool t (nil: unknown), which an
// unattended run needs: its approve list names tools, and drafts may run.
func (a *Approvals) DecideCall(t tools.Tool, c tools.Check) (decided, run bool, by message.Source) {
	return a.DecideHooked(t, c, "")
}

// DecideHooked is DecideCall with what the call's PreToolUse hooks decided
// (hooks.Outcome.Decision; "" none). A hook never widens the policy: deny
// blocks the call (after a policy deny, which wins); ask makes the user
// answer even where the policy's allow, a grant, yolo or --yes would have
// run it; allow skips the question only where /yolo could (never a policy
// deny, an always-ask call — a protected file, an outbound call after
// untrusted content, a memory save —, a NoYolo call, nor in a scheduled
// run).
func (a *Approvals) DecideHooked(t tools.Tool, c tools.Check, hook hooks.Decision) (decided, run bool, by message.Source) {
	switch {
	case c.Decision == tools.Deny:
		return true, false, message.ByPolicyDeny
	case hook == hooks.Deny:
		return true, false, message.ByHookDeny
	case hook == hooks.Ask:
		return false, false, ""
	case c.Decision == tools.Allow:
		return true, true, message.ByPolicy
	}
	if c.AlwaysAsk {
		// Also every outbound call after untrusted content (guard):
		// nothing but the user answers it, in a scheduled run either.
		return false, false, ""
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if hook == hooks.Allow && !c.NoYolo && !a.unattended && a.yoloAllowed {
		// Only what /yolo could skip: never outside the sandbox
		// without yolo_unsandboxed.
		return true, true, message.ByHook
	}
	if a.unattended {
		// Grants, yolo (auto_confirm) and --yes are a present user's:
		// they never apply to a run nobody watches.
		switch {
		case t == nil:
		case t.Name() == shellToolName && !a.yoloAllowed:
			// A shell command would run on the machine itself: the
			// approve list does not reach it without yolo_unsandboxed,
			// as --yes does not (a schedule that approves commands for
			// the Docker sandbox must not run them on the host the day
			// Docker is down).
		case slices.Contains(a.approve, t.Name()):
			return true, true, message.BySchedule
		case len(c.Untrusted) == 0 && isDrafter(t):
			return true, true, message.ByDraft
		}
		return false, false, ""
	}
	if g, ok := a.grants[c.Scope]; ok {
		if a.now().Before(g.expires) && g.uses > 0 {
			g.uses--
			if g.uses == 0 {
				delete(a.grants, c.Scope)
			}
			return true, true, message.BySessionGrant
		}
		delete(a.grants, c.Scope)
	}
	if a.yoloLive() && !c.NoYolo {
		a.yoloUses--
		if a.yoloUses == 0 {
			a.yolo = false
		}
		return true, true, message.ByYolo
	}
	if a.yes && a.yoloAllowed && !c.NoYolo {
		return true, true, message.ByYes
	}
	return false, false, ""
}

// shellToolName is the shell tool's name (tools/shell, which the agent
// does not import).
const shellToolName = "run_shell_command"

func isDrafter(t tools.Tool) bool {
	_, ok := t.(tools.Drafter)
	return ok
}

// SetUnattended makes these approvals a scheduled run's (issue 29): what
// the policy allows runs, and so do drafts (tools.Drafter) and the tools
// approve names (the schedule's "approve" setting); anything else that
// needs approval waits for the user. No session grant, yolo (auto_confirm,
// /yolo) or --yes applies, and a call that must always ask (a write to
// .git/, an outbound call after untrusted content: guard) waits even
// when approve names its tool. It lasts for the life of the Approvals.
func (a *Approvals) SetUnattended(approve []string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.unattended, a.approve = true, slices.Clone(approve)
	a.grants = map[string]*grant{}
	a.yolo, a.yes = false, false
}

// Unattended reports whether these are a scheduled run's approvals.
func (a *Approvals) Unattended() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.unattended
}

// SetYes turns on `co run --yes`: it approves exactly what /yolo would
// approve in the same isolation (never a denied call, an always-ask call,
// a call yolo may not approve, nor anything unsandboxed unless
// yolo_unsandboxed), recorded as its own decision source. It is not
// bounded like yolo: it lasts the one headless turn it was given for.
func (a *Approvals) SetYes(on bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.yes = on && !a.unattended
}

// Grant approves c's scope for the rest of the session, within the grant's
// use count and lifetime. Calls that must always ask get no grant.
func (a *Approvals) Grant(c tools.Check) {
	if c.AlwaysAsk || c.Decision != tools.Ask || c.Scope == "" {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	label := c.ScopeLabel
	if label == "" {
		label = c.Scope
	}
	a.grants[c.Scope] = &grant{label: label, uses: a.maxUses, expires: a.now().Add(a.ttl)}
}

// Grants lists the live grants, sorted by scope.
func (a *Approvals) Grants() []GrantInfo {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	var out []GrantInfo
	for s, g := range a.grants {
		if now.Before(g.expires) && g.uses > 0 {
			out = append(out, GrantInfo{Scope: s, Label: g.label, UsesLeft: g.uses, ExpiresIn: g.expires.Sub(now)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Scope < out[j].Scope })
	return out
}

// SetYolo turns session auto-approval of the ask class on or off. It can
// never approve a call the policy denies, nor one that must always ask.
func (a *Approvals) SetYolo(on bool) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	if on && a.unattended {
		return ErrYoloUnattended
	}
	if on && !a.yoloAllowed {
		return ErrYoloUnsandboxed
	}
	if on {
		a.yoloOn()
	} else {
		a.yolo = false
	}
	return nil
}

// yoloOn turns yolo on with a fresh budget of uses and time. a.mu is held.
func (a *Approvals) yoloOn() {
	a.yolo, a.yoloUses, a.yoloExpires = true, a.yoloMax, a.now().Add(a.yoloTTL)
}

// yoloLive reports whether yolo is on and within its limits, turning it
// off once they are spent. a.mu is held.
func (a *Approvals) yoloLive() bool {
	if a.yolo && (a.yoloUses <= 0 || !a.now().Before(a.yoloExpires)) {
		a.yolo = false
	}
	return a.yolo
}

// Yolo reports whether yolo is on (and not yet expired).
func (a *Approvals) Yolo() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.yoloLive()
}

// YoloLeft says what is left of yolo: the calls it may still approve and
// the time until it turns itself off; zero values when it is off.
func (a *Approvals) YoloLeft() (uses int, left time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.yoloLive() {
		return 0, 0
	}
	return a.yoloUses, a.yoloExpires.Sub(a.now())
}

// SetIsolated records the sandbox's isolation. A drop from isolated to not
// isolated clears every grant and turns yolo off (unless yolo is allowed
// unsandboxed), so the user consents again.
func (a *Approvals) SetIsolated(isolated, yoloUnsandboxed bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.isolated && !isolated {
		a.grants = map[string]*grant{}
		if !yoloUnsandboxed {
			a.yolo = false
		}
	}
	a.isolated = isolated
	a.yoloAllowed = isolated || yoloUnsandboxed
}

// Clear drops every grant and turns yolo off.
func (a *Approvals) Clear() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.grants = map[string]*grant{}
	a.yolo = false
}

// Way is one way to let a call that needs approval run with no person
// there (co run): every step in it together, nothing less.
type Way struct {
	// Yes: pass --yes (Approvals.SetYes).
	Yes bool
	// YoloUnsandboxed: set yolo_unsandboxed, so that --yes (and /yolo)
	// approve without a sandbox.
	YoloUnsandboxed bool
	// Docker: run shell commands in the Docker sandbox.
	Docker bool
	// Tool is the tool's own step (tools.Check.Unattended).
	Tool string
}

func (w Way) String() string {
	var steps []string
	if w.Tool != "" {
		steps = append(steps, w.Tool)
	}
	if w.Docker {
		steps = append(steps, `run commands in the Docker sandbox (sandbox_backend "docker" or "auto" with Docker running; co status says whether Docker and its image are ready)`)
	}
	if w.YoloUnsandboxed {
		steps = append(steps, "set yolo_unsandboxed to true in your user settings (or CO_CLI_YOLO_UNSANDBOXED=true)")
	}
	if w.Yes {
		steps = append(steps, "pass --yes")
	}
	return strings.Join(steps, ", and ")
}

// Ways are what would let a call with check c, which asked, run with
// nobody to answer, in this isolation and with --yes as it is now; none
// when only a person can answer it (it follows untrusted content, or it
// always asks and the tool offers no setting). Each is true of Decide:
// applied, the same call runs without asking.
func (a *Approvals) Ways(c tools.Check) []Way {
	if len(c.Untrusted) > 0 || c.Decision != tools.Ask {
		return nil
	}
	a.mu.Lock()
	isolated, yoloAllowed, yes := a.isolated, a.yoloAllowed, a.yes
	a.mu.Unlock()
	var ways []Way
	if c.Unattended != "" {
		ways = append(ways, Way{Tool: c.Unattended})
	}
	if c.SandboxAllows && !isolated {
		ways = append(ways, Way{Docker: true})
	}
	if !c.AlwaysAsk && !c.NoYolo {
		switch {
		case !yoloAllowed: // --yes named only when not given already
			ways = append(ways, Way{Yes: !yes, YoloUnsandboxed: true})
			if !c.SandboxAllows { // else the sandbox alone is enough
				ways = append(ways, Way{Yes: !yes, Docker: true})
			}
		case !yes:
			ways = append(ways, Way{Yes: true})
		}
	}
	return ways
}

// Hint says, in one line, how a call with check c that needs approval
// could run in co run (Ways), or why only a person can approve it.
func (a *Approvals) Hint(c tools.Check) string {
	if len(c.Untrusted) > 0 {
		return "it follows untrusted content, so only a person can approve it: --yes, /yolo, grants and \"approve\": \"auto\" never do; " +
			"run the same request in the chat (co, or co --plain) and answer it there"
	}
	ways := a.Ways(c)
	if len(ways) == 0 {
		return "only a person can approve this call (no setting or flag does): " +
			"run the same request in the chat (co, or co --plain) and answer it there"
	}
	parts := make([]string, len(ways))
	for i, w := range ways {
		parts[i] = w.String()
	}
	return "to let it run: " + strings.Join(parts, "; or ")
}
