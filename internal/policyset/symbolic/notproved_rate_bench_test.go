package symbolic

import (
	"testing"
)

// BenchmarkNotProvedRate counts, over 1,000 random changes of the
// differential test's generator (its default atoms, then with approvers'
// ids compared, with the sender compared, and with eth.tx.data read
// whole, by slices and by index, a quarter each), how many of
// the report's questions (one per change: Regions over the type) gave a
// NOT_PROVED row, and how many rows were NOT_PROVED. The figures go in
// bench/RESULTS.md (issue 50, item 7); they should only fall. Run with
// -benchtime=1x: one iteration asks all 1,000.
func BenchmarkNotProvedRate(b *testing.B) {
	defer func() { diffOfficers, diffSends, diffSlices = false, false, false }()
	for range b.N {
		changes, withNotProved, rows, notProved := 0, 0, 0, 0
		for seed := uint64(1); seed <= 1000; seed++ {
			diffOfficers, diffSends, diffSlices = seed%4 == 1, seed%4 == 2, seed%4 == 3
			g := newGen(seed)
			before, after := g.policySets()
			rs, _, _ := Regions(diffType, before, after, changedVersions(before, after), nil)
			changes++
			any := false
			for _, r := range rs {
				rows++
				if r.NotProved != "" {
					notProved++
					any = true
				}
			}
			if any {
				withNotProved++
			}
		}
		b.ReportMetric(float64(withNotProved)*1000/float64(changes), "not-proved-changes/1000")
		b.ReportMetric(float64(notProved), "not-proved-rows")
		b.ReportMetric(float64(rows), "rows")
	}
}
