package cost

import (
	"fmt"
	"slices"
	"strings"
)

// Tokenizers resolves the tokenizer names a server offers: the built-in encodings and the
// Hugging Face tokenizer.json files its operator named at start (workbench serve
// --tokenizer-file NAME=PATH). A request names a tokenizer, never a file, so the server reads no
// path but these. A nil *Tokenizers offers the built-in encodings only. It is safe for
// concurrent use.
type Tokenizers struct {
	files map[string]Tokenizer
	names []string // the built-in encodings, then the files' names as given
}

// maxTokenizerFiles bounds the files one server loads (each keeps 12-17 MB).
const maxTokenizerFiles = 8

// NewTokenizers loads each NAME=PATH of specs (OpenTokenizer), so that a file it cannot count
// with stops the server at start rather than failing its first request.
func NewTokenizers(specs []string) (*Tokenizers, error) {
	if len(specs) > maxTokenizerFiles {
		return nil, fmt.Errorf("%d tokenizer files: at most %d are loaded", len(specs), maxTokenizerFiles)
	}
	r := &Tokenizers{files: map[string]Tokenizer{}, names: slices.Clone(Encodings)}
	for _, spec := range specs {
		name, path, ok := strings.Cut(spec, "=")
		if !ok || !validTokenizerName(name) || path == "" {
			return nil, fmt.Errorf("%q: give NAME=PATH, NAME of letters, digits and . _ - : (at most 64), PATH a tokenizer.json", spec)
		}
		if slices.Contains(r.names, name) || name == "approx" {
			return nil, fmt.Errorf("%q: the name %s is taken; choose another", spec, name)
		}
		tok, err := openHuggingFace(name, path)
		if err != nil {
			return nil, err
		}
		r.files[name] = tok
		r.names = append(r.names, name)
	}
	return r, nil
}

// Names are the tokenizers offered, the built-in encodings first.
func (r *Tokenizers) Names() []string {
	if r == nil {
		return Encodings
	}
	return r.names
}

// Get returns the tokenizer called name; an unknown name is refused with the known ones.
func (r *Tokenizers) Get(name string) (Tokenizer, error) {
	if r != nil {
		if t, ok := r.files[name]; ok {
			return t, nil
		}
	}
	if slices.Contains(Encodings, name) {
		return NewTokenizer(name)
	}
	return nil, fmt.Errorf("%w %q: use one of %s", ErrUnknownTokenizer, name, strings.Join(r.Names(), ", "))
}
