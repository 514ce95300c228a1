package review

import "time"

// The review's questions are each bounded by symbolic.QueryGuard; these
// bound their searches together, so that one change, or a plan of a
// thousand, cannot take hours where the solver meets questions it cannot
// answer quickly. Past either, the questions that need a search are "not
// proved". Most questions never reach the solver (3 in all of the review
// package's benchmarks), so neither budget binds a plan of sane
// policies. Variables, for the tests that lower them.
var (
	// TypeBudget is the search time of one activity type of one change's
	// report.
	TypeBudget = 5 * time.Second
	// PlanBudget is the search time of every question of one command (an
	// Org), or of one policy_changes call.
	PlanBudget = 30 * time.Second
)
