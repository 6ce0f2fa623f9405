package sqlstore

import (
	"bytes"
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tool-workbench/workbench/listing"
	"github.com/tool-workbench/workbench/store"
)

// A revision's listing is stored in two parts, so that a keystroke writes the one tool it
// changed instead of the whole listing: each tool's JSON once, by content hash, in the tools
// table, and per revision the envelope (the listing as (*listing.Listing).Marshal writes it,
// with every tool cut out) plus the tool list (per tool, in order: its SHA-256, then where in
// the envelope it goes back, as a uvarint). Putting the tools back gives exactly the bytes
// Marshal wrote.

// toolSentinel stands in for each tool while the envelope is encoded: a raw NUL byte, which the
// encoder writes for nothing else (it escapes control characters in strings and keys).
var toolSentinel = &listing.Value{Kind: listing.Number, Str: "\x00"}

// toolRef is what is known of a stored tool: its hash and the length of its JSON.
type toolRef struct {
	hash listing.Hash
	n    int
}

// snapshot is a listing encoded for storage.
type snapshot struct {
	envelope []byte
	list     []byte
	refs     []toolRef // aligned with the listing's tools
	fresh    map[listing.Hash][]byte
	size     int // bytes of the whole listing as Marshal writes it
}

// encodeSnapshot splits l into envelope and tool list. Tools found in known (by identity: tool
// values are immutable and shared between a listing and its edited copies) are stored already;
// the others are encoded and hashed, and returned in fresh to be inserted.
func encodeSnapshot(l *listing.Listing, known map[*listing.Value]toolRef) (snapshot, error) {
	skel := l.Clone()
	for i := range skel.Tools {
		skel.Tools[i] = toolSentinel
	}
	raw := skel.Marshal("")
	if n := bytes.Count(raw, []byte{0}); n != len(l.Tools) {
		return snapshot{}, fmt.Errorf("encode listing: found %d tool positions for %d tools (a number value holds a NUL byte?)", n, len(l.Tools))
	}
	sn := snapshot{envelope: make([]byte, 0, len(raw)-len(l.Tools)), refs: make([]toolRef, len(l.Tools))}
	sn.list = make([]byte, 0, len(l.Tools)*(sha256.Size+3))
	for i, t := range l.Tools {
		j := bytes.IndexByte(raw, 0)
		sn.envelope = append(sn.envelope, raw[:j]...)
		raw = raw[j+1:]
		ref, ok := known[t]
		if !ok {
			b := listing.Marshal(t, "")
			ref = toolRef{sha256.Sum256(b), len(b)}
			if sn.fresh == nil {
				sn.fresh = map[listing.Hash][]byte{}
			}
			sn.fresh[ref.hash] = b
		}
		sn.refs[i] = ref
		sn.size += ref.n
		sn.list = append(sn.list, ref.hash[:]...)
		sn.list = binary.AppendUvarint(sn.list, uint64(len(sn.envelope)))
	}
	sn.envelope = append(sn.envelope, raw...)
	sn.size += len(sn.envelope)
	return sn, nil
}

// knownTools indexes the stored tools of a listing by identity.
func knownTools(l *listing.Listing, refs []toolRef) map[*listing.Value]toolRef {
	if l == nil || len(refs) != len(l.Tools) {
		return nil
	}
	m := make(map[*listing.Value]toolRef, len(refs))
	for i, t := range l.Tools {
		m[t] = refs[i]
	}
	return m
}

// toolsPerInsert bounds the rows of one insert (two parameters each; SQLite allows 32766).
const toolsPerInsert = 500

