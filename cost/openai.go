package cost

// ChatMessage is one message of a chat request, for OpenAIMessageTokens.
type ChatMessage struct {
	Role    string
	Content string
	Name    string
}

// OpenAIMessageTokens estimates the prompt tokens of chat messages as the OpenAI cookbook's
// num_tokens_from_messages does for gpt-3.5-turbo-0125, gpt-4-0613 and the gpt-4o family: 3
// tokens per message, the tokens of each value, 1 more for a name, and 3 that prime the reply.
// With the openai rendering's total it reproduces the cookbook's whole-request estimate.
func OpenAIMessageTokens(tok Tokenizer, msgs []ChatMessage) int {
	n := 3
	for _, m := range msgs {
		n += 3 + tok.Count(m.Role) + tok.Count(m.Content)
		if m.Name != "" {
			n += 1 + tok.Count(m.Name)
		}
	}
	return n
}
