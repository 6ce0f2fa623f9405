// Package hfbpe counts tokens with a Hugging Face tokenizer.json whose model is byte-level BPE
// (Qwen3, Llama 3 and 3.1, Mistral Nemo): added tokens, normalizer, pre-tokenizer regex, GPT-2
// byte mapping, merges by rank, as Hugging Face's tokenizers library encodes. Its counts are
// checked against @lenml/tokenizers 3.7.2 (cost/testdata/hf_reference_tokens.json).
//
// A tokenizer.json can come from anyone, so Load bounds what it accepts (Max* constants) and
// the pre-tokenizer regex runs with a match timeout: a file whose pattern backtracks without end
// gives an inexact count (see Count), never a hung process.
package hfbpe

import (
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	regexp2 "github.com/dlclark/regexp2/v2"
	"golang.org/x/text/unicode/norm"
)

// ErrUnsupported is a tokenizer.json this package does not count with (another model type, a
// normalizer or pre-tokenizer it does not implement); counting it anyway would give wrong numbers.
var ErrUnsupported = errors.New("unsupported tokenizer.json")

// Bounds on a tokenizer.json. The largest files in use are far below them: Gemma 3 has 262,144
// vocabulary entries, Llama 3 280,147 merges, Mistral Nemo 1,000 added tokens and the longest
// pre-tokenizer pattern (Nemo's) about 400 bytes.
const (
	MaxFileBytes   = 64 << 20
	MaxVocab       = 1 << 20
	MaxMerges      = 1 << 21
	MaxAddedTokens = 1 << 16
	// MaxAddedLengths bounds the distinct lengths of added tokens, which the scan for them tries
	// at each place one could start (the real files have a few dozen at most).
	MaxAddedLengths = 64
	MaxAddedBytes   = 1 << 10 // one added token's text
	MaxPatternBytes = 4 << 10
	// matchTimeout bounds one match of the pre-tokenizer regex; real patterns match a piece in
	// microseconds.
	matchTimeout = time.Second
)

// spacePatterns are the pre-tokenizer regexes known to end a piece before a space that sits
// between two ASCII letters, whatever surrounds it: no alternative matches a letter followed by
// a space (letter runs stop at it, contractions end in a letter, punctuation and whitespace
// runs hold no letters), so a piece ends at the letter and the space starts the next one. They
// are GPT-2's (ByteLevel's own), Qwen2's and Qwen3's, Llama 3's and Mistral Nemo's. Any other
// pattern is counted as one text (see SpaceCuts).
var spacePatterns = map[string]bool{
	gpt2Pattern: true,
	`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`:                                                                                                      true,
	`(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+`:                                                                                                 true,
	`[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+`: true,
}

// gpt2Pattern is the pre-tokenizer regex of a ByteLevel pre-tokenizer with use_regex true.
const gpt2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

type pairKey struct{ a, b int32 }
type merge struct{ rank, id int32 }

// Tokenizer counts tokens of a byte-level BPE tokenizer.json. It is safe for concurrent use.
type Tokenizer struct {
	name         string
	nfc          bool
	split        *regexp2.Regexp
	added        addedTokens
	vocab        map[string]int32
	merges       map[pairKey]merge
	byteID       [256]int32
	byteChar     [256]rune
	ignoreMerges bool
	// spaceCuts: the pattern is one of spacePatterns and no added token holds a space.
	spaceCuts bool
	// slow is set once the regex timed out: from then on the tokenizer splits no text (see Count).
	slow atomic.Bool
	// timeout is matchTimeout; a text's matches get textTimeout and perByte a byte (tests
	// shorten them).
	timeout, textTimeout, perByte time.Duration

	mu    sync.Mutex
	cache map[string]int
}

type fileJSON struct {
	AddedTokens []struct {
		Content    string `json:"content"`
		Normalized bool   `json:"normalized"`
		Lstrip     bool   `json:"lstrip"`
		Rstrip     bool   `json:"rstrip"`
		SingleWord bool   `json:"single_word"`
	} `json:"added_tokens"`
	Normalizer   *struct{ Type string } `json:"normalizer"`
	PreTokenizer *preJSON               `json:"pre_tokenizer"`
	Model        struct {
		Type         string          `json:"type"`
		Vocab        json.RawMessage `json:"vocab"` // decoded once the type is known
		Merges       json.RawMessage `json:"merges"`
		IgnoreMerges bool            `json:"ignore_merges"`
		ByteFallback bool            `json:"byte_fallback"`
		Dropout      *float64        `json:"dropout"`
	} `json:"model"`
}

