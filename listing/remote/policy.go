package remote

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"slices"
	"strings"
	"syscall"
	"time"
)

// Policy decides which addresses a fetch may connect to. It is checked on the address of every
// connection as it is dialled (net.Dialer.Control), after DNS resolution and for every redirect,
// so that neither a redirect nor a name that resolves to an inner address gets around it.
//
// The zero Policy is the strict one a server with an auth mode uses: public addresses only.
// LocalPolicy is what a person fetching from their own machine uses.
type Policy struct {
	// AllowLoopback lets fetches reach loopback (127.0.0.0/8, ::1), the unspecified address
	// (0.0.0.0, ::) and this machine's own interface addresses, which all reach the local host.
	AllowLoopback bool
	// AllowPrivate lets fetches reach private (10/8, 172.16/12, 192.168/16, 100.64/10,
	// fc00::/7, …) and link-local addresses. Cloud metadata addresses stay refused.
	AllowPrivate bool
	// Allow lists address ranges reachable whatever their class, cloud metadata included.
	Allow []netip.Prefix
	// AllowHosts lists host names (as written in the URL, case-insensitive) whose addresses
	// are all reachable. A name is trusted as a whole: whatever it resolves to is dialled.
	AllowHosts []string
}

// LocalPolicy is the policy of local mode: loopback and private networks are reachable, cloud
// metadata addresses are not (they serve no MCP, and are never what a user means).
func LocalPolicy() Policy { return Policy{AllowLoopback: true, AllowPrivate: true} }

// Permit adds one allowance, written as a --fetch-allow value: an address range
// ("10.0.0.0/8"), an address ("10.1.2.3", "::1"), or a host name ("mcp.internal").
func (p *Policy) Permit(entry string) error {
	s := strings.TrimSpace(entry)
	if s == "" {
		return fmt.Errorf("empty fetch allowance: give an address range (10.0.0.0/8), an address or a host name")
	}
	if pf, err := netip.ParsePrefix(s); err == nil {
		p.Allow = append(p.Allow, pf.Masked())
		return nil
	}
	if a, err := netip.ParseAddr(strings.Trim(s, "[]")); err == nil {
		a = a.Unmap()
		p.Allow = append(p.Allow, netip.PrefixFrom(a, a.BitLen()))
		return nil
	}
	if strings.Contains(s, "://") {
		return fmt.Errorf("fetch allowance %q is a URL; give its host name or address (mcp.internal, 10.1.2.3)", entry)
	}
	if strings.Contains(s, "/") {
		return fmt.Errorf("fetch allowance %q is not an address range; write it as 10.0.0.0/8 or fd00::/8", entry)
	}
	if !validHostName(s) {
		return fmt.Errorf("fetch allowance %q is neither an address, an address range nor a host name", entry)
	}
	p.AllowHosts = append(p.AllowHosts, strings.ToLower(strings.TrimSuffix(s, ".")))
	return nil
}

func validHostName(s string) bool {
	if len(s) > 253 {
		return false
	}
	for _, label := range strings.Split(strings.TrimSuffix(s, "."), ".") {
		if label == "" || len(label) > 63 {
			return false
		}
		for _, r := range label {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
				return false
			}
		}
	}
	return true
}

// AddrClass is the kind of network an address belongs to, as the policy sees it.
type AddrClass string

// The address classes.
const (
	ClassPublic    AddrClass = "public"
	ClassLoopback  AddrClass = "loopback"
	ClassPrivate   AddrClass = "private"
	ClassLinkLocal AddrClass = "link-local"
	ClassMetadata  AddrClass = "cloud metadata"
	ClassOther     AddrClass = "multicast, broadcast or reserved"
	ClassOwn       AddrClass = "this machine's own"
)

// interfaceAddrs lists this machine's addresses (a variable for tests).
var interfaceAddrs = net.InterfaceAddrs

// isOwn reports whether a is assigned to one of this machine's interfaces. The list is read
// on every check: addresses come and go (DHCP, containers), and fetches are rare.
func isOwn(a netip.Addr) (bool, error) {
	ifs, err := interfaceAddrs()
	if err != nil {
		return false, err
	}
	for _, ia := range ifs {
		var ip net.IP
		switch v := ia.(type) {
		case *net.IPNet:
			ip = v.IP
		case *net.IPAddr:
			ip = v.IP
		}
		if o, ok := netip.AddrFromSlice(ip); ok && o.Unmap() == a {
			return true, nil
		}
	}
	return false, nil
}

// metadataAddrs are the instance metadata services of cloud providers: reaching one from a
// server leaks its credentials, the classic server-side request forgery.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("169.254.169.254"), // AWS, GCP, Azure, OpenStack, …
	netip.MustParseAddr("169.254.170.2"),   // AWS ECS task metadata
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
	netip.MustParseAddr("fd00:ec2::254"),   // AWS over IPv6
}

