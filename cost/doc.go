// Package cost measures what a tool listing costs in a model's prompt: bytes and tokens, per tool
// and in total, in the form a host renders the tools, with the tokenizer of the model it ships with.
//
// Tokenizers: o200k_base and cl100k_base through github.com/tiktoken-go/tokenizer, whose
// vocabularies are embedded in the binary (nothing is downloaded at run time), and a Hugging
// Face tokenizer.json of byte-level BPE (Qwen3, Llama 3 and 3.1, Mistral Nemo) through cost/hfbpe,
// read from a file the user names (OpenTokenizer; a server offers the files its operator named,
// by name only: Tokenizers). Other tokenizer.json files (SentencePiece Unigram, BPE with byte
// fallback, WordPiece) are described and refused. The built-in encodings read special-token
// text as plain text; a tokenizer.json's added tokens count one each (see Tokenizer.Count).
//
// Renderings (see Renderings for each one's source):
//
//   - wire: the tools/list result as the server sends it (bytes as written);
//   - compact: the tools array as compact JSON, what the reference checker's INFO line counts;
//   - seed-host: one JSON line per tool, as the seed book's host (Qwen3's chat template) shows it;
//   - openai: OpenAI function tools, estimated with the OpenAI cookbook's published constants;
//   - harmony: the TypeScript-like "namespace functions" block of the harmony format (gpt-oss);
//   - anthropic: Anthropic's tool format, plus the tool-use system prompt Anthropic adds per model.
//
// Counts are per tool: each tool's text is tokenized on its own and the listing's total is the
// sum of its tools and the rendering's fixed overhead; per-tool counting is what lets an edit
// re-count only the edited tool. A host tokenizes the whole prompt at once, where a token can
// span the boundary between two tools ("}},{" is one pre-token in JSON), so the per-tool total
// runs about one or two tokens a tool above the whole text's count (0.7% on the GitHub
// listing). Options.Whole also counts the rendering as one text and reports both.
//
// Texts over 32 KiB are tokenized in pieces cut where the encodings' pre-tokenizers always end
// a piece (so the count is unchanged), because the tiktoken splitter and merge are superlinear
// in the length of one pre-token (a run of whitespace, a word without spaces); only text with no
// such place for 256 bytes is cut blindly (see Pieces), so the work is linear in the text.
//
// A Counter caches each tool's cost by its content hash (listing.HashOf) and is safe for
// concurrent use, so one Counter can serve every open workspace of a server.
//
// The cost gate (gate.go, gatefmt.go) compares a report with its baseline's tool by tool and
// holds the change to a limit (ParseLimit, Gate.Check), for a pull request's job summary or comment.
package cost
