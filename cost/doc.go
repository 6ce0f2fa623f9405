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
//   - qwen3, llama3.1, mistral: the prompt each model's own chat template writes for one empty
//     user message with the tools (Qwen3's <tools> block, Llama 3.1's indented JSON in the first
//     user message, Mistral Nemo's [AVAILABLE_TOOLS]), special tokens as text; checked byte for
//     byte against the templates (render_chat.go).
//
// The total is the exact count of what a host tokenizes. A rendering that is one text (wire,
// compact, harmony, anthropic: its frame built by separated) is counted as that one text,
// prefix + tool_0 + separator + ... + suffix, plus the frame's tokens outside it (special
// tokens, Anthropic's system prompt); the GitHub listing's compact rendering is 35,274 o200k
// tokens, where its tools counted one by one add up to 35,506. The openai rendering is the
// cookbook's estimate, whose total adds up estimates; seed-host adds up its lines.
//
// Per-tool figures are an attribution that adds up to the total exactly: each tool counted on
// its own, plus the tokens that form across a boundary when the text is counted whole (usually
// fewer: "}},{" is one pre-token in JSON), charged to the tool after the boundary (the prefix's
// to the first tool, the suffix's to the last), in its syntax part; the frame keeps its texts'
// own counts (Report.Boundary, ToolCost.Boundary). A neighbour's edit can therefore move a tool
// by a token when it changes the text at their common boundary.
//
// The count stays incremental (whole.go): a Cutter tokenizer names places no pre-token
// crosses, judged inside a tool's text alone, so each tool is cut at its first and last such
// place, and the whole text counts as its tools' interiors plus the short junctions between
// them (a tool's tail, the separator, the next tool's head), cached by their text. After an
// edit only the edited tool and its two junctions are tokenized again. A tool with no cut place
// joins its junctions; a tokenizer that is not a Cutter has the whole text counted at once.
//
// Texts over 32 KiB are tokenized in pieces cut where the encodings' pre-tokenizers always end
// a piece (so the count is unchanged), because the tiktoken splitter and merge are superlinear
// in the length of one pre-token (a run of whitespace, a word without spaces); only text with no
// such place for 256 bytes is cut blindly (see Pieces), so the work is linear in the text. Such
// blind cuts fall at the same places whether a text is counted whole or by tools and junctions,
// so the total is still the whole text's count in pieces; against the text counted uncut, a
// blind cut may add a token (measured: 312 tokens over 469 cuts in 120 KB of digits). Real
// listings have no such runs, and their totals equal js-tiktoken's uncut counts.
//
// A Counter caches each tool's cost by its content hash (listing.HashOf) and is safe for
// concurrent use, so one Counter can serve every open workspace of a server.
//
// The cost gate (gate.go, gatefmt.go) compares a report with its baseline's tool by tool and
// holds the change to a limit (ParseLimit, Gate.Check), for a pull request's job summary or comment.
package cost