var (
	sharedNAT   = netip.MustParsePrefix("100.64.0.0/10")  // carrier-grade NAT
	ietf        = netip.MustParsePrefix("192.0.0.0/24")   // IETF protocol assignments
	benchmark   = netip.MustParsePrefix("198.18.0.0/15")  // network benchmarking
	reserved    = netip.MustParsePrefix("240.0.0.0/4")    // includes 255.255.255.255
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")      // 0.0.0.0 reaches the local host
	siteLocal   = netip.MustParsePrefix("fec0::/10")      // deprecated, still routed inside sites
	nat64       = netip.MustParsePrefix("64:ff9b::/96")   // embeds an IPv4 address
	nat64Local  = netip.MustParsePrefix("64:ff9b:1::/48") // local-use NAT64
	sixToFour   = netip.MustParsePrefix("2002::/16")      // embeds an IPv4 address
)

// Classify returns the class of an address. IPv4 addresses carried inside IPv6 (mapped,
// NAT64, 6to4) are classified by the IPv4 address they reach.
func Classify(a netip.Addr) AddrClass {
	a = a.Unmap().WithZone("")
	if a.Is6() {
		b := a.As16()
		switch {
		case nat64.Contains(a), nat64Local.Contains(a):
			if c := Classify(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})); c != ClassPublic {
				return c
			}
		case sixToFour.Contains(a):
			if c := Classify(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]})); c != ClassPublic {
				return c
			}
		}
	}
	for _, m := range metadataAddrs {
		if a == m {
			return ClassMetadata
		}
	}
	switch {
	case a.IsLoopback(), a.IsUnspecified(), thisNetwork.Contains(a):
		return ClassLoopback
	case a.IsLinkLocalUnicast():
		return ClassLinkLocal
	case a.IsPrivate(), sharedNAT.Contains(a), ietf.Contains(a), benchmark.Contains(a), siteLocal.Contains(a):
		return ClassPrivate
	case a.IsMulticast(), reserved.Contains(a), !a.IsGlobalUnicast():
		return ClassOther
	}
	return ClassPublic
}

// RefusedError is a connection the policy refused before it was made.
type RefusedError struct {
	Addr  netip.Addr
	Class AddrClass
}

func (e *RefusedError) Error() string {
	if e.Class == ClassOwn {
		return fmt.Sprintf("refused to connect to %s, an address of this machine, which the fetch policy does not allow "+
			"(services listening on all interfaces answer there); --fetch-allow %s would allow it", e.Addr, e.Addr)
	}
	return fmt.Sprintf("refused to connect to %s, a %s address, which the fetch policy does not allow", e.Addr, e.Class)
}

// CheckAddr returns a *RefusedError if the policy forbids connecting to a. A policy that
// refuses loopback also refuses this machine's own interface addresses, whatever their class:
// a service bound to all interfaces (the workbench itself, a database, an admin port) answers
// on them as on loopback. Only an allowance of that very address lets one through.
func (p Policy) CheckAddr(a netip.Addr) error {
	a = a.Unmap().WithZone("")
	if !p.AllowLoopback && !a.IsLoopback() && !a.IsUnspecified() {
		own, err := isOwn(a)
		if err != nil {
			// Fail closed: without the list, any address might be this machine's.
			return fmt.Errorf("fetch policy: cannot list this machine's addresses to keep fetches off them: %w", err)
		}
		if own && !slices.Contains(p.Allow, netip.PrefixFrom(a, a.BitLen())) {
			return &RefusedError{Addr: a, Class: ClassOwn}
		}
	}
	for _, pf := range p.Allow {
		if pf.Contains(a) {
			return nil
		}
	}
	c := Classify(a)
	switch {
	case c == ClassPublic,
		c == ClassLoopback && p.AllowLoopback,
		(c == ClassPrivate || c == ClassLinkLocal) && p.AllowPrivate:
		return nil
	}
	return &RefusedError{Addr: a, Class: c}
}

func (p Policy) hostAllowed(host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	for _, h := range p.AllowHosts {
		if h == host {
			return true
		}
	}
	return false
}

// dialer returns a DialContext that applies the policy to every address it connects to; refused
// reports each refusal (the HTTP stack may flatten the error on its way up).
func (p Policy) dialer(timeout time.Duration, refused func(error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		d := &net.Dialer{Timeout: timeout, KeepAlive: 30 * time.Second}
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		if !p.hostAllowed(host) {
			// Control runs after the name is resolved and the socket made, before connect(2):
			// the address checked is the one connected to, and nothing is sent to a refused one.
			d.Control = func(_, address string, _ syscall.RawConn) error {
				ap, err := netip.ParseAddrPort(address)
				if err != nil {
					return fmt.Errorf("fetch policy: cannot read the address %q: %w", address, err)
				}
				if err := p.CheckAddr(ap.Addr()); err != nil {
					refused(err)
					return err
				}
				return nil
			}
		}
		return d.DialContext(ctx, network, addr)
	}
}
