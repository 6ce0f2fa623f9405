package lint

// fixDoc is the repair a rule declares: its kind and one line on what it does or why there is
// none.
type fixDoc struct {
	kind FixKind
	note string
}

// personWords is the reason most description rules have no repair: the workbench never inserts
// placeholder text.
const personWords = "needs words only a person or a model can supply; the workbench never inserts placeholder text"

// fixDocs declares the repair of every rule, in one place so that the repairs and their docs
// are read together (register copies them onto the rules).
var fixDocs = map[string]fixDoc{
	// annotations
	"annotations":                      {FixSuggested, "adds the hint the name's verb implies (readOnlyHint: true for get, list, search, read…; destructiveHint: true for delete, remove…), each hint its own repair"},
	"annotations-assumed-destructive":  {FixSuggested, "sets destructiveHint from the name's verb: true for delete, remove…, false for create, add…"},
	"annotations-contradict":           {FixSuggested, "flips the hint the name's verb contradicts (readOnlyHint to false on a tool whose name writes); a hint that is not a boolean needs a person"},
	"annotations-destructive-unmarked": {FixSuggested, "sets destructiveHint to true, as the name says the tool destroys"},
	"annotations-missing":              {FixSuggested, "adds the hints the name's verb implies (readOnlyHint: true for get, list, search, read…; destructiveHint: true for delete, remove…), each hint its own repair"},
	"annotations-readonly-writes":      {FixSuggested, "sets readOnlyHint to false, as the name says the tool writes"},
	// description
	"description":                  {FixNone, "a too-short description " + personWords},
	"description-docstring-indent": {FixSafe, "removes the indentation every continuation line shares; the words and line breaks stay"},
	"description-example-real":     {FixNone, "only a person knows whether the value is real and which made-up value fits; the workbench never inserts placeholder text"},
	"description-markup":           {FixNone, "whether a tag is markup to drop or text the model needs (<id>) is a person's call"},
	"description-repeats-schema":   {FixNone, "which words repeat the schema and which add meaning is a person's judgement"},
	"description-sibling-unnamed":  {FixNone, "saying how the two tools differ " + personWords},
	"description-starts-example":   {FixNone, "an opening that says what the tool does " + personWords},
	"description-too-long":         {FixNone, "which words to cut is a person's or a model's call"},
	"description-whitespace":       {FixSafe, "trims the leading and trailing whitespace of the description or title"},
	"near-duplicate":               {FixNone, "telling the two tools apart " + personWords},
	// listing
	"list-complete":          {FixNone, "the missing pages must be fetched from the server"},
	"listing-token-budget":   {FixNone, "which tools to drop, merge or shorten is a design decision"},
	"listing-too-many-tools": {FixNone, "which tools to drop or merge is a design decision"},
	// naming
	"name-case-collision":   {FixNone, "renaming one of the two to the other's style makes them equal; a name that tells them apart needs a person"},
	"name-collision-merged": {FixNone, "which server's tool to rename, and to what, is the host's or a person's choice"},
	"name-generic":          {FixNone, "a name that says which object the tool works on " + personWords},
	"name-spec":             {FixSuggested, "renames the tool to a name both the specification (1-128 of A-Z a-z 0-9 _ - .) and OpenAI (^[a-zA-Z0-9_-]{1,64}$) accept, in the listing's dominant style; mentions in other descriptions and task expects follow"},
	"name-style":            {FixSuggested, "renames the tool to the listing's dominant naming style; mentions in other descriptions and task expects follow"},
	"name-unique":           {FixNone, "which of the two tools keeps the name, and what the other is called, is a person's call"},
	// output
	"output-schema-missing": {FixNone, "the result's shape is known only to the server's author"},
	"output-schema-root":    {FixNone, "wrapping the result changes what the server must return; its code changes with it"},
	"output-schema-wrapped": {FixNone, "unwrapping the result changes the structuredContent the server returns"},
	// schema
	"input-schema":               {FixNone, "the tool's arguments are known only to the server's author"},
	"json-duplicate-key":         {FixSafe, "drops the earlier occurrences of a repeated key and keeps the last, the value Go's, Python's and JavaScript's JSON parsers keep"},
	"no-params-closed":           {FixSuggested, "adds additionalProperties: false; the tool then refuses arguments it used to accept"},
	"param-default-promised":     {FixSuggested, "adds the default the description promises to the parameter's schema, when it validates against that schema"},
	"param-undescribed":          {FixNone, "a parameter's description " + personWords},
	"params-described":           {FixNone, "a parameter's description " + personWords},
	"params-opaque":              {FixNone, "the object's properties are known only to the server's author"},
	"params-required":            {FixSafe, "adds \"required\": [] where the key is absent: absent already means every parameter is optional"},
	"schema-invalid":             {FixNone, "what an invalid schema meant is a person's call"},
	"schema-limit":               {FixNone, "shrinking a schema changes what it accepts"},
	"schema-ref-external":        {FixNone, "inlining the referenced schema means fetching it, which the workbench never does"},
	"schema-required-undeclared": {FixNone, "whether the name is a typo, a missing property or a stale entry is a person's call"},
	"schema-root-object":         {FixNone, "another root type changes what the tool accepts"},
	"schema-value-invalid":       {FixNone, "whether the value or its schema is wrong is a person's call"},
	// security
	"header-sensitive":      {FixSuggested, "removes x-mcp-header from the parameter: its value then travels only in the request body"},
	"hidden-unicode":        {FixSafe, "removes the invisible, bidirectional-control and tag characters from descriptions and titles; in names, keys and values, where removing them changes what the tool accepts, a person decides"},
	"instructions-to-model": {FixSuggested, "removes the sentence that gives the model orders"},
	"promotional-wording":   {FixSuggested, "removes the sentence that promotes the tool"},
	"secret-in-text":        {FixNone, "the credential must be revoked where it was issued; deleting it from the text does not make it secret again"},
	"sensitive-path":        {FixNone, "whether the path belongs in the text is a person's call"},
	"text-url-or-email":     {FixNone, "whether the address belongs in the text is a person's call"},
	"tool-shadowing":        {FixSuggested, "removes the sentence that sets rules for another tool"},
	// selection
	"select": {FixNone, "words that separate the expected tool from its rivals " + personWords},
}
