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

// Token-mode sign-in is throttled per address: loginBurst wrong tokens in a row are allowed,
// then one more every loginRefill. A person who mistypes gets a few tries at once; a guesser gets
// about 300 an hour per address, against an admin token of at least MinTokenLength characters.
const (
	loginBurst  = 5
	loginRefill = 12 * time.Second
	// loginAddrs bounds the addresses tracked; past it, new addresses share one bucket, so a
	// flood of addresses costs memory no more than this and still gets throttled.
	loginAddrs = 1 << 14
)

// loginLimiter is a token bucket (golang.org/x/time/rate) per remote address. Only wrong tokens
// spend from it: a sign-in that succeeds, or a form refused for another reason, is refunded.
type loginLimiter struct {
	mu  sync.Mutex
	per map[netip.Prefix]*loginBucket
}

type loginBucket struct {
	lim  *rate.Limiter
	last time.Time
}

func newLoginLimiter() *loginLimiter {
	return &loginLimiter{per: map[netip.Prefix]*loginBucket{}}
}

// loginKey groups addresses the way one client holds them: an IPv4 address, or an IPv6 /64.
// A request whose address cannot be read shares the zero key with the others like it.
func loginKey(r *http.Request) netip.Prefix {
	a, ok := remoteAddr(r)
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
			// A full bucket is the same as none: forget the addresses that have refilled.
			for k, v := range l.per {
				if now.Sub(v.last) >= loginBurst*loginRefill {
					delete(l.per, k)
				}
			}
		}
		if len(l.per) >= loginAddrs {
			key = netip.Prefix{} // still full: the overflow shares one bucket
			b = l.per[key]
		}
		if b == nil {
			b = &loginBucket{lim: rate.NewLimiter(rate.Every(loginRefill), loginBurst)}
			l.per[key] = b
		}
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
