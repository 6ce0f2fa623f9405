package remote

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestClassify(t *testing.T) {
	tests := []struct {
		addr string
		want AddrClass
	}{
		{"8.8.8.8", ClassPublic},
		{"2606:4700::1111", ClassPublic},
		{"127.0.0.1", ClassLoopback},
		{"127.255.0.9", ClassLoopback},
		{"::1", ClassLoopback},
		{"0.0.0.0", ClassLoopback},
		{"0.1.2.3", ClassLoopback},
		{"::", ClassLoopback},
		{"::ffff:127.0.0.1", ClassLoopback},
		{"10.0.0.1", ClassPrivate},
		{"172.16.5.4", ClassPrivate},
		{"192.168.1.1", ClassPrivate},
		{"100.64.0.1", ClassPrivate},
		{"198.18.0.1", ClassPrivate},
		{"fd12:3456::1", ClassPrivate},
		{"fec0::1", ClassPrivate},
		{"::ffff:10.0.0.1", ClassPrivate},
		{"169.254.1.1", ClassLinkLocal},
		{"fe80::1", ClassLinkLocal},
		{"fe80::1%eth0", ClassLinkLocal},
		{"169.254.169.254", ClassMetadata},
		{"::ffff:169.254.169.254", ClassMetadata},
		{"fd00:ec2::254", ClassMetadata},
		{"169.254.170.2", ClassMetadata},
		{"100.100.100.200", ClassMetadata},
		{"64:ff9b::a9fe:a9fe", ClassMetadata}, // NAT64 of 169.254.169.254
		{"64:ff9b::7f00:1", ClassLoopback},    // NAT64 of 127.0.0.1
		{"64:ff9b::808:808", ClassPublic},     // NAT64 of 8.8.8.8
		{"2002:a00:1::1", ClassPrivate},       // 6to4 of 10.0.0.1
		{"224.0.0.1", ClassOther},
		{"255.255.255.255", ClassOther},
		{"240.0.0.1", ClassOther},
		{"ff02::1", ClassOther},
	}
	for _, tt := range tests {
		if got := Classify(netip.MustParseAddr(tt.addr)); got != tt.want {
			t.Errorf("Classify(%s) = %s, want %s", tt.addr, got, tt.want)
		}
	}
}

func TestCheckAddr(t *testing.T) {
	allow10 := Policy{}
	for _, e := range []string{"10.0.0.0/8", "169.254.169.254"} {
		if err := allow10.Permit(e); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		policy Policy
		addr   string
		ok     bool
	}{
		{"strict, public", Policy{}, "93.184.216.34", true},
		{"strict, loopback", Policy{}, "127.0.0.1", false},
		{"strict, private", Policy{}, "10.0.0.1", false},
		{"strict, link-local", Policy{}, "169.254.3.3", false},
		{"strict, metadata", Policy{}, "169.254.169.254", false},
		{"strict, mapped loopback", Policy{}, "::ffff:127.0.0.1", false},
		{"local, loopback", LocalPolicy(), "127.0.0.1", true},
		{"local, private", LocalPolicy(), "192.168.0.10", true},
		{"local, metadata", LocalPolicy(), "169.254.169.254", false},
		{"local, multicast", LocalPolicy(), "224.0.0.1", false},
		{"allowed range", allow10, "10.9.8.7", true},
		{"allowed metadata", allow10, "169.254.169.254", true},
		{"outside the allowed range", allow10, "192.168.0.1", false},
	}
	for _, tt := range tests {
		err := tt.policy.CheckAddr(netip.MustParseAddr(tt.addr))
		if (err == nil) != tt.ok {
			t.Errorf("%s: CheckAddr(%s) = %v, want allowed %v", tt.name, tt.addr, err, tt.ok)
		}
		var re *RefusedError
		if err != nil && !errors.As(err, &re) {
			t.Errorf("%s: error %T, want *RefusedError", tt.name, err)
		}
	}
}

