// Tokens per second for o200k_base on the GitHub listing's text: tiktoken-go (through the cost
// package's benchmark) against js-tiktoken, in the same run on the same machine.
//
//   node tools/tokref/bench.mjs        (from the module root, after npm install in tools/tokref)
//
// It runs `go test ./cost -run '^$' -bench '^BenchmarkTokenizeGitHub$' -benchtime 3s`, reads its
// tokens/s metric, then encodes the same file with js-tiktoken for about 3 s, and prints both
// rates, their ratio, and whether the two counted the same number of tokens.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { getEncoding } from "js-tiktoken";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const file = resolve(root, "..", "shared", "listings", "real", "github-mcp-server.json");
const text = readFileSync(file, "utf8");

const out = execFileSync("go", ["test", "./cost", "-count=1", "-run", "^$", "-bench", "^BenchmarkTokenizeGitHub$", "-benchtime", "3s"], {
  cwd: root,
  encoding: "utf8",
});
const line = out.split("\n").find((l) => l.startsWith("BenchmarkTokenizeGitHub"));
const goRate = Number(/([\d.]+) tokens\/s/.exec(line)?.[1]);
const goTokens = Number(/([\d.]+) tokens(\s|$)/.exec(line)?.[1]);
if (!goRate) throw new Error(`no tokens/s in the go benchmark's output:\n${out}`);

const enc = getEncoding("o200k_base");
const jsTokens = enc.encode(text, [], []).length; // warm-up and count
let runs = 0;
const start = process.hrtime.bigint();
let elapsed = 0;
while (elapsed < 3) {
  enc.encode(text, [], []);
  runs++;
  elapsed = Number(process.hrtime.bigint() - start) / 1e9;
}
const jsRate = (jsTokens * runs) / elapsed;

console.log(`text: ${file} (${Buffer.byteLength(text)} bytes)`);
console.log(`go  tiktoken-go  o200k_base: ${Math.round(goRate)} tokens/s (${goTokens} tokens)`);
console.log(`js  js-tiktoken  o200k_base: ${Math.round(jsRate)} tokens/s (${jsTokens} tokens, ${runs} runs)`);
console.log(`ratio go/js: ${(goRate / jsRate).toFixed(2)}`);
console.log(`same count: ${goTokens === jsTokens}`);
