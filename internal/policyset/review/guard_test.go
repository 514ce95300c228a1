package review

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// The guards only skip what counts for nothing: an Org that decides every
// request with every policy gives the same reports, findings and breaches.
func TestGuardsChangeNothing(t *testing.T) {
	ps := append(append(oneTypeCorpus(40, 1000), benchCorpus(60, "")...), org()...)
	ps = append(ps, policyset.Policy{ID: "deny-bad", Name: "blocked", Effect: client.EffectDeny,
		Condition: "activity.type == '" + signTx + "' && eth.tx.to in ['0x0000000000000000000000000000000000000003', '0xbad']"})
	changed := oneTypeCorpus(40, 3000)
	var changes []Change
	for k := range changed {
		changes = append(changes, Change{Before: &ps[k], After: &changed[k]})
	}
	changes = append(changes, changeOf(ps, 45, 7_000_000_000_000_000_000), Change{Before: &ps[len(ps)-1]},
		Change{After: &policyset.Policy{ID: "new", Effect: client.EffectAllow, Condition: "eth.tx.to == '0x0000000000000000000000000000000000000005'"}})
	controls := []Control{{Name: "never alone", ActivityTypes: []string{signTx}, AtMost: AtMostConsensus}}
	run := func(noGuards bool) string {
		o := NewOrg(ps)
		o.noGuards = noGuards
		var out string
		for _, c := range changes {
			out += o.Report(c).Detail(1000) + "\n"
			for _, f := range o.Findings(c) {
				out += f.Kind + f.Detail + "\n"
			}
			for _, b := range o.CheckControls(c, controls) {
				out += fmt.Sprintln(b.Control.Name, b.Already, b.Row.Before, b.Row.After, b.Row.Example, b.Row.Words)
			}
		}
		return out
	}
	got, want := run(false), run(true)
	t.Logf("%d lines, %d breaches, %d rows", strings.Count(got, "\n"), strings.Count(got, "never alone"), strings.Count(got, "OUTCOME_"))
	if got != want {
		gl, wl := strings.Split(got, "\n"), strings.Split(want, "\n")
		for i := range gl {
			if i < len(wl) && gl[i] != wl[i] {
				t.Errorf("guards change the results, line %d:\n%.3000s\nwant\n%.3000s", i, gl[i], wl[i])
				break
			}
		}
	}
	if gs := guardsOf(ps[0].Condition); len(gs) != 2 || gs[0].path != "eth.tx.data" || gs[1].path != "eth.tx.to" {
		t.Fatalf("guards of %q: %v", ps[0].Condition, gs)
	}
	// Indexed under its own address, not the data every policy requires.
	o := NewOrg(ps)
	o.guard(ps[0].Condition)
	if g, _ := o.guard(ps[1].Condition); g.path != "eth.tx.to" {
		t.Errorf("the second policy is filed under %s, want eth.tx.to", g.path)
	}
}

// A request's value at a guard path is read back from the request built.
func TestReqValueReadsTheRequest(t *testing.T) {
	o := NewOrg(oneTypeCorpus(3, 1000))
	n := 0
	for _, s := range o.baseSample(signTx).sampled {
		if len(o.countable(s.req)) < 3 {
			n++
		}
	}
	if n == 0 {
		t.Error("no request rules a policy out: the index skips nothing")
	}
}

// The indexes keep the review deterministic: the organization's policies
// in another order give the same reports, and the changes in another
// order the same breaches over the command.
func TestOneTypeOrderFree(t *testing.T) {
	ps, changed := oneTypeCorpus(30, 1000), oneTypeCorpus(30, 2000)
	rev := slices.Clone(ps)
	slices.Reverse(rev)
	controls := []Control{{Name: "no signing", ActivityTypes: []string{signTx}, AtMost: AtMostDenied}}
	run := func(org []policyset.Policy, order []int) (reports map[int]string, breaches []string) {
		o, reports := NewOrg(org), map[int]string{}
		for _, k := range order {
			c := Change{Before: &ps[k], After: &changed[k]}
			reports[k] = o.Report(c).Detail(1000)
			for _, b := range o.CheckControls(c, controls) {
				breaches = append(breaches, b.Row.Example+b.Row.Before+b.Row.After)
			}
		}
		slices.Sort(breaches)
		return reports, breaches
	}
	fwd, backwd := make([]int, len(ps)), make([]int, len(ps))
	for i := range fwd {
		fwd[i], backwd[i] = i, len(ps)-1-i
	}
	r1, b1 := run(ps, fwd)
	r2, b2 := run(rev, backwd)
	if !maps.Equal(r1, r2) || !slices.Equal(b1, b2) {
		t.Errorf("order changes the review: %d vs %d breaches", len(b1), len(b2))
	}
	if len(b1) == 0 || r1[3] == "" {
		t.Errorf("nothing to compare: %d breaches, report %q", len(b1), r1[3])
	}
}
