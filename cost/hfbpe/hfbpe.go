// Package hfbpe counts tokens with a Hugging Face tokenizer.json whose model is byte-level BPE
// (Qwen3, Llama 3): added tokens, normalizer, pre-tokenizer regex, GPT-2 byte mapping, merges by
// rank. Work in progress (issue 19): checked against @lenml/tokenizers, not yet wired into cost.
package hfbpe

import (
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	regexp2 "github.com/dlclark/regexp2/v2"
	"golang.org/x/text/unicode/norm"
)

// ErrUnsupported is a tokenizer.json this package does not count with (another model type, a
// normalizer or pre-tokenizer it does not implement); counting it anyway would give wrong numbers.
var ErrUnsupported = errors.New("unsupported tokenizer.json")

// gpt2Pattern is the pre-tokenizer regex of a ByteLevel pre-tokenizer with use_regex true.
const gpt2Pattern = `'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+`

type pairKey struct{ a, b int32 }
type merge struct{ rank, id int32 }

// Tokenizer counts tokens of a byte-level BPE tokenizer.json. It is safe for concurrent use.
type Tokenizer struct {
	name         string
	nfc          bool
	split        *regexp2.Regexp
	added        *regexp.Regexp // nil when the file has no added tokens
	vocab        map[string]int32
	merges       map[pairKey]merge
	byteID       [256]int32
	byteChar     [256]rune
	ignoreMerges bool

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
		Type         string           `json:"type"`
		Vocab        map[string]int32 `json:"vocab"`
		Merges       json.RawMessage  `json:"merges"`
		IgnoreMerges bool             `json:"ignore_merges"`
		ByteFallback bool             `json:"byte_fallback"`
		Dropout      *float64         `json:"dropout"`
	} `json:"model"`
}

type preJSON struct {
	Type           string    `json:"type"`
	Pretokenizers  []preJSON `json:"pretokenizers"`
	Pattern        struct{ Regex, String *string }
	Behavior       string `json:"behavior"`
	Invert         bool   `json:"invert"`
	AddPrefixSpace bool   `json:"add_prefix_space"`
	UseRegex       bool   `json:"use_regex"`
}

// Load reads a tokenizer.json's bytes. name labels the tokenizer in reports.
func Load(name string, b []byte) (*Tokenizer, error) {
	var f fileJSON
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fmt.Errorf("reading tokenizer.json: %w", err)
	}
	m := f.Model
	if m.Type != "BPE" || m.ByteFallback || (m.Dropout != nil && *m.Dropout != 0) {
		return nil, fmt.Errorf("%w: model %q (byte fallback %v): only byte-level BPE (Qwen3, Llama 3) is counted", ErrUnsupported, m.Type, m.ByteFallback)
	}
	t := &Tokenizer{name: name, vocab: m.Vocab, ignoreMerges: m.IgnoreMerges, cache: map[string]int{}}
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
	// Hugging Face runs Oniguruma; .NET syntax (regexp2's default) has the same \p classes,
	// Unicode \s and the look-ahead these patterns need.
	if t.split, err = regexp2.Compile(pattern, regexp2.None); err != nil {
		return nil, fmt.Errorf("%w: pre-tokenizer regex %q: %v", ErrUnsupported, pattern, err)
	}
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
	case p.Type == "ByteLevel" && p.UseRegex && !p.AddPrefixSpace:
		return gpt2Pattern, nil
	case p.Type == "Sequence" && len(p.Pretokenizers) == 2:
		s, bl := p.Pretokenizers[0], p.Pretokenizers[1]
		if s.Type == "Split" && s.Pattern.Regex != nil && s.Behavior == "Isolated" && !s.Invert &&
			bl.Type == "ByteLevel" && !bl.UseRegex && !bl.AddPrefixSpace {
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

// loadAdded builds the matcher of added tokens, which Hugging Face splits off before anything
// else and counts as one token each (special or not).
func (t *Tokenizer) loadAdded(f fileJSON) error {
	var alts []string
	for _, a := range f.AddedTokens {
		if a.Normalized || a.Lstrip || a.Rstrip || a.SingleWord {
			return fmt.Errorf("%w: added token %q uses normalized/lstrip/rstrip/single_word, not implemented", ErrUnsupported, a.Content)
		}
		if a.Content != "" {
			alts = append(alts, a.Content)
		}
	}
	if len(alts) == 0 {
		return nil
	}
	// Longest first: Go's alternation is leftmost-first, Hugging Face's matcher leftmost-longest.
	sort.Slice(alts, func(i, j int) bool { return len(alts[i]) > len(alts[j]) })
	for i := range alts {
		alts[i] = regexp.QuoteMeta(alts[i])
	}
	t.added = regexp.MustCompile(strings.Join(alts, "|"))
	return nil
}

// Name is the label given to Load.
func (t *Tokenizer) Name() string { return t.name }

// Count returns the number of tokens Hugging Face's encode(s, add_special_tokens=false) gives.
func (t *Tokenizer) Count(s string) int {
	if t.added == nil {
		return t.countPlain(s)
	}
	n, at := 0, 0
	for _, loc := range t.added.FindAllStringIndex(s, -1) {
		n += t.countPlain(s[at:loc[0]]) + 1
		at = loc[1]
	}
	return n + t.countPlain(s[at:])
}

// countPlain counts text without added tokens.
func (t *Tokenizer) countPlain(s string) int {
	if s == "" {
		return 0
	}
	if t.nfc {
		s = norm.NFC.String(s)
	}
	n, at := 0, 0
	m, err := t.split.FindStringMatch(s)
	// Isolated: matches and the text between them are pieces. regexp2 indexes runes.
	rs := []rune(s)
	for err == nil && m != nil {
		if m.RuneIndex > at {
			n += t.countPiece(string(rs[at:m.RuneIndex]))
		}
		n += t.countPiece(m.String())
		at = m.RuneIndex + m.RuneLength
		m, err = t.split.FindNextMatch(m)
	}
	if at < len(rs) {
		n += t.countPiece(string(rs[at:]))
	}
	return n
}

const maxCache = 1 << 16

// countPiece counts one pre-token.
func (t *Tokenizer) countPiece(p string) int {
	if len(p) == 1 {
		return 1
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
