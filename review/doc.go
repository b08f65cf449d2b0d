// Package review owns the review context for a diff (`relay review`):
// [Build] turns a parsed diff (package udiff) into the files touched, the
// changed symbols, their callers and callees, the blast radius with the
// tests that reach it, semantic neighbours (retrieve's
// Searcher.Neighbours, at DepthDeep) and the past review comments closest
// to the change; [Context.Markdown] fits it into a token budget, the file
// list included. The review feedback store ([FeedbackStore], feedback.jsonl
// in relay's state directory) keeps accepted and rejected comments on
// repository-relative paths (a damaged line is skipped and reported, never
// fatal, and never joined by the next append), and [SimilarFeedback] picks
// the closest ones by TF-IDF over comment, code and path.
//
// A review memoizes the graph reader for its length (cache.go): a large
// diff asks the same questions many times.
//
// review imports graphdb, retrieve, udiff and internal/lines; none imports it
// back.
package review
