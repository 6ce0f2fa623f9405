// Package drafting helps write tool descriptions with a model and proves each change on tasks
// before anyone accepts it: suggested rewrites of one tool scored at once (findings, tokens,
// the word-overlap ranker on every task, optionally a model run), proposed tasks that never
// name their tool, a six-dimension rubric per tool (with an offline score from the findings when
// no endpoint is configured), and an improvement loop that keeps a rewrite only when training
// tasks gain and held-out tasks lose nothing.
//
// Every model call goes through a Model (a *runner.Client in production: bounded concurrency,
// retries, timeouts, key scrubbing) and a Budget that refuses calls past its limit; a Recorder
// keeps each exchange so that a recording replays the whole session with no key. Prompts carry
// a JSON Brief, answers are JSON parsed with bounds, and text a model writes is data: it is
// scored, diffed and marked, never trusted.
package drafting