type preJSON struct {
	Type          string    `json:"type"`
	Pretokenizers []preJSON `json:"pretokenizers"`
	Pattern       struct{ Regex, String *string }
	Behavior      string `json:"behavior"`
	Invert        bool   `json:"invert"`
	// Absent, Hugging Face's ByteLevel takes both as true.
	AddPrefixSpace *bool `json:"add_prefix_space"`
	UseRegex       *bool `json:"use_regex"`
}

// isTrue is a flag that is true, or absent (nil).
func isTrue(b *bool) bool { return b == nil || *b }

// Load reads a tokenizer.json's bytes. name labels the tokenizer in reports.
func Load(name string, b []byte) (*Tokenizer, error) {
	if len(b) > MaxFileBytes {
		return nil, fmt.Errorf("%w: %d bytes; a tokenizer.json is at most %d MiB here", ErrUnsupported, len(b), MaxFileBytes>>20)
	}
	var f fileJSON
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("reading tokenizer.json: %w", err)
	}
	m := f.Model
	if m.Type != "BPE" || m.ByteFallback || (m.Dropout != nil && *m.Dropout != 0) {
		return nil, fmt.Errorf("%w: model %q (byte fallback %v): only byte-level BPE without byte fallback (Qwen3, Llama 3, Mistral Nemo) is counted", ErrUnsupported, m.Type, m.ByteFallback)
	}
	var vocab map[string]int32
	if err := json.Unmarshal(m.Vocab, &vocab); err != nil {
		return nil, fmt.Errorf("%w: the BPE vocabulary is not an object of token ids: %v", ErrUnsupported, err)
	}
	if len(vocab) > MaxVocab || len(f.AddedTokens) > MaxAddedTokens {
		return nil, fmt.Errorf("%w: %d vocabulary entries and %d added tokens; at most %d and %d are read", ErrUnsupported, len(vocab), len(f.AddedTokens), MaxVocab, MaxAddedTokens)
	}
	t := &Tokenizer{name: name, vocab: vocab, ignoreMerges: m.IgnoreMerges, cache: map[string]int{}}
	if f.Normalizer != nil {
		if f.Normalizer.Type != "NFC" {
			return nil, fmt.Errorf("%w: normalizer %q: only none or NFC is implemented", ErrUnsupported, f.Normalizer.Type)
		}
		t.nfc = true
	}
	pattern, err := splitPattern(f.PreTokenizer)
	if err != nil {
		return nil, err
	}
	if len(pattern) > MaxPatternBytes {
		return nil, fmt.Errorf("%w: a pre-tokenizer regex of %d bytes; at most %d are compiled", ErrUnsupported, len(pattern), MaxPatternBytes)
	}
	// Hugging Face runs Oniguruma; .NET syntax (regexp2's default) has the same \p classes,
	// Unicode \s and the look-ahead these patterns need.
	if t.split, err = regexp2.Compile(pattern, regexp2.None); err != nil {
		return nil, fmt.Errorf("%w: pre-tokenizer regex %q: %v", ErrUnsupported, pattern, err)
	}
	t.spaceCuts = spacePatterns[pattern]
	t.timeout, t.textTimeout, t.perByte = matchTimeout, matchTimeout, perByte
	t.split.MatchTimeout = t.timeout
	t.byteTables()
	for b, id := range t.byteID {
		if id < 0 {
			return nil, fmt.Errorf("%w: byte %#x has no token: not a byte-level vocabulary", ErrUnsupported, b)
		}
	}
	if err := t.loadMerges(m.Merges); err != nil {
		return nil, err
	}
	if err := t.loadAdded(f); err != nil {
		return nil, err
	}
	return t, nil
}