// putTools inserts the tools the store may not hold yet; a tool stored already is left as is
// (same hash, same bytes).
func (s *DB) putTools(ctx context.Context, tx *sql.Tx, fresh map[listing.Hash][]byte) error {
	args := make([]any, 0, 2*min(len(fresh), toolsPerInsert))
	flush := func() error {
		if len(args) == 0 {
			return nil
		}
		q := `INSERT INTO tools (hash, json) VALUES ` + strings.TrimSuffix(strings.Repeat("(?, ?), ", len(args)/2), ", ") + ` ON CONFLICT (hash) DO NOTHING`
		if _, err := tx.ExecContext(ctx, s.q(q), args...); err != nil {
			return fmt.Errorf("write tools: %w", err)
		}
		args = args[:0]
		return nil
	}
	// In hash order: two transactions inserting the same tools (two people importing one
	// listing) then take the rows' locks in one order and never wait on each other in a circle.
	hs := make([]listing.Hash, 0, len(fresh))
	for h := range fresh {
		hs = append(hs, h)
	}
	slices.SortFunc(hs, func(a, b listing.Hash) int { return bytes.Compare(a[:], b[:]) })
	for _, h := range hs {
		args = append(args, h[:], fresh[h])
		if len(args) == 2*toolsPerInsert {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	return flush()
}

// errCorrupt marks a stored listing that cannot be put back together.
var errCorrupt = errors.New("stored listing is unreadable")

// decodeList reads a tool list: the hashes and their offsets in an envelope of n bytes.
func decodeList(list []byte, n int) ([]listing.Hash, []int, error) {
	var hs []listing.Hash
	var offs []int
	last := 0
	for len(list) > 0 {
		if len(list) < sha256.Size {
			return nil, nil, fmt.Errorf("%w: the tool list ends inside a hash", errCorrupt)
		}
		var h listing.Hash
		copy(h[:], list)
		off, k := binary.Uvarint(list[sha256.Size:])
		if k <= 0 {
			return nil, nil, fmt.Errorf("%w: the tool list has a bad offset", errCorrupt)
		}
		if off < uint64(last) || off > uint64(n) {
			return nil, nil, fmt.Errorf("%w: tool offset %d is outside %d..%d", errCorrupt, off, last, n)
		}
		last = int(off)
		hs, offs = append(hs, h), append(offs, last)
		list = list[sha256.Size+k:]
	}
	return hs, offs, nil
}

// toolsPerSelect bounds the hashes of one lookup.
const toolsPerSelect = 500

// loadSnapshot reads revision n's listing from its envelope and tool list, and returns it with
// its tools' references.
func (s *DB) loadSnapshot(ctx context.Context, q querier, ws string, n int, envelope, list []byte) (*listing.Listing, []toolRef, error) {
	hs, offs, err := decodeList(list, len(envelope))
	if err != nil {
		return nil, nil, err
	}
	jsons := make(map[listing.Hash][]byte, len(hs))
	var want []any
	lookup := func() error {
		if len(want) == 0 {
			return nil
		}
		rows, err := q.QueryContext(ctx, s.q(`SELECT hash, json FROM tools WHERE hash IN (`+strings.TrimSuffix(strings.Repeat("?, ", len(want)), ", ")+`)`), want...)
		if err != nil {
			return fmt.Errorf("read tools: %w", err)
		}
		defer rows.Close()
		for rows.Next() {
			var h, b []byte
			if err := rows.Scan(&h, &b); err != nil {
				return fmt.Errorf("read tools: %w", err)
			}
			jsons[listing.Hash(h)] = b
		}
		want = want[:0]
		return rows.Err()
	}
	for _, h := range hs {
		if _, ok := jsons[h]; ok {
			continue
		}
		jsons[h] = nil // asked for
		want = append(want, h[:])
		if len(want) == toolsPerSelect {
			if err := lookup(); err != nil {
				return nil, nil, err
			}
		}
	}
	if err := lookup(); err != nil {
		return nil, nil, err
	}
	size := len(envelope)
	refs := make([]toolRef, len(hs))
	for i, h := range hs {
		b := jsons[h]
		if b == nil {
			return nil, nil, fmt.Errorf("%w: tool %x is missing", errCorrupt, h[:8])
		}
		refs[i] = toolRef{h, len(b)}
		size += len(b)
	}
	doc := make([]byte, 0, size)
	prev := 0
	for i, h := range hs {
		doc = append(doc, envelope[prev:offs[i]]...)
		doc = append(doc, jsons[h]...)
		prev = offs[i]
	}
	doc = append(doc, envelope[prev:]...)
	l, err := parseSnapshot(doc, ws, n)
	if err != nil {
		return nil, nil, err
	}
	if len(l.Tools) != len(refs) {
		return nil, nil, fmt.Errorf("%w: %d tools stored, %d read back", errCorrupt, len(refs), len(l.Tools))
	}
	return l, refs, nil
}

// prepareSnapshot encodes l for a write, after checking that it can be read back.
func prepareSnapshot(op string, l *listing.Listing, known map[*listing.Value]toolRef) (snapshot, error) {
	sn, err := encodeSnapshot(l, known)
	if err != nil {
		return sn, store.Errorf(store.Invalid, op, "%v", err)
	}
	return sn, checkSnapshot(op, l, sn.size)
}

// storeTools inserts sn's new tools in tx, holding the locks of the tools it inserts (shared)
// and of those the transaction will delete (dropping, exclusive).
func (s *DB) storeTools(ctx context.Context, tx *sql.Tx, sn snapshot, dropping []listing.Hash) error {
	if len(sn.fresh) == 0 && len(dropping) == 0 {
		return nil
	}
	fresh := make([]listing.Hash, 0, len(sn.fresh))
	for h := range sn.fresh {
		fresh = append(fresh, h)
	}
	if err := s.lockTools(ctx, tx, fresh, dropping); err != nil {
		return err
	}
	return s.putTools(ctx, tx, sn.fresh)
}

// Tools are shared between revisions, workspaces and forks, so a tool is deleted only when no
// revision lists it any more (table workspace_tools). On PostgreSQL, where writers run at the
// same time, a writer that inserts a tool (and may so find it stored already, about to be
// deleted) holds the tool's lock shared, and a writer that deletes it holds it exclusively, so
// that each statement that follows sees what the other committed.
//
// The locks are advisory locks in two levels, so that people typing in different tools (every
// keystroke stores a tool and drops the one it replaced) never wait on each other, while no
// transaction takes more than a few dozen locks (PostgreSQL's lock table is small and shared):
// each tool maps to one of toolStripes stripe locks, and every writer first holds the coarse
// lock — shared when it takes at most maxStripeLocks stripes, exclusive (and no stripe) when it
// would take more (an import of a large listing, a deleted workspace). A transaction takes all
// of its locks at once, coarse first and stripes in ascending order, so that two never wait on
// each other in a circle. SQLite's writers exclude each other already.
const (
	toolStripes    = 1024
	maxStripeLocks = 32
	coarseToolLock = -1 // below every stripe key, so that it is taken first
)

// toolLockKey is a tool's stripe: its hash's first 8 bytes modulo toolStripes.
func toolLockKey(h listing.Hash) int64 { return int64(binary.BigEndian.Uint64(h[:8]) % toolStripes) }

// toolLocks returns the locks a transaction takes, in the order it takes them, each with
// whether it is exclusive: the coarse lock, then the stripes of the tools (exclusive when any
// tool of the stripe is in exclusive), or the coarse lock alone, exclusive, when the stripes are
// too many.
func toolLocks(shared, exclusive []listing.Hash) ([]int64, []bool) {
	mode := make(map[int64]bool, len(shared)+len(exclusive))
	for _, h := range shared {
		k := toolLockKey(h)
		mode[k] = mode[k] || false
	}
	for _, h := range exclusive {
		mode[toolLockKey(h)] = true
	}
	if len(mode) > maxStripeLocks {
		return []int64{coarseToolLock}, []bool{true}
	}
	keys := make([]int64, 0, len(mode)+1)
	for k := range mode {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	keys = append([]int64{coarseToolLock}, keys...)
	excl := make([]bool, len(keys))
	for i, k := range keys[1:] {
		excl[i+1] = mode[k]
	}
	return keys, excl
}

// lockTools takes the tool locks for the rest of tx, all in one call (see toolLocks).
func (s *DB) lockTools(ctx context.Context, tx *sql.Tx, shared, exclusive []listing.Hash) error {
	if !s.d.Postgres || len(shared)+len(exclusive) == 0 {
		return nil
	}
	keys, excl := toolLocks(shared, exclusive)
	if _, err := tx.ExecContext(ctx, `SELECT workbench_lock_tools($1, $2)`, keys, excl); err != nil {
		return fmt.Errorf("lock tools: %w", err)
	}
	return nil
}

// hashSet is the distinct hashes of refs, in order of first appearance.
func hashSet(refs []toolRef) []listing.Hash {
	seen := make(map[listing.Hash]bool, len(refs))
	hs := make([]listing.Hash, 0, len(refs))
	for _, r := range refs {
		if !seen[r.hash] {
			seen[r.hash] = true
			hs = append(hs, r.hash)
		}
	}
	return hs
}

// diffRefs returns the hashes listed by old and not by cur (gone), and by cur and not by old
// (added).
func diffRefs(old, cur []toolRef) (gone, added []listing.Hash) {
	in := func(refs []toolRef) map[listing.Hash]bool {
		m := make(map[listing.Hash]bool, len(refs))
		for _, r := range refs {
			m[r.hash] = true
		}
		return m
	}
	inOld, inCur := in(old), in(cur)
	for _, h := range hashSet(old) {
		if !inCur[h] {
			gone = append(gone, h)
		}
	}
	for _, h := range hashSet(cur) {
		if !inOld[h] {
			added = append(added, h)
		}
	}
	return gone, added
}

// inBatches runs fn over hs, at most toolsPerInsert at a time.
func inBatches(hs []listing.Hash, fn func(batch []listing.Hash) error) error {
	for len(hs) > 0 {
		n := min(len(hs), toolsPerInsert)
		if err := fn(hs[:n]); err != nil {
			return err
		}
		hs = hs[n:]
	}
	return nil
}

// placeholders is "?, ?, ..." n times.
func placeholders(n int) string { return strings.TrimSuffix(strings.Repeat("?, ", n), ", ") }

// addRefs records that revision n of ws lists the tools hs (when no earlier revision does).
func (s *DB) addRefs(ctx context.Context, tx *sql.Tx, ws string, n int, hs []listing.Hash) error {
	return inBatches(hs, func(b []listing.Hash) error {
		args := make([]any, 0, 3*len(b))
		for _, h := range b {
			args = append(args, ws, h[:], n)
		}
		q := `INSERT INTO workspace_tools (workspace_id, hash, first_number) VALUES ` + strings.TrimSuffix(strings.Repeat("(?, ?, ?), ", len(b)), ", ") +
			` ON CONFLICT (workspace_id, hash) DO NOTHING`
		if _, err := tx.ExecContext(ctx, s.q(q), args...); err != nil {
			return fmt.Errorf("write tool references of revision %d: %w", n, err)
		}
		return nil
	})
}

// dropRefs records that head revision n of ws no longer lists the tools hs, and returns those
// no revision of ws lists now: the ones n was the first to list.
func (s *DB) dropRefs(ctx context.Context, tx *sql.Tx, ws string, n int, hs []listing.Hash) ([]listing.Hash, error) {
	var dropped []listing.Hash
	err := inBatches(hs, func(b []listing.Hash) error {
		args := make([]any, 0, 2+len(b))
		args = append(args, ws, n)
		for _, h := range b {
			args = append(args, h[:])
		}
		q := `DELETE FROM workspace_tools WHERE workspace_id = ? AND first_number = ? AND hash IN (` + placeholders(len(b)) + `) RETURNING hash`
		var err error
		dropped, err = scanHashes(ctx, tx, s.q(q), args, dropped)
		if err != nil {
			return fmt.Errorf("drop tool references of revision %d: %w", n, err)
		}
		return nil
	})
	return dropped, err
}

// scanHashes appends to hs the hashes query returns.
func scanHashes(ctx context.Context, tx *sql.Tx, query string, args []any, hs []listing.Hash) ([]listing.Hash, error) {
	rows, err := tx.QueryContext(ctx, query, args...)
	if err != nil {
		return hs, err
	}
	defer rows.Close()
	for rows.Next() {
		var b []byte
		if err := rows.Scan(&b); err != nil {
			return hs, err
		}
		if len(b) != sha256.Size {
			return hs, fmt.Errorf("%w: a tool reference of %d bytes", errCorrupt, len(b))
		}
		hs = append(hs, listing.Hash(b))
	}
	return hs, rows.Err()
}

// pruneTools deletes those of the tools hs that no revision lists. The caller holds their locks
// exclusively.
func (s *DB) pruneTools(ctx context.Context, tx *sql.Tx, hs []listing.Hash) error {
	return inBatches(hs, func(b []listing.Hash) error {
		args := make([]any, 0, len(b))
		for _, h := range b {
			args = append(args, h[:])
		}
		q := `DELETE FROM tools WHERE hash IN (` + placeholders(len(b)) + `) AND NOT EXISTS (SELECT 1 FROM workspace_tools r WHERE r.hash = tools.hash)`
		if _, err := tx.ExecContext(ctx, s.q(q), args...); err != nil {
			return fmt.Errorf("delete unlisted tools: %w", err)
		}
		return nil
	})
}

// listedTools returns the tools the revisions of ws list.
func (s *DB) listedTools(ctx context.Context, tx *sql.Tx, ws string) ([]listing.Hash, error) {
	hs, err := scanHashes(ctx, tx, s.q(`SELECT hash FROM workspace_tools WHERE workspace_id = ?`), []any{ws}, nil)
	if err != nil {
		return nil, fmt.Errorf("read tool references: %w", err)
	}
	return hs, nil
}

// parseSnapshot reads a stored listing back.
func parseSnapshot(b []byte, ws string, n int) (*listing.Listing, error) {
	l, err := listing.Parse(b, listing.Options{Name: fmt.Sprintf("revision %d of workspace %s", n, ws)})
	if err != nil {
		return nil, fmt.Errorf("stored listing is unreadable: %w", err)
	}
	return l, nil
}

// checkSnapshot refuses a listing that could be stored but not read back: one over the limits
// listing.Parse applies by default (a caller may have parsed it with raised limits).
func checkSnapshot(op string, l *listing.Listing, size int) error {
	lim := listing.DefaultLimits
	if size > lim.Bytes {
		return store.Errorf(store.Invalid, op, "the listing would be %d bytes; a workspace holds listings of up to %d bytes", size, lim.Bytes)
	}
	if len(l.Tools) > lim.Tools {
		return store.Errorf(store.Invalid, op, "the listing would have %d tools; a workspace holds up to %d", len(l.Tools), lim.Tools)
	}
	return nil
}