func TestPermit(t *testing.T) {
	tests := []struct {
		entry  string
		prefix string // the range added, or ""
		host   string // the host added, or ""
		err    string // part of the error, or ""
	}{
		{"10.0.0.0/8", "10.0.0.0/8", "", ""},
		{"10.1.2.3/8", "10.0.0.0/8", "", ""},
		{"10.1.2.3", "10.1.2.3/32", "", ""},
		{"::1", "::1/128", "", ""},
		{"[fd00:ec2::254]", "fd00:ec2::254/128", "", ""},
		{"::ffff:10.0.0.1", "10.0.0.1/32", "", ""},
		{"MCP.Internal.", "", "mcp.internal", ""},
		{"", "", "", "empty fetch allowance"},
		{"10.0.0.0/33", "", "", "not an address range"},
		{"http://x", "", "", "is a URL"},
		{"a..b", "", "", "neither"},
		{"bad host!", "", "", "neither"},
	}
	for _, tt := range tests {
		var p Policy
		err := p.Permit(tt.entry)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("Permit(%q) = %v, want an error saying %q", tt.entry, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Permit(%q): %v", tt.entry, err)
			continue
		}
		if tt.prefix != "" && (len(p.Allow) != 1 || p.Allow[0].String() != tt.prefix) {
			t.Errorf("Permit(%q) allowed %v, want %s", tt.entry, p.Allow, tt.prefix)
		}
		if tt.host != "" && !slices.Equal(p.AllowHosts, []string{tt.host}) {
			t.Errorf("Permit(%q) allowed hosts %v, want %s", tt.entry, p.AllowHosts, tt.host)
		}
	}
}

func FuzzPermit(f *testing.F) {
	for _, s := range []string{"10.0.0.0/8", "::1", "[::1]", "host.example", "", "1.2.3.4/99", "a/b", "fe80::1%eth0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		var p Policy
		if err := p.Permit(s); err != nil {
			if len(p.Allow)+len(p.AllowHosts) != 0 {
				t.Fatal("a refused entry was added")
			}
			return
		}
		if len(p.Allow)+len(p.AllowHosts) != 1 {
			t.Fatalf("Permit(%q) added %d allowances", s, len(p.Allow)+len(p.AllowHosts))
		}
		for _, pf := range p.Allow {
			if !pf.IsValid() || pf != pf.Masked() {
				t.Fatalf("Permit(%q) added %v", s, pf)
			}
		}
	})
}

func FuzzHeaderChecks(f *testing.F) {
	for _, s := range []string{"X-Api-Key", "Bad Name", "a\r\nb", "tab\there", "é"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		// A name that passes is a value that passes, and neither lets a line break through.
		if validHeaderName(s) && !validHeaderValue(s) {
			t.Fatalf("%q is a valid name but not a valid value", s)
		}
		if validHeaderValue(s) && strings.ContainsAny(s, "\r\n\x00") {
			t.Fatalf("%q with a line break or NUL passed", s)
		}
	})
}

// ownAddrs are this machine's interface addresses other than loopback, as the policy sees them.
func ownAddrs(t *testing.T) []netip.Addr {
	t.Helper()
	ifs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skipf("skipped: cannot list this machine's addresses: %v", err)
	}
	var out []netip.Addr
	for _, ia := range ifs {
		n, ok := ia.(*net.IPNet)
		if !ok {
			continue
		}
		a, ok := netip.AddrFromSlice(n.IP)
		if ok && !a.Unmap().IsLoopback() {
			out = append(out, a.Unmap())
		}
	}
	if len(out) == 0 {
		t.Skip("skipped: this machine has no interface address but loopback, so there is none to refuse")
	}
	return out
}