// splitPattern returns the regex of the supported pre-tokenizers: ByteLevel with its own regex,
// or a Sequence of one Isolated Split and a ByteLevel without regex.
func splitPattern(p *preJSON) (string, error) {
	switch {
	case p == nil:
		return "", fmt.Errorf("%w: no pre-tokenizer", ErrUnsupported)
	case p.Type == "ByteLevel" && isTrue(p.UseRegex) && !isTrue(p.AddPrefixSpace):
		return gpt2Pattern, nil
	case p.Type == "Sequence" && len(p.Pretokenizers) == 2:
		s, bl := p.Pretokenizers[0], p.Pretokenizers[1]
		if s.Type == "Split" && s.Pattern.Regex != nil && s.Behavior == "Isolated" && !s.Invert &&
			bl.Type == "ByteLevel" && !isTrue(bl.UseRegex) && !isTrue(bl.AddPrefixSpace) {
			return *s.Pattern.Regex, nil
		}
	}
	return "", fmt.Errorf("%w: pre-tokenizer %q: only ByteLevel, or a Split regex then ByteLevel, is implemented", ErrUnsupported, p.Type)
}

// byteTables builds GPT-2's byte-to-character mapping and each byte's token.
func (t *Tokenizer) byteTables() {
	n := 0
	for b := 0; b < 256; b++ {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			t.byteChar[b] = rune(b)
		} else {
			t.byteChar[b] = rune(256 + n)
			n++
		}
		id, ok := t.vocab[string(t.byteChar[b])]
		if !ok {
			id = -1
		}
		t.byteID[b] = id
	}
}

func (t *Tokenizer) loadMerges(raw json.RawMessage) error {
	var pairs [][2]string
	var joined []string
	if err := json.Unmarshal(raw, &joined); err == nil {
		for i, s := range joined {
			a, b, ok := strings.Cut(s, " ")
			if !ok {
				return fmt.Errorf("%w: merge %d %q is not two tokens separated by a space", ErrUnsupported, i, s)
			}
			pairs = append(pairs, [2]string{a, b})
		}
	} else if err := json.Unmarshal(raw, &pairs); err != nil {
		return fmt.Errorf("%w: merges are neither \"a b\" strings nor [a, b] pairs: %v", ErrUnsupported, err)
	}
	if len(pairs) > MaxMerges {
		return fmt.Errorf("%w: %d merges; at most %d are read", ErrUnsupported, len(pairs), MaxMerges)
	}
	t.merges = make(map[pairKey]merge, len(pairs))
	for i, p := range pairs {
		a, okA := t.vocab[p[0]]
		b, okB := t.vocab[p[1]]
		id, okC := t.vocab[p[0]+p[1]]
		if !okA || !okB || !okC {
			return fmt.Errorf("%w: merge %d (%q, %q) names a token missing from the vocabulary", ErrUnsupported, i, p[0], p[1])
		}
		k := pairKey{a, b}
		if _, dup := t.merges[k]; !dup {
			t.merges[k] = merge{rank: int32(i), id: id}
		}
	}
	return nil
}

// loadAdded collects the added tokens, which Hugging Face splits off before anything else and
// counts as one token each (special or not).
func (t *Tokenizer) loadAdded(f fileJSON) error {
	t.added = addedTokens{set: map[string]bool{}}
	for _, a := range f.AddedTokens {
		if a.Normalized || a.Lstrip || a.Rstrip || a.SingleWord {
			return fmt.Errorf("%w: added token %q uses normalized/lstrip/rstrip/single_word, not implemented", ErrUnsupported, a.Content)
		}
		if len(a.Content) > MaxAddedBytes {
			return fmt.Errorf("%w: an added token of %d bytes; at most %d are read", ErrUnsupported, len(a.Content), MaxAddedBytes)
		}
		if a.Content == "" || t.added.set[a.Content] {
			continue
		}
		t.added.set[a.Content] = true
		if strings.Contains(a.Content, " ") {
			t.spaceCuts = false
		}
		t.added.first[a.Content[0]] = true
		if !slices.Contains(t.added.lens, len(a.Content)) {
			t.added.lens = append(t.added.lens, len(a.Content))
		}
	}
	if len(t.added.lens) > MaxAddedLengths {
		return fmt.Errorf("%w: added tokens of %d different lengths; at most %d are read (each is tried at every place a token could start)", ErrUnsupported, len(t.added.lens), MaxAddedLengths)
	}
	// Longest first: Hugging Face's matcher is leftmost-longest.
	slices.Sort(t.added.lens)
	slices.Reverse(t.added.lens)
	return nil
}

// addedTokens finds added tokens in a text, leftmost-longest, in time linear in the text times
// the number of distinct token lengths (at most MaxAddedBytes).
type addedTokens struct {
	set   map[string]bool
	first [256]bool // first bytes of the tokens
	lens  []int     // distinct lengths, longest first
}

