// Package lru holds the engines' caches: maps that forget their least recently used entries
// once they hold too many entries or too many bytes. Several caches can share one Budget, so
// that a server bounds the bytes of all its engines' caches together (the API keeps one linter
// and one cost counter per option set; the browser's engine a cache per kind of fact).
//
// Sizes are estimates the caller gives with each entry: what the entry keeps reachable (its
// strings, slices and maps) plus a fixed overhead for the map slot and list node.
package lru

import (
	"container/list"
	"sync"
)

// DefaultBytes is the budget of a cache made without one: 64 MiB.
const DefaultBytes = 64 << 20

// EntryOverhead approximates what an entry costs besides its value: the map slot, the item, its
// two list elements and the key (a pointer or a 32-byte hash), measured at 255 bytes.
const EntryOverhead = 256

// Budget bounds the bytes of the caches that share it. When an insert takes it over its
// maximum, the least recently used entries of any of its caches are dropped. The caches that
// share a Budget share its lock.
type Budget struct {
	mu   sync.Mutex
	max  int64
	used int64
	// order holds every entry of its caches (*node), the most recently used in front.
	order list.List
}

// NewBudget returns a budget of max bytes (DefaultBytes when max <= 0).
func NewBudget(max int64) *Budget {
	if max <= 0 {
		max = DefaultBytes
	}
	return &Budget{max: max}
}

// Max returns the budget's maximum in bytes.
func (b *Budget) Max() int64 { return b.max }

// Used returns the bytes its caches hold now.
func (b *Budget) Used() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// node is an entry in two recency lists: its budget's, which decides what the byte bound drops,
// and its cache's, which decides what the entry bound drops. owner removes it from its cache.
type node struct {
	inBudget, inCache *list.Element
	size              int64
	owner             dropper
}

type dropper interface {
	drop() // takes the entry out of its cache's list and map
}

// remove takes n out of the budget and its cache.
func (b *Budget) remove(n *node) {
	b.order.Remove(n.inBudget)
	b.used -= n.size
	n.owner.drop()
}

// trim drops least recently used entries until the budget holds at most max bytes.
func (b *Budget) trim() {
	for b.used > b.max && b.order.Len() > 0 {
		b.remove(b.order.Back().Value.(*node))
	}
}

// Cache maps keys to values, bounded by entries and by its budget's bytes. It is safe for
// concurrent use.
type Cache[K comparable, V any] struct {
	b          *Budget
	maxEntries int
	m          map[K]*item[K, V]
	bytes      int64
	// order holds the cache's entries (*node), the most recently used in front.
	order list.List
}

type item[K comparable, V any] struct {
	node
	c   *Cache[K, V]
	key K
	val V
}

func (it *item[K, V]) drop() {
	it.c.order.Remove(it.inCache)
	delete(it.c.m, it.key)
	it.c.bytes -= it.size
}

// New returns a cache of at most maxEntries entries (no bound when <= 0) whose bytes count
// against b (a budget of its own of DefaultBytes when nil).
func New[K comparable, V any](b *Budget, maxEntries int) *Cache[K, V] {
	if b == nil {
		b = NewBudget(0)
	}
	return &Cache[K, V]{b: b, maxEntries: maxEntries, m: map[K]*item[K, V]{}}
}

// Get returns the value of k and marks it used.
func (c *Cache[K, V]) Get(k K) (V, bool) {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	it, ok := c.m[k]
	if !ok {
		var zero V
		return zero, false
	}
	c.touch(it)
	return it.val, true
}

func (c *Cache[K, V]) touch(it *item[K, V]) {
	c.b.order.MoveToFront(it.inBudget)
	c.order.MoveToFront(it.inCache)
}

// Add stores v under k as an entry of size bytes (EntryOverhead is added), replacing any value
// k had, and drops least recently used entries as the bounds require. An entry larger than the
// whole budget is not stored: keeping it would empty every cache of the budget for one value.
func (c *Cache[K, V]) Add(k K, v V, size int64) {
	size += EntryOverhead
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	if old, ok := c.m[k]; ok {
		c.b.remove(&old.node)
	}
	if size > c.b.max {
		return
	}
	it := &item[K, V]{node: node{size: size}, c: c, key: k, val: v}
	it.owner = it
	c.m[k] = it
	c.bytes += size
	c.b.used += size
	it.inBudget = c.b.order.PushFront(&it.node)
	it.inCache = c.order.PushFront(&it.node)
	for c.maxEntries > 0 && len(c.m) > c.maxEntries {
		c.b.remove(c.order.Back().Value.(*node))
	}
	c.b.trim()
}

// Len returns the number of entries.
func (c *Cache[K, V]) Len() int {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	return len(c.m)
}

// Bytes returns the bytes the cache's entries are accounted at.
func (c *Cache[K, V]) Bytes() int64 {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	return c.bytes
}

// Clear drops every entry.
func (c *Cache[K, V]) Clear() {
	c.b.mu.Lock()
	defer c.b.mu.Unlock()
	for c.order.Len() > 0 {
		c.b.remove(c.order.Back().Value.(*node))
	}
}

// Budget returns the cache's budget.
func (c *Cache[K, V]) Budget() *Budget { return c.b }
