package web

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"syscall"
	"time"
)

// BlockedError is a connection the address guard refused.
type BlockedError struct {
	Host string
	Addr netip.Addr
	Why  string // "loopback", "private", "link-local", "cloud metadata", ...
	// Private is true when web_allow_private would let it through.
	Private bool
}

func (e *BlockedError) Error() string {
	msg := fmt.Sprintf("%s resolves to %s, a %s address", e.Host, e.Addr, e.Why)
	if e.Host == e.Addr.String() {
		msg = fmt.Sprintf("%s is a %s address", e.Addr, e.Why)
	}
	if e.Private {
		return msg + "; web_fetch does not reach private or loopback addresses unless web_allow_private is set"
	}
	return msg + "; web_fetch never reaches link-local, cloud-metadata, unspecified or multicast addresses"
}

var (
	metadata = []netip.Addr{
		netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OpenStack, Oracle, ...
		netip.MustParseAddr("fd00:ec2::254"),   // AWS over IPv6
		netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
		netip.MustParseAddr("169.254.170.2"),   // AWS ECS task metadata
	}
	// never is what no setting lets through.
	never = []struct {
		p   netip.Prefix
		why string
	}{
		{netip.MustParsePrefix("0.0.0.0/8"), "unspecified"},
		{netip.MustParsePrefix("169.254.0.0/16"), "link-local"},
		{netip.MustParsePrefix("224.0.0.0/4"), "multicast"},
		{netip.MustParsePrefix("240.0.0.0/4"), "reserved"}, // includes 255.255.255.255
		{netip.MustParsePrefix("::/128"), "unspecified"},
		{netip.MustParsePrefix("fe80::/10"), "link-local"},
		{netip.MustParsePrefix("ff00::/8"), "multicast"},
		{netip.MustParsePrefix("::/96"), "IPv4-compatible"}, // deprecated; ::1 is checked before
		{netip.MustParsePrefix("100::/64"), "discard"},
	}
	// private is what web_allow_private lets through.
	private = []struct {
		p   netip.Prefix
		why string
	}{
		{netip.MustParsePrefix("127.0.0.0/8"), "loopback"},
		{netip.MustParsePrefix("::1/128"), "loopback"},
		{netip.MustParsePrefix("10.0.0.0/8"), "private"},
		{netip.MustParsePrefix("172.16.0.0/12"), "private"},
		{netip.MustParsePrefix("192.168.0.0/16"), "private"},
		{netip.MustParsePrefix("100.64.0.0/10"), "shared (carrier-grade NAT)"},
		{netip.MustParsePrefix("198.18.0.0/15"), "benchmarking"},
		{netip.MustParsePrefix("192.0.0.0/24"), "IETF protocol"},
		{netip.MustParsePrefix("fc00::/7"), "private (unique local)"},
		{netip.MustParsePrefix("fec0::/10"), "site-local"},
	}
	nat64   = netip.MustParsePrefix("64:ff9b::/96")
	nat64l  = netip.MustParsePrefix("64:ff9b:1::/48")
	sixto4  = netip.MustParsePrefix("2002::/16")
	teredo  = netip.MustParsePrefix("2001::/32")
	mapped4 = netip.MustParsePrefix("::ffff:0:0/96")
)

// guard decides which addresses web_fetch may connect to.
type guard struct {
	allowPrivate bool
	allowAddrs   map[netip.AddrPort]bool
}

// check returns nil when ip may be reached, else why not. IPv4 addresses
// embedded in IPv6 (mapped, NAT64, 6to4) are judged as IPv4; Teredo is
// refused.
func (g guard) check(host string, ip netip.Addr, port uint16) *BlockedError {
	if g.allowAddrs[netip.AddrPortFrom(ip, port)] || g.allowAddrs[netip.AddrPortFrom(ip.Unmap(), port)] {
		return nil
	}
	ip = ip.WithZone("")
	if mapped4.Contains(ip) {
		ip = ip.Unmap()
	}
	if ip.Is6() {
		b := ip.As16()
		switch {
		case nat64.Contains(ip):
			return g.check(host, netip.AddrFrom4([4]byte(b[12:16])), port)
		case nat64l.Contains(ip):
			return &BlockedError{Host: host, Addr: ip, Why: "NAT64 local-use"}
		case sixto4.Contains(ip):
			if e := g.check(host, netip.AddrFrom4([4]byte(b[2:6])), port); e != nil {
				e.Addr = ip
				return e
			}
		case teredo.Contains(ip):
			return &BlockedError{Host: host, Addr: ip, Why: "Teredo tunnel"}
		}
	}
	for _, m := range metadata {
		if ip == m {
			return &BlockedError{Host: host, Addr: ip, Why: "cloud metadata"}
		}
	}
	for _, n := range never {
		if n.p.Contains(ip) && !(n.p.Bits() == 96 && ip == netip.IPv6Loopback()) {
			return &BlockedError{Host: host, Addr: ip, Why: n.why}
		}
	}
	for _, n := range private {
		if n.p.Contains(ip) {
			if g.allowPrivate {
				return nil
			}
			return &BlockedError{Host: host, Addr: ip, Why: n.why, Private: true}
		}
	}
	return nil
}

// dialer connects only to addresses the guard allows. It resolves the
// name itself, checks every address, and dials the checked address (so a
// second DNS answer cannot differ: no rebinding); the net.Dialer's Control
// checks again the address the socket really connects to.
type dialer struct {
	g       guard
	d       *net.Dialer
	resolve func(ctx context.Context, host string) ([]netip.Addr, error)
}

func newDialer(g guard, timeout time.Duration, resolve func(ctx context.Context, host string) ([]netip.Addr, error)) *dialer {
	dl := &dialer{g: g, resolve: resolve}
	if dl.resolve == nil {
		dl.resolve = func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		}
	}
	dl.d = &net.Dialer{Timeout: timeout, Control: dl.control}
	return dl
}

// control runs just before connect(2) with the numeric address.
func (dl *dialer) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("web guard: unexpected address %q", address)
	}
	if e := dl.g.check(ap.Addr().String(), ap.Addr(), ap.Port()); e != nil {
		return e
	}
	return nil
}

func (dl *dialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(portStr, 10, 16)
	if err != nil {
		return nil, fmt.Errorf("bad port %q", portStr)
	}
	var ips []netip.Addr
	if ip, err := netip.ParseAddr(host); err == nil {
		ips = []netip.Addr{ip}
	} else if ips, err = dl.resolve(ctx, host); err != nil {
		return nil, err
	}
	var firstBlock *BlockedError
	var lastErr error
	for _, ip := range ips {
		if e := dl.g.check(host, ip, uint16(port)); e != nil {
			if firstBlock == nil {
				firstBlock = e
			}
			continue
		}
		c, err := dl.d.DialContext(ctx, network, netip.AddrPortFrom(ip, uint16(port)).String())
		if err == nil {
			return c, nil
		}
		lastErr = err
	}
	if lastErr != nil {
		return nil, lastErr
	}
	if firstBlock != nil {
		return nil, firstBlock
	}
	return nil, errors.New("no address found for " + host)
}
