package cost

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/tiktoken-go/tokenizer"
	"github.com/tiktoken-go/tokenizer/codec"

	"github.com/tool-workbench/workbench/cost/hfbpe"
)

// Tokenizer counts the tokens of a text. Implementations are safe for concurrent use.
type Tokenizer interface {
	// Name is the encoding's name, such as "o200k_base".
	Name() string
	// Count returns the number of tokens in s. The built-in encodings read special-token text
	// (such as "<|endoftext|>") as ordinary text, as tiktoken's encode_ordinary does; a Hugging
	// Face tokenizer counts each of its added tokens in s (such as Qwen3's "<|im_start|>") as
	// one, as its encode(s, add_special_tokens=False) does and as the model reads a chat
	// template's output.
	Count(s string) int
}

// Encodings are the tokenizers built in, by name.
var Encodings = []string{"o200k_base", "cl100k_base"}

type tiktoken struct {
	name string
	// codec loads the vocabulary on first use: that takes tens of milliseconds, which a command
	// that counts nothing (fix, check --tokenizer approx) would otherwise pay at every start.
	codec func() tokenizer.Codec
}

func (t *tiktoken) Name() string { return t.name }

// Count counts a long text piece by piece (Pieces), in time linear in its length.
func (t *tiktoken) Count(s string) int {
	if len(s) <= longText {
		return t.count(s)
	}
	n := 0
	for _, p := range Pieces(s) {
		n += t.count(p)
	}
	return n
}

// count counts s at once.
func (t *tiktoken) count(s string) int {
	// The codec's default error mode never fails: it tokenizes invalid UTF-8 bytes as they are.
	c := t.codec()
	n, err := c.Count(s)
	if err != nil {
		ids, _, _ := c.Encode(s)
		return len(ids)
	}
	return n
}

// Loading a vocabulary builds large maps; do it once per encoding per process, when first
// counting.
var (
	codecMu sync.Mutex
	codecs  = map[string]*tiktoken{}
)

// ErrUnknownTokenizer is a tokenizer name that is neither a built-in encoding nor a file.
var ErrUnknownTokenizer = errors.New("unknown tokenizer")

// ErrHuggingFaceUnsupported is a Hugging Face tokenizer.json that this build cannot count with.
var ErrHuggingFaceUnsupported = errors.New("this kind of Hugging Face tokenizer.json is not supported")

// NewTokenizer returns a built-in encoding by name: "o200k_base" or "cl100k_base".
func NewTokenizer(name string) (Tokenizer, error) {
	// The codec package's constructors cannot fail, unlike tokenizer.Get, which also takes
	// names this package does not offer.
	var load func() *codec.Codec
	switch name {
	case "o200k_base":
		load = codec.NewO200kBase
	case "cl100k_base":
		load = codec.NewCl100kBase
	default:
		return nil, fmt.Errorf("%w %q: use one of %s, or the path of a tokenizer.json", ErrUnknownTokenizer, name, strings.Join(Encodings, ", "))
	}
	codecMu.Lock()
	defer codecMu.Unlock()
	if t, ok := codecs[name]; ok {
		return t, nil
	}
	t := &tiktoken{name: name, codec: sync.OnceValue(func() tokenizer.Codec { return load() })}
	codecs[name] = t
	return t, nil
}

