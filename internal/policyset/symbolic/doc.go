// Package symbolic decides questions about policy sets for every request,
// not a sample: is there a request that one set decides X and another Y?
// Per activity type it compiles the policies involved into one circuit
// over an abstract request (the classes of each value the policies read,
// a bounded number of list elements, the keywords a request of the type
// can carry), and asks a SAT solver. An unsatisfiable question is a proof
// that no request exists; a satisfiable one gives a model, rebuilt as a
// concrete request and decided by policyset.Decide before anything is
// said of it. A witness that does not decide as claimed came from an
// over-approximated construct (a CronSpan naming days of the month or
// months, a value only an uploaded ABI types where no comparison with
// constants of one kind types it, a comparison of two of the request's
// values other than two approvers' ids or two whole strings that are no
// ids or tags, a count past its list's slots that is not counted by
// class), and is reported as "not proved", never as a fact.
//
// The encoding is a second statement of the engine's semantics; the
// differential test (random policy sets, every request of a small domain
// enumerated and decided) keeps the two equal.
package symbolic