// next returns the leftmost-longest added token in s at or after from, or -1.
func (a *addedTokens) next(s string, from int) (start, end int) {
	for i := from; i < len(s); i++ {
		if !a.first[s[i]] {
			continue
		}
		for _, n := range a.lens {
			if i+n <= len(s) && a.set[s[i:i+n]] {
				return i, i + n
			}
		}
	}
	return -1, -1
}

// SpaceCuts reports whether the count of a text is the sum of the counts of its parts when it is
// cut before a space between two ASCII letters: the pre-tokenizer is known to end a piece there
// (spacePatterns), no added token holds a space, and NFC never composes across an ASCII space.
func (t *Tokenizer) SpaceCuts() bool { return t.spaceCuts }

// Name is the label given to Load.
func (t *Tokenizer) Name() string { return t.name }

// Count returns the number of tokens Hugging Face's encode(s, add_special_tokens=false) gives
// for valid UTF-8: each added token in s (such as Qwen3's "<|im_start|>") counts as one. Invalid
// UTF-8, which Hugging Face cannot receive, is counted as if each bad byte were U+FFFD.
//
// If the pre-tokenizer regex once takes longer than a second on one match (a hostile file's
// catastrophic backtracking), the tokenizer stops splitting: each text between added tokens is
// then merged as one piece, which takes O(n log n) but overcounts, and Slow says so. A text
// whose matches together take longer than a second and 100 µs a byte is merged that way from
// there on, that time only.
func (t *Tokenizer) Count(s string) int {
	n, at := 0, 0
	for {
		i, j := t.added.next(s, at)
		if i < 0 {
			return n + t.countPlain(s[at:])
		}
		n += t.countPlain(s[at:i]) + 1
		at = j
	}
}

// Slow reports whether the pre-tokenizer regex timed out once, so that counts are no longer exact.
func (t *Tokenizer) Slow() bool { return t.slow.Load() }

// countPlain counts text without added tokens.
func (t *Tokenizer) countPlain(s string) int {
	if s == "" {
		return 0
	}
	if t.nfc {
		s = norm.NFC.String(s)
	}
	if t.slow.Load() {
		return t.bpe(s)
	}
	n, at := 0, 0
	// Many matches each a little under the timeout would add up: the text's matches together
	// get matchTimeout and 100 µs a byte. Real patterns split about a byte a microsecond, so only
	// a hostile pattern, not a loaded machine, runs out of it.
	deadline := time.Now().Add(t.textTimeout + time.Duration(len(s))*t.perByte)
	m, err := t.match(s, nil, deadline)
	// Isolated: matches and the text between them are pieces. regexp2 indexes runes.
	rs := []rune(s)
	for err == nil && m != nil {
		if m.RuneIndex > at {
			n += t.countPiece(string(rs[at:m.RuneIndex]))
		}
		n += t.countPiece(m.String())
		at = m.RuneIndex + m.RuneLength
		m, err = t.match(s, m, deadline)
	}
	if at < len(rs) {
		n += t.bpe(string(rs[at:]))
	}
	return n
}

// match finds the first match in s (prev nil) or the one after prev. A match's timeout sets
// slow; a timeout, or a match that ends past the text's deadline, ends the matches.
func (t *Tokenizer) match(s string, prev *regexp2.Match, deadline time.Time) (*regexp2.Match, error) {
	start := time.Now()
	for {
		var m *regexp2.Match
		var err error
		if prev == nil {
			m, err = t.split.FindStringMatch(s)
		} else {
			m, err = t.split.FindNextMatch(prev)
		}
		now := time.Now()
		// regexp2's deadline clock ticks in a goroutine that a loaded machine can delay, so a
		// match can time out early: only one that took its time counts.
		if err != nil && now.Sub(start) < t.timeout {
			continue
		}
		if err != nil {
			// One match that takes a second is the pattern's fault: stop splitting for good.
			t.slow.Store(true)
			return nil, errSlow
		}
		if now.After(deadline) {
			// Only this text is merged without splitting: a moment of load must not make every
			// later count of a shared tokenizer inexact.
			return nil, errSlow
		}
		return m, nil
	}
}

var errSlow = errors.New("the pre-tokenizer regex took too long")

// perByte is the time a text's matches may take per byte, beyond matchTimeout.
const perByte = 100 * time.Microsecond

