package web

import (
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeClock is a settable AuthConfig.Now.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// TestLoginThrottled: after loginBurst wrong tokens an address gets 429 with Retry-After, even
// for the right token; other addresses are not affected; time refills the bucket; a successful
// sign-in costs nothing; neither the wrong tokens nor the right one reach the log.
func TestLoginThrottled(t *testing.T) {
	clock := &fakeClock{t: time.Now()}
	r := newAuthRig(t, AuthConfig{Mode: AuthToken, Token: adminToken, Now: clock.now})
	wrong := "guess-" + strings.Repeat("z", 20)
	at := func(remote, token string) *httpResult {
		b := r.visitor()
		b.remote = remote
		rec := b.form(t, "/login", url.Values{"token": {token}, "name": {"Ada"}})
		return &httpResult{code: rec.Code, retry: rec.Header().Get("Retry-After"), body: rec.Body.String()}
	}
	steps := []struct {
		name        string
		remote, tok string
		advance     time.Duration
		want        int
		wantRetry   string
		wantInBody  string
	}{
		{name: "wrong 1", remote: "192.0.2.1:1000", tok: wrong, want: http.StatusUnauthorized},
		{name: "wrong 2", remote: "192.0.2.1:1001", tok: wrong, want: http.StatusUnauthorized},
		{name: "right token is free", remote: "192.0.2.1:1002", tok: adminToken, want: http.StatusSeeOther},
		{name: "wrong 3", remote: "192.0.2.1:1003", tok: wrong, want: http.StatusUnauthorized},
		{name: "wrong 4", remote: "192.0.2.1:1004", tok: wrong, want: http.StatusUnauthorized},
		{name: "wrong 5", remote: "192.0.2.1:1005", tok: wrong, want: http.StatusUnauthorized},
		{name: "throttled", remote: "192.0.2.1:1006", tok: wrong, want: http.StatusTooManyRequests, wantRetry: "12", wantInBody: "Too many wrong tokens"},
		{name: "throttled even with the right token", remote: "192.0.2.1:1007", tok: adminToken, want: http.StatusTooManyRequests, wantRetry: "12"},
		{name: "another address", remote: "198.51.100.7:1000", tok: wrong, want: http.StatusUnauthorized},
		{name: "still throttled later", remote: "192.0.2.1:1008", tok: wrong, advance: 5 * time.Second, want: http.StatusTooManyRequests, wantRetry: "7"},
		{name: "one more after the refill", remote: "192.0.2.1:1009", tok: wrong, advance: 7 * time.Second, want: http.StatusUnauthorized},
		{name: "then throttled again", remote: "192.0.2.1:1010", tok: wrong, want: http.StatusTooManyRequests, wantRetry: "12"},
		{name: "refilled after a minute", remote: "192.0.2.1:1011", tok: adminToken, advance: time.Minute, want: http.StatusSeeOther},
	}
	for _, st := range steps {
		clock.add(st.advance)
		got := at(st.remote, st.tok)
		if got.code != st.want || got.retry != st.wantRetry || !strings.Contains(got.body, st.wantInBody) {
			t.Fatalf("%s: status %d Retry-After %q, want %d %q (body has %q: %v)", st.name, got.code, got.retry, st.want, st.wantRetry,
				st.wantInBody, strings.Contains(got.body, st.wantInBody))
		}
	}
	// An IPv6 client holds a /64: its addresses share one bucket.
	for i := range loginBurst {
		if got := at("[2001:db8:1:2::"+string(rune('a'+i))+"]:443", wrong); got.code != http.StatusUnauthorized {
			t.Fatalf("IPv6 attempt %d: %d", i, got.code)
		}
	}
	if got := at("[2001:db8:1:2:ffff::1]:443", wrong); got.code != http.StatusTooManyRequests {
		t.Errorf("another address of the same /64: %d, want 429", got.code)
	}
	if got := at("[2001:db8:1:3::1]:443", wrong); got.code != http.StatusUnauthorized {
		t.Errorf("an address of another /64: %d, want 401", got.code)
	}
	logged := r.log.String()
	if !strings.Contains(logged, "sign-in throttled") {
		t.Errorf("the throttling was not logged:\n%s", logged)
	}
	for _, secret := range []string{adminToken, wrong} {
		if strings.Contains(logged, secret) {
			t.Errorf("the log holds a submitted token %q", secret)
		}
	}
}

type httpResult struct {
	code  int
	retry string
	body  string
}

// TestLoginLimiterBoundsAddresses: a flood of clients is tracked up to loginAddrs; past it each
// newcomer still gets a bucket of its own (the client seen longest ago is forgotten), so one
// guesser's newcomers never lock out another's: lock-out is per client, never shared.
func TestLoginLimiterBoundsAddresses(t *testing.T) {
	l := newLoginLimiter()
	now := time.Now()
	for i := range loginAddrs {
		a := [4]byte{10, byte(i >> 16), byte(i >> 8), byte(i)}
		if res, _ := l.reserve(netipPrefix(a), now); res == nil {
			t.Fatalf("address %d refused on its first attempt", i)
		}
	}
	if len(l.per) != loginAddrs {
		t.Fatalf("%d addresses tracked, want %d", len(l.per), loginAddrs)
	}
	// A guesser's newcomer spends its bucket; each other newcomer keeps its own.
	later := now.Add(time.Millisecond)
	guesser := netipPrefix([4]byte{11, 0, 0, 1})
	refused := 0
	for range 2 * loginBurst {
		if res, _ := l.reserve(guesser, later); res == nil {
			refused++
		}
	}
	if refused != loginBurst {
		t.Errorf("the guesser was refused %d of %d times, want %d", refused, 2*loginBurst, loginBurst)
	}
	for i := range 2 * loginBurst {
		if res, _ := l.reserve(netipPrefix([4]byte{11, 0, 1, byte(i)}), later); res == nil {
			t.Errorf("newcomer %d was refused on its first attempt: it shares the guesser's bucket", i)
		}
	}
	if len(l.per) != loginAddrs {
		t.Errorf("after the flood: %d tracked, want %d", len(l.per), loginAddrs)
	}
	if res, _ := l.reserve(guesser, later); res != nil {
		t.Errorf("the guesser's bucket was forgotten though others had been seen longer ago")
	}
	// Once the early addresses have refilled they are forgotten to make room.
	if res, _ := l.reserve(netipPrefix([4]byte{12, 0, 0, 1}), now.Add(loginBurst*loginRefill)); res == nil || len(l.per) > 2*loginBurst+2 {
		t.Errorf("after the refill: reserved %v, %d tracked", res != nil, len(l.per))
	}
}

func netipPrefix(a [4]byte) netip.Prefix {
	return netip.PrefixFrom(netip.AddrFrom4(a), 32)
}
