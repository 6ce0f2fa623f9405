// Reference token counts for the cost package's tests.
//
//   node tools/tokref/gen.mjs        (from the module root, after npm install in tools/tokref)
//
// Runs `go test ./cost -run TestTokensMatchReference -dump FILE` to collect every text the
// renderings tokenize for the corpus (../shared/listings/real and the reference fixtures), and
// each one-text rendering whole (wire, compact, harmony, anthropic: the text a host tokenizes,
// uncut, whose count the Go total must equal), counts each with js-tiktoken (o200k_base and cl100k_base, special-token text as ordinary text,
// as tiktoken-go does), and writes cost/testdata/reference_tokens.json keyed by the first 16 hex
// digits of each text's SHA-256. The Go test then needs no node.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { getEncoding } from "js-tiktoken";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const dumpFile = join(mkdtempSync(join(tmpdir(), "tokref-")), "texts.json");
execFileSync("go", ["test", "./cost", "-count=1", "-run", "^TestTokensMatchReference$", "-dump", dumpFile], {
  cwd: root,
  stdio: ["ignore", "inherit", "inherit"],
});
const { texts } = JSON.parse(readFileSync(dumpFile, "utf8"));
const key = (s) => createHash("sha256").update(s, "utf8").digest("hex").slice(0, 16);
const pkg = JSON.parse(readFileSync(join(root, "tools/tokref/node_modules/js-tiktoken/package.json"), "utf8"));
const counts = {};
for (const name of ["o200k_base", "cl100k_base"]) {
  const enc = getEncoding(name);
  const out = {};
  for (const s of texts) out[key(s)] = enc.encode(s, [], []).length;
  counts[name] = out;
}
const file = join(root, "cost/testdata/reference_tokens.json");
writeFileSync(file, JSON.stringify({ generator: `js-tiktoken ${pkg.version} via tools/tokref/gen.mjs`, texts: texts.length, counts }) + "\n");
console.log(`wrote ${file}: ${texts.length} texts, 2 encodings`);