// TestOwnAddressesRefused: a server that may not reach loopback may not reach its own
// interfaces' addresses either (services bound to all interfaces answer there), whatever
// their class, unless an allowance names that very address; local mode reaches them.
func TestOwnAddressesRefused(t *testing.T) {
	for _, a := range ownAddrs(t) {
		exact := Policy{}
		if err := exact.Permit(a.String()); err != nil {
			t.Fatal(err)
		}
		wide := Policy{Allow: []netip.Prefix{netip.PrefixFrom(a, 8).Masked()}}
		for _, tt := range []struct {
			name   string
			policy Policy
			ok     bool
		}{
			{"strict", Policy{}, false},
			{"private allowed, loopback not", Policy{AllowPrivate: true}, false},
			{"a range that contains it", wide, false},
			{"named exactly", exact, true},
			{"local", LocalPolicy(), true},
		} {
			err := tt.policy.CheckAddr(a)
			if (err == nil) != tt.ok {
				t.Errorf("%s: CheckAddr(%s) = %v, want allowed %v", tt.name, a, err, tt.ok)
			}
			var re *RefusedError
			if err != nil && (!errors.As(err, &re) || re.Class != ClassOwn || !strings.Contains(err.Error(), "this machine")) {
				t.Errorf("%s: CheckAddr(%s) = %v, want a refusal naming this machine's address", tt.name, a, err)
			}
		}
	}
}

// TestOwnPublicAddressRefused: a public address assigned to this machine is its own too.
func TestOwnPublicAddressRefused(t *testing.T) {
	own := netip.MustParseAddr("93.184.216.34")
	old := interfaceAddrs
	t.Cleanup(func() { interfaceAddrs = old })
	interfaceAddrs = func() ([]net.Addr, error) {
		return []net.Addr{&net.IPNet{IP: net.IP(own.AsSlice()), Mask: net.CIDRMask(24, 32)}}, nil
	}
	if err := (Policy{}).CheckAddr(own); err == nil {
		t.Errorf("the strict policy lets the server reach its own public address %s", own)
	}
	if err := (Policy{}).CheckAddr(netip.MustParseAddr("::ffff:93.184.216.34")); err == nil {
		t.Errorf("the strict policy lets the server reach its own public address written IPv4-mapped")
	}
	if err := (Policy{}).CheckAddr(netip.MustParseAddr("93.184.216.35")); err != nil {
		t.Errorf("a neighbour on the same network is not this machine: %v", err)
	}
	for _, a := range []string{"0.0.0.0", "::", "0.1.2.3"} {
		if err := (Policy{}).CheckAddr(netip.MustParseAddr(a)); err == nil {
			t.Errorf("the strict policy lets the server reach %s, which reaches the local host", a)
		}
	}
	interfaceAddrs = func() ([]net.Addr, error) { return nil, errors.New("netlink: permission denied") }
	if err := (Policy{}).CheckAddr(netip.MustParseAddr("93.184.216.35")); err == nil || !strings.Contains(err.Error(), "this machine's addresses") {
		t.Errorf("with the machine's addresses unknown: %v, want a refusal that says why", err)
	}
}

// TestDialOwnAddressRefused: the check runs on the address dialled, so a name that resolves to
// this machine (or a DNS answer that changes between lookups) cannot reach it.
func TestDialOwnAddressRefused(t *testing.T) {
	addrs := ownAddrs(t)
	var ln net.Listener
	for _, a := range addrs {
		if a.Is6() && a.IsLinkLocalUnicast() {
			continue // needs a zone to dial
		}
		l, err := net.Listen("tcp", netip.AddrPortFrom(a, 0).String())
		if err == nil {
			ln = l
			break
		}
	}
	if ln == nil {
		t.Skipf("skipped: cannot listen on any of this machine's addresses %v", addrs)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	target := ln.Addr().String()
	var refusals []error
	dial := Policy{AllowPrivate: true}.dialer(5*time.Second, func(err error) { refusals = append(refusals, err) })
	c, err := dial(context.Background(), "tcp", target)
	if err == nil {
		c.Close()
		t.Fatalf("dialled this machine's own address %s under a policy without loopback", target)
	}
	var re *RefusedError
	if !errors.As(err, &re) || re.Class != ClassOwn || len(refusals) != 1 {
		t.Errorf("dial %s: %v (%d refusals reported), want a refusal of this machine's address", target, err, len(refusals))
	}
	c, err = LocalPolicy().dialer(5*time.Second, func(error) {})(context.Background(), "tcp", target)
	if err != nil {
		t.Fatalf("local mode could not dial its own address %s: %v", target, err)
	}
	c.Close()
}