// OpenTokenizer returns the built-in encoding named spec, or the Hugging Face tokenizer.json
// that spec names as PATH or NAME=PATH. The file's tokenizer is named NAME, else "hf:" and the
// name of the file's directory (hf:Qwen3-8B for Qwen3-8B/tokenizer.json), or of the file when
// it is not called tokenizer.json. Byte-level BPE files (Qwen3, Llama 3 and 3.1, Mistral Nemo;
// see cost/hfbpe) are counted; any other (SentencePiece Unigram, BPE with byte fallback such
// as Llama 2 or Mistral 7B v0.3, WordPiece) is described and refused with
// ErrHuggingFaceUnsupported, since a wrong count is worse than none.
//
// A file is loaded once per process (about a second for Qwen3's 11 MB) while its size and
// modification time stay the same.
func OpenTokenizer(spec string) (Tokenizer, error) {
	for _, e := range Encodings {
		if spec == e {
			return NewTokenizer(spec)
		}
	}
	name, path := tokenizerSpec(spec)
	if !strings.ContainsAny(path, `/\`) && !strings.HasSuffix(path, ".json") {
		return NewTokenizer(spec)
	}
	return openHuggingFace(name, path)
}

// tokenizerSpec splits NAME=PATH, or names a PATH after its directory or file.
func tokenizerSpec(spec string) (name, path string) {
	if n, p, ok := strings.Cut(spec, "="); ok && validTokenizerName(n) {
		return n, p
	}
	base := filepath.Base(spec)
	if base == "tokenizer.json" {
		if dir := filepath.Base(filepath.Dir(spec)); dir != "." && dir != string(filepath.Separator) {
			base = dir
		}
	}
	return "hf:" + strings.TrimSuffix(base, ".json"), spec
}

// validTokenizerName reports whether n can name a tokenizer: a short word of letters, digits
// and . _ - : (so that it reads well in a report and in a URL's query, and is no path).
func validTokenizerName(n string) bool {
	if n == "" || len(n) > 64 {
		return false
	}
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-:", r)) {
			return false
		}
	}
	return true
}

// hfFile is a loaded tokenizer.json and what identified the file when it was read.
type hfFile struct {
	size  int64
	mtime time.Time
	tok   Tokenizer
}

// maxHFFiles bounds the tokenizer.json files kept loaded (each keeps 12-17 MB); a process
// opens the few its flags name.
const maxHFFiles = 8

var (
	hfMu    sync.Mutex
	hfFiles = map[string]hfFile{} // by absolute path and name: "NAME\x00PATH"
)

// openHuggingFace loads path as a tokenizer named name, or returns the one loaded before.
func openHuggingFace(name, path string) (Tokenizer, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("reading tokenizer file: %w", err)
	}
	fi, err := os.Stat(abs)
	if err != nil {
		return nil, fmt.Errorf("reading tokenizer file: %w", err)
	}
	key := name + "\x00" + abs
	hfMu.Lock()
	defer hfMu.Unlock()
	if f, ok := hfFiles[key]; ok && f.size == fi.Size() && f.mtime.Equal(fi.ModTime()) {
		return f.tok, nil
	}
	b, err := readLimited(abs, maxTokenizerFile)
	if err != nil {
		return nil, fmt.Errorf("reading tokenizer file: %w", err)
	}
	info, err := InspectHuggingFace(b)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	tok, err := hfbpe.Load(name, b)
	if errors.Is(err, hfbpe.ErrUnsupported) {
		return nil, fmt.Errorf("%s (%s): %w: %v (for another model, count with o200k_base or cl100k_base)",
			path, info, ErrHuggingFaceUnsupported, err)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(hfFiles) >= maxHFFiles {
		clear(hfFiles)
	}
	var out Tokenizer = tok
	if tok.SpaceCuts() {
		out = hfCutter{tok}
	}
	hfFiles[key] = hfFile{size: fi.Size(), mtime: fi.ModTime(), tok: out}
	return out, nil
}

// hfCutter is a tokenizer.json whose pre-tokenizer always ends a piece before a space between
// two ASCII letters (hfbpe.SpaceCuts), so that the counter can count a listing's whole text
// tool by tool.
type hfCutter struct{ *hfbpe.Tokenizer }

func (hfCutter) Cut(s string, i int) bool { return SpaceCut(s, i) }

// HuggingFaceInfo describes a tokenizer.json: its model type and pre-tokenizer, and its vocabulary size.
type HuggingFaceInfo struct {
	Model        string
	PreTokenizer string
	Vocab        int
	Merges       int
}

func (h HuggingFaceInfo) String() string {
	// Quoted: the names come from the file and may hold anything.
	return fmt.Sprintf("model %q, pre-tokenizer %q, %d vocabulary entries, %d merges", h.Model, h.PreTokenizer, h.Vocab, h.Merges)
}

// maxTokenizerFile bounds a tokenizer.json read (Qwen3's is about 11 MB, Mistral Nemo's 17 MB).
const maxTokenizerFile = hfbpe.MaxFileBytes

// readLimited reads a file of at most max bytes, and says so when it is larger.
func readLimited(path string, max int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("%s is over %d MiB; a tokenizer.json is far smaller", path, max>>20)
	}
	return b, nil
}

// InspectHuggingFace reads the outline of a Hugging Face tokenizer.json and says what is wrong
// with it if it is not one.
func InspectHuggingFace(b []byte) (HuggingFaceInfo, error) {
	var doc struct {
		Model *struct {
			Type   string          `json:"type"`
			Vocab  json.RawMessage `json:"vocab"`
			Merges json.RawMessage `json:"merges"`
		} `json:"model"`
		PreTokenizer *struct {
			Type          string `json:"type"`
			PreTokenizers []struct {
				Type string `json:"type"`
			} `json:"pretokenizers"`
		} `json:"pre_tokenizer"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		return HuggingFaceInfo{}, fmt.Errorf("not a tokenizer.json: %w", err)
	}
	if doc.Model == nil || doc.Model.Type == "" {
		return HuggingFaceInfo{}, errors.New(`not a tokenizer.json: it has no "model" object with a "type"`)
	}
	info := HuggingFaceInfo{Model: doc.Model.Type, PreTokenizer: "none"}
	if len(doc.Model.Vocab) > 0 {
		var vocab map[string]json.RawMessage
		if err := json.Unmarshal(doc.Model.Vocab, &vocab); err != nil {
			var list []json.RawMessage // Unigram models list [piece, score] pairs
			if err2 := json.Unmarshal(doc.Model.Vocab, &list); err2 != nil {
				return HuggingFaceInfo{}, fmt.Errorf(`not a tokenizer.json: "model.vocab" is neither an object nor a list: %w`, err)
			}
			info.Vocab = len(list)
		} else {
			info.Vocab = len(vocab)
		}
	}
	if len(doc.Model.Merges) > 0 {
		var merges []json.RawMessage
		if err := json.Unmarshal(doc.Model.Merges, &merges); err != nil {
			return HuggingFaceInfo{}, fmt.Errorf(`not a tokenizer.json: "model.merges" is not a list: %w`, err)
		}
		info.Merges = len(merges)
	}
	if p := doc.PreTokenizer; p != nil {
		info.PreTokenizer = p.Type
		if len(p.PreTokenizers) > 0 {
			parts := make([]string, len(p.PreTokenizers))
			for i, s := range p.PreTokenizers {
				parts[i] = s.Type
			}
			info.PreTokenizer += "[" + strings.Join(parts, ", ") + "]"
		}
	}
	return info, nil
}