// The piece cache holds up to maxCache pieces of up to maxCachedPiece bytes (a few MiB): most
// pieces are words, and a long one (a run of spaces) would make the cache's memory unbounded.
const (
	maxCache       = 1 << 16
	maxCachedPiece = 64
)

// countPiece counts one pre-token.
func (t *Tokenizer) countPiece(p string) int {
	if len(p) == 1 {
		return 1
	}
	if len(p) > maxCachedPiece {
		return t.bpe(p)
	}
	t.mu.Lock()
	n, ok := t.cache[p]
	t.mu.Unlock()
	if ok {
		return n
	}
	n = t.bpe(p)
	t.mu.Lock()
	if len(t.cache) >= maxCache {
		clear(t.cache)
	}
	t.cache[p] = n
	t.mu.Unlock()
	return n
}

// bpe merges the piece's byte tokens, lowest merge rank first (leftmost on a tie), as Hugging
// Face's BPE does without dropout: a linked list of symbols and a heap of candidate pairs keep a
// long piece (a run of 30 KB of letters is one piece) at O(n log n) rather than O(n²).
func (t *Tokenizer) bpe(p string) int {
	if t.ignoreMerges {
		var b strings.Builder
		for i := 0; i < len(p); i++ {
			b.WriteRune(t.byteChar[p[i]])
		}
		if _, ok := t.vocab[b.String()]; ok {
			return 1
		}
	}
	if len(p) <= shortPiece {
		return t.bpeShort(p)
	}
	return t.bpeHeap(p)
}

// bpeHeap is bpe for a long piece.
func (t *Tokenizer) bpeHeap(p string) int {
	sym := make([]symbol, len(p))
	for i := range sym {
		sym[i] = symbol{id: t.byteID[p[i]], prev: int32(i - 1), next: int32(i + 1)}
	}
	sym[len(sym)-1].next = -1
	var q candidates
	push := func(at int32) {
		if at < 0 || sym[at].next < 0 {
			return
		}
		r := sym[at].next
		if m, ok := t.merges[pairKey{sym[at].id, sym[r].id}]; ok {
			heap.Push(&q, candidate{rank: m.rank, pos: at, left: sym[at].id, right: sym[r].id, id: m.id})
		}
	}
	for i := range sym {
		push(int32(i))
	}
	n := len(sym)
	for q.Len() > 0 {
		c := heap.Pop(&q).(candidate)
		l := &sym[c.pos]
		// Stale: an earlier merge changed or removed one side of this pair.
		if l.id != c.left || l.next < 0 || sym[l.next].id != c.right {
			continue
		}
		r := l.next
		l.id = c.id
		l.next = sym[r].next
		if l.next >= 0 {
			sym[l.next].prev = c.pos
		}
		sym[r].id = -1
		n--
		push(l.prev)
		push(c.pos)
	}
	return n
}

type symbol struct{ id, prev, next int32 }

type candidate struct{ rank, pos, left, right, id int32 }

// candidates is a min-heap by rank, then position.
type candidates []candidate

func (q candidates) Len() int { return len(q) }
func (q candidates) Less(i, j int) bool {
	if q[i].rank != q[j].rank {
		return q[i].rank < q[j].rank
	}
	return q[i].pos < q[j].pos
}
func (q candidates) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *candidates) Push(x any)   { *q = append(*q, x.(candidate)) }
func (q *candidates) Pop() any {
	old := *q
	c := old[len(old)-1]
	*q = old[:len(old)-1]
	return c
}

// shortPiece is the length up to which bpeShort's rescan beats the heap (most pieces are words).
const shortPiece = 32

// bpeShort is bpe for a short piece: rescanning all pairs after each merge costs O(n²) lookups,
// fewer than the heap's allocations when n is small.
func (t *Tokenizer) bpeShort(p string) int {
	var buf [shortPiece]int32
	sym := buf[:len(p)]
	for i := 0; i < len(p); i++ {
		sym[i] = t.byteID[p[i]]
	}
	for len(sym) > 1 {
		best, at := merge{rank: -1}, -1
		for i := 0; i+1 < len(sym); i++ {
			if m, ok := t.merges[pairKey{sym[i], sym[i+1]}]; ok && (best.rank < 0 || m.rank < best.rank) {
				best, at = m, i
			}
		}
		if at < 0 {
			break
		}
		sym[at] = best.id
		sym = append(sym[:at+1], sym[at+2:]...)
	}
	return len(sym)
}
