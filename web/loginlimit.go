package web

import (
	"math"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Wrong secrets are throttled per client: loginBurst in a row are allowed, then one more every
// loginRefill. A person who mistypes gets a few tries at once; a guesser gets about 300 an hour
// per client, against an admin token of at least MinTokenLength characters. The secrets that
// spend from one client's bucket: the admin token on /login and as a bearer token, share-link
// tokens as bearer tokens and in /s/ links (auth.go). Session and link cookies do not: a stale
// cookie is no guess (a session expires, a link is revoked), and their tokens carry 128 random
// bits.
//
// A client is the address the connection comes from or, behind a trusted proxy, the one the
// proxy reports (access.client); an IPv6 client holds a /64. Lock-out is per client, never
// global.
const (
	loginBurst  = 5
	loginRefill = 12 * time.Second
	// loginAddrs bounds the clients tracked (about 2 MB). Past it the clients whose buckets
	// have refilled are forgotten, and if none has, the one seen longest ago: forgetting a
	// client hands it a fresh bucket, which gains a guesser with more addresses than this
	// nothing it did not have (each address starts with loginBurst tries), where sharing one
	// bucket among newcomers would let one guesser lock every newcomer out.
	loginAddrs = 1 << 14
)

// loginLimiter is a token bucket (golang.org/x/time/rate) per client. Only wrong secrets
// spend from it: an attempt that succeeds, or a form refused for another reason, is refunded.
// The workshop's joins and join codes have buckets of their own (newClientLimiter), so that a
// room behind one address neither locks out its teacher's sign-in nor is locked out by it.
type loginLimiter struct {
	mu     sync.Mutex
	burst  int
	refill time.Duration
	per    map[netip.Prefix]*loginBucket
}

type loginBucket struct {
	lim  *rate.Limiter
	last time.Time
}

func newLoginLimiter() *loginLimiter { return newClientLimiter(loginBurst, loginRefill) }

// newClientLimiter is a bucket per client of burst attempts, one more every refill.
func newClientLimiter(burst int, refill time.Duration) *loginLimiter {
	return &loginLimiter{burst: burst, refill: refill, per: map[netip.Prefix]*loginBucket{}}
}

// loginKey groups addresses the way one client holds them: an IPv4 address, or an IPv6 /64,
// of the client behind a trusted proxy (clientAddr). A request whose address cannot be read
// shares the zero key with the others like it.
func loginKey(r *http.Request) netip.Prefix {
	a, ok := clientAddr(r)
	if !ok {
		return netip.Prefix{}
	}
	bits := 32
	if a.Is6() {
		bits = 64
	}
	p, err := a.Prefix(bits)
	if err != nil {
		return netip.Prefix{}
	}
	return p
}

// reserve takes one attempt from key's bucket at now. When the bucket is empty it returns nil and
// how long until the next attempt is allowed; otherwise the caller keeps the reservation for a
// wrong token and cancels it (a refund) for anything else.
func (l *loginLimiter) reserve(key netip.Prefix, now time.Time) (*rate.Reservation, time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.per[key]
	if b == nil {
		if len(l.per) >= loginAddrs {
			// A full bucket is the same as none: forget the clients that have refilled.
			for k, v := range l.per {
				if now.Sub(v.last) >= time.Duration(l.burst)*l.refill {
					delete(l.per, k)
				}
			}
		}
		if len(l.per) >= loginAddrs {
			// Still full: forget the client seen longest ago (see loginAddrs).
			var oldest netip.Prefix
			var at time.Time
			first := true
			for k, v := range l.per {
				if first || v.last.Before(at) {
					oldest, at, first = k, v.last, false
				}
			}
			delete(l.per, oldest)
		}
		b = &loginBucket{lim: rate.NewLimiter(rate.Every(l.refill), l.burst)}
		l.per[key] = b
	}
	b.last = now
	r := b.lim.ReserveN(now, 1)
	if d := r.DelayFrom(now); d > 0 {
		r.CancelAt(now)
		return nil, d
	}
	return r, 0
}

// retryAfter is the Retry-After value for a wait of d: whole seconds, rounded up, at least 1.
func retryAfter(d time.Duration) string {
	return strconv.Itoa(max(1, int(math.Ceil(d.Seconds()))))
}
