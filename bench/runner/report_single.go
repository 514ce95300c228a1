package main

import (
	"context"
	"fmt"
	"slices"
)

// A single create is what batching could slow down most: it waits for
// others that never come. singleCreates times an apply of one policy, with
// batching by default (which sends it alone here: no approval is needed),
// always batched and unbatched, at each latency the policy runs at.

// singleNames are the configurations a single create is timed in.
var singleNames = []string{"policy", "policy-batched", "policy-nobatch"}

// singleCreates runs singleNames with N = 1 at each non-zero
// latency, o.runs times each, and returns the results (nil unless policy
// is selected).
func singleCreates(ctx context.Context, t *tools, o *options) ([]*result, error) {
	if !o.configs["policy"] {
		return nil, nil
	}
	var out []*result
	for r := range o.runs {
		for _, l := range o.latencies[1:] {
			for _, name := range singleNames {
				c := configurations[slices.IndexFunc(configurations, func(c configuration) bool { return c.name == name })]
				c.latency = l
				res := runOne(ctx, t, c, 1, r, o)
				if res.err != nil {
					return nil, fmt.Errorf("%s N=1 run %d: %w", c.label(), r+1, res.err)
				}
				out = append(out, res)
			}
		}
	}
	return out, nil
}

// medianOf is the median apply wall time of the results of label.
func medianOf(results []*result, label string) (float64, bool) {
	var v []float64
	for _, res := range results {
		if res.err == nil && res.cfg.label() == label && res.phases["apply"] != nil {
			v = append(v, res.phases["apply"].wall)
		}
	}
	return median(v), len(v) > 0
}

// singleCreateTable is the report's section on them.
func (r *reportWriter) singleCreateTable() {
	if len(r.singles) == 0 {
		return
	}
	r.printf("\n## A single create\n\nAn apply of one policy (N = 1), %d run(s): batching by default (`policy`, which sends it alone, since it needs no approval), always batched (`policy-batched`, which waits up to 25 ms for others) and unbatched (`policy-nobatch`). Wall time in seconds, median (min–max).\n\n", r.o.runs)
	r.printf("| configuration | apply | submits |\n|---|---|---|\n")
	for _, l := range r.latencies {
		for _, name := range singleNames {
			label := name + "@" + l.String()
			var v []float64
			subs := 0
			for _, res := range r.singles {
				if res.cfg.label() == label {
					v = append(v, res.phases["apply"].wall)
					subs = sumPrefix(res.phases["apply"].counts, "submit/")
				}
			}
			if len(v) == 0 {
				continue
			}
			r.printf("| %s | %.2f (%.2f–%.2f) | %d |\n", label, median(v), slices.Min(v), slices.Max(v), subs)
		}
	}
}
