package cli

import (
	"strings"
	"testing"

	"github.com/co-cli/co/tools/mcp"
)

// /mcp and co mcp list say which servers the user trusts, for approval
// ("approve auto") and for content ("trusted content").
func TestMCPStatusShowsTrust(t *testing.T) {
	got := mcpStatusText(mcp.Status{Name: "mine", State: mcp.Disabled, Target: "my-server", Auto: true, TrustedContent: true}, false)
	if !strings.HasPrefix(got, "mine (local, approve auto, trusted content): ") {
		t.Errorf("status: %q", got)
	}
	if got := mcpStatusText(mcp.Status{Name: "other", State: mcp.Disabled, Target: "x"}, false); strings.Contains(got, "trusted") {
		t.Errorf("status: %q", got)
	}
}
