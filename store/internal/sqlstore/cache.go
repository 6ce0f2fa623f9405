package sqlstore

import (
	"sync"

	"github.com/tool-workbench/workbench/listing"
)

// listingCache keeps parsed listings of recently used revisions, so that an edit does not parse
// the head again and a page showing the baseline beside the head does not parse either. A
// revision's listing is fixed by its workspace, number and last edit: any writer (another
// process included) that changes it bumps its last edit, so a stale entry is never used. The
// cache is bounded by the size of the listings' JSON; parsed, they take a few times more.
type listingCache struct {
	mu    sync.Mutex
	m     map[revKey]cachedListing
	bytes int
}

type revKey struct {
	ws      string
	number  int
	lastSeq int64
}

type cachedListing struct {
	l    *listing.Listing
	refs []toolRef // where its tools are stored, aligned with l.Tools
	size int
}

// listingCacheBytes bounds the JSON size of the cached listings.
const listingCacheBytes = 32 << 20

func (c *listingCache) get(k revKey) (*listing.Listing, []toolRef) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.m[k]
	return e.l, e.refs
}

func (c *listingCache) put(k revKey, l *listing.Listing, refs []toolRef, size int) {
	if size > listingCacheBytes/4 {
		return // one huge listing must not empty the cache
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[revKey]cachedListing{}
	}
	if old, ok := c.m[k]; ok {
		c.bytes -= old.size
	}
	for k2, e := range c.m { // evict at random: cheap, and good enough here
		if c.bytes+size <= listingCacheBytes {
			break
		}
		delete(c.m, k2)
		c.bytes -= e.size
	}
	c.m[k] = cachedListing{l, refs, size}
	c.bytes += size
}

// dropWorkspace forgets a deleted workspace's listings.
func (c *listingCache) dropWorkspace(ws string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for k, e := range c.m {
		if k.ws == ws {
			delete(c.m, k)
			c.bytes -= e.size
		}
	}
}
