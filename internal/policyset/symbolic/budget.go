package symbolic

import (
	"math"
	"sync/atomic"
	"time"
)

// A Budget bounds the time that the searches of many questions take
// together. QueryGuard bounds one search; a change asks many questions of
// each type it touches, and a plan asks those of every change, so a
// budget bounds the sum: past it, or past one it is within, a question
// that needs a search is "not proved", naming the budget. It counts the
// searches' time alone (gophersat's; most questions propagation answers
// at once), not the plan's, which waits on the network and on Terraform.
type Budget struct {
	limit  time.Duration
	spent  atomic.Int64 // nanoseconds
	what   string
	parent *Budget
}

// NewBudget is a budget of limit, named what ("this plan",
// "ACTIVITY_TYPE_SIGN_TRANSACTION_V2 of this change"), within parent (nil
// for none).
func NewBudget(limit time.Duration, what string, parent *Budget) *Budget {
	return &Budget{limit: limit, what: what, parent: parent}
}

// left is the time b and the budgets it is within leave, and the name of
// the one that leaves the least.
func (b *Budget) left() (time.Duration, string) {
	least, what := time.Duration(math.MaxInt64), ""
	for x := b; x != nil; x = x.parent {
		if l := x.limit - time.Duration(x.spent.Load()); l < least {
			least, what = l, x.what
		}
	}
	return least, what
}

// spend counts d against b and the budgets it is within.
func (b *Budget) spend(d time.Duration) {
	for x := b; x != nil; x = x.parent {
		x.spent.Add(int64(d))
	}
}

// searchLimit is how long the circuit's next search may run, or why it
// may not run at all.
func (c *circuit) searchLimit() (time.Duration, string) {
	if c.budget == nil {
		return QueryGuard, ""
	}
	left, what := c.budget.left()
	if left <= 0 {
		return 0, "the review's time budget for " + what + " ran out"
	}
	return min(QueryGuard, left), ""
}
