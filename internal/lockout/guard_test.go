package lockout

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// The lockout guard without Terraform. For the judgment of the worst apply
// order, the planned changes are handed to a fresh guard (one plan's) in
// every order Terraform could plan them in, and the verdict must be the
// same in each.

// grantContent is a grant's content, as newGuardWorld creates it.
func grantContent(name string) policyset.Policy {
	return policyset.Policy{Name: name, Effect: client.EffectAllow, Condition: "activity.resource == 'POLICY'",
		Consensus: "approvers.any(u, u.id == '" + guardUser + "')"}
}

// walletPolicy is a policy that decides nothing about policy changes.
func walletPolicy(name string) policyset.Policy {
	return policyset.Policy{Name: name, Effect: client.EffectAllow, Condition: "activity.resource == 'WALLET'"}
}

func creating(p policyset.Policy) Change {
	return Change{After: &p, What: fmt.Sprintf("creating policy %q", p.Name)}
}

func (w *guardWorld) deleting(name string) Change {
	return Change{ID: w.grants[name], What: fmt.Sprintf("deleting policy %q (%s)", name, w.grants[name])}
}

func (w *guardWorld) updating(name string, p policyset.Policy) Change {
	return Change{ID: w.grants[name], After: &p, What: fmt.Sprintf("updating policy %q (%s)", name, w.grants[name])}
}

// addPolicy adds a policy as the root user, as a grant is (w.grants holds
// its id under its name).
func (w *guardWorld) addPolicy(t testing.TB, p policyset.Policy) {
	t.Helper()
	got, err := w.Client.CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: []client.PolicyParams{{PolicyName: p.Name,
		Effect: p.Effect, Condition: p.Condition, Consensus: p.Consensus, Time: p.Time}}})
	if err != nil {
		t.Fatal(err)
	}
	w.grants[p.Name] = got.Result.PolicyIDs[0]
}

// planInOrder checks the changes with a fresh guard in the order given,
// and returns each change's findings.
func (w *guardWorld) planInOrder(t testing.TB, changes []Change, order []int) [][]Finding {
	t.Helper()
	g := w.newGuard(t, false)
	got := make([][]Finding, len(changes))
	for _, i := range order {
		got[i] = g.Check(t.Context(), changes[i])
	}
	return got
}

// permutations are every order of n things.
func permutations(n int) [][]int {
	if n == 0 {
		return [][]int{{}}
	}
	var all [][]int
	for _, p := range permutations(n - 1) {
		for at := 0; at <= len(p); at++ {
			q := append(append(append([]int{}, p[:at]...), n-1), p[at:]...)
			all = append(all, q)
		}
	}
	return all
}

// summaries lists the findings' severities and summaries, by change.
func summaries(got [][]Finding) (errs, warns map[int][]string) {
	errs, warns = map[int][]string{}, map[int][]string{}
	for i, fs := range got {
		for _, f := range fs {
			if f.Severity == Error {
				errs[i] = append(errs[i], f.Summary)
			} else {
				warns[i] = append(warns[i], f.Summary)
			}
		}
	}
	return errs, warns
}

// errorsOf are the findings that refuse the change.
func errorsOf(fs []Finding) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Severity == Error {
			out = append(out, f)
		}
	}
	return out
}

// Renaming the only grant without a moved block deletes it and creates an
// identical one: refused whichever Terraform plans first, on the delete,
// which is the change that tips the worst state. (The guard used to judge
// "the changes planned so far": the plan passed when the create came
// first, and the apply could delete first and lock Terraform out.)
func TestLockoutGuardWorstOrder_rename(t *testing.T) {
	w := newGuardWorld(t, "terraform manages policies")
	changes := []Change{w.deleting("terraform manages policies"), creating(grantContent("terraform manages policies"))}
	for _, order := range permutations(2) {
		errs, warns := summaries(w.planInOrder(t, changes, order))
		if len(errs[0]) != 1 || len(errs[1]) != 0 || len(warns) != 0 || errs[0][0] != "Policy change would lock Terraform out" {
			t.Fatalf("order %v: errors %v, warnings %v; want the lockout error on the delete alone", order, errs, warns)
		}
	}
	// Planned create first, the error says that only an intermediate
	// state locks out, names it, and gives the remedies.
	got := w.planInOrder(t, changes, []int{1, 0})
	detail := got[0][0].Detail
	for _, want := range []string{
		`ACTIVITY_TYPE_CREATE_POLICIES: OUTCOME_DENY_IMPLICIT: no policy allows it (now OUTCOME_ALLOW, by policy "terraform manages policies")`,
		"Terraform may apply the planned policy changes in any order, and an apply that fails stops part way",
		fmt.Sprintf(`The state judged above is the one after deleting policy "terraform manages policies" (%s), and before creating policy "terraform manages policies".`,
			w.grants["terraform manages policies"]),
		"only this intermediate state locks it out",
		"declare a moved block (moved { from = custody_policy.old, to = custody_policy.new })",
		"apply twice: first create the new policy, then remove the old one",
	} {
		if !strings.Contains(detail, want) {
			t.Errorf("the error lacks %q:\n%s", want, detail)
		}
	}
}

// Larger sets: one verdict in every order, and exactly one error.
func TestLockoutGuardWorstOrder_permutations(t *testing.T) {
	w := newGuardWorld(t, "grant a", "grant b", "terraform manages policies")
	w.addPolicy(t, walletPolicy("wallets 1"))
	w.addPolicy(t, walletPolicy("wallets 2"))
	broader := grantContent("terraform manages policies")
	broader.Consensus = "approvers.any(u, u.id == '" + guardUser + "') || approvers.count() >= 2"
	createOnly := grantContent("grant a")
	createOnly.Condition = "activity.type == 'ACTIVITY_TYPE_CREATE_POLICIES'"
	updatesAndDeletes := grantContent("updates and deletes")
	updatesAndDeletes.Condition = "activity.resource == 'POLICY' && activity.action != 'CREATE'"
	for _, tc := range []struct {
		name    string
		changes []Change
		refused bool
	}{
		{"every grant deleted, among harmless changes", []Change{
			w.deleting("grant a"), w.deleting("grant b"), w.deleting("terraform manages policies"),
			w.updating("wallets 1", walletPolicy("wallets one")), creating(walletPolicy("wallets 3")),
		}, true},
		{"every grant renamed, among harmless changes", []Change{
			w.deleting("grant a"), w.deleting("grant b"), w.deleting("terraform manages policies"),
			creating(grantContent("grant c")), w.deleting("wallets 2"),
		}, true},
		{"harmless changes, a grant broadened, one grant of three deleted", []Change{
			w.updating("terraform manages policies", broader), w.deleting("grant a"), w.deleting("wallets 1"),
			w.updating("wallets 2", walletPolicy("wallets two")), creating(grantContent("grant c")),
		}, false},
		{
			// The final state lets Terraform act (updates and deletes move
			// from the grants to a new policy), but an apply that narrows
			// grant a and deletes the others first, then stops, does not:
			// refused in every order, as the worst apply order.
			"permissions moved between policies in one apply", []Change{
				w.updating("grant a", createOnly), w.deleting("grant b"), w.deleting("terraform manages policies"),
				creating(updatesAndDeletes),
			}, true,
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, order := range permutations(len(tc.changes)) {
				errs, warns := summaries(w.planInOrder(t, tc.changes, order))
				n := 0
				for _, e := range errs {
					n += len(e)
				}
				if want := map[bool]int{true: 1, false: 0}[tc.refused]; n != want || len(warns) != 0 {
					t.Fatalf("order %v: errors %v, warnings %v; want %d error", order, errs, warns, want)
				}
			}
		})
	}
}

// A change whose content is unknown until apply is named in a warning, and
// the others are still judged: the delete of the grant is refused.
func TestLockoutGuardWorstOrder_unknownContent(t *testing.T) {
	w := newGuardWorld(t, "terraform manages policies")
	unknown := Change{After: &policyset.Policy{Name: "later"}, Unknown: true, What: `creating policy "later"`}
	for _, tc := range []struct {
		name    string
		other   Change
		refused bool
	}{
		{"with the grant's delete", w.deleting("terraform manages policies"), true},
		{"with a harmless create", creating(walletPolicy("wallets")), false},
	} {
		for _, order := range permutations(2) {
			got := w.planInOrder(t, []Change{unknown, tc.other}, order)
			errs, warns := summaries(got)
			if len(warns[0]) != 1 || warns[0][0] != "Policy lockout check left to apply" || len(got[0]) != 1 ||
				!strings.Contains(got[0][0].Detail, `Creating policy "later": its effect, condition, consensus or time is known only after apply`) ||
				!strings.Contains(got[0][0].Detail, "Terraform plans it again during the apply, with its values, and the check judges it then") {
				t.Errorf("%s, order %v: the unknown change should be named in a warning: %v", tc.name, order, got[0])
			}
			if (len(errs[1]) == 1) != tc.refused || len(errs[0]) != 0 {
				t.Errorf("%s, order %v: errors %v, want refused=%v", tc.name, order, errs, tc.refused)
			}
		}
	}
}

// At apply, a delete that would leave Terraform unable to change policies
// is refused before it is submitted (a replacement's delete, which the
// plan never saw); one it refused is not counted against the next.
func TestLockoutGuardDeleteAtApply(t *testing.T) {
	w := newGuardWorld(t, "terraform manages policies")
	w.addPolicy(t, walletPolicy("wallets"))
	ctx := t.Context()
	grant := w.deleting("terraform manages policies")

	g := w.newGuard(t, false)
	ok, found := g.AllowDelete(ctx, grant.ID, grant.What)
	if ok || len(errorsOf(found)) == 0 {
		t.Fatalf("deleting the only grant at apply should be refused: %v", found)
	}
	detail := errorsOf(found)[0].Detail
	for _, want := range []string{"Policy delete would lock Terraform out", `Deleting policy "terraform manages policies"`, " now would leave",
		"The provider refused this delete before submitting it: nothing was deleted", "part of a replacement",
		"lifecycle { create_before_destroy = true }", "apply twice: first create the new policy under another address",
		"the apply then deletes it with this as a warning"} {
		if !strings.Contains(errorsOf(found)[0].Summary+detail, want) {
			t.Errorf("the refusal lacks %q:\n%s", want, detail)
		}
	}
	if wallets := w.deleting("wallets"); !allowed(g.AllowDelete(ctx, wallets.ID, wallets.What)) {
		t.Errorf("a harmless delete after a refused one should go")
	}

	// A change refused when the apply plans it again (its content was
	// unknown to the plan) is not made, and so not counted: it must not
	// hide the delete that would lock Terraform out next.
	g = w.newGuard(t, false)
	refused := g.Check(ctx, creating(policyset.Policy{Name: "freeze", Effect: client.EffectDeny, Condition: "activity.resource == 'POLICY'"}))
	ok, found = g.AllowDelete(ctx, grant.ID, grant.What)
	if len(errorsOf(refused)) == 0 || ok || len(errorsOf(found)) == 0 {
		t.Errorf("after a refused change, the grant's delete should still be refused: %v; %v", refused, found)
	}

	// skip_policy_lockout_check: a warning, and the delete goes.
	ok, found = w.newGuard(t, true).AllowDelete(ctx, grant.ID, grant.What)
	if !ok || len(errorsOf(found)) != 0 || len(found) != 1 ||
		found[0].Summary != "Policy delete locks Terraform out (skip_policy_lockout_check)" {
		t.Errorf("with skip_policy_lockout_check the delete should go, with a warning: %v", found)
	}

	// create_before_destroy: the apply plans the new grant again (the
	// guard counts it) and makes it; the old one can then go.
	g = w.newGuard(t, false)
	found = g.Check(ctx, creating(grantContent("terraform manages policies")))
	g.Applied(creating(grantContent("terraform manages policies")))
	ok, more := g.AllowDelete(ctx, grant.ID, grant.What)
	if found = append(found, more...); !ok || len(found) != 0 {
		t.Errorf("once the new grant is made, the old one's delete should go: %v", found)
	}
	// Not yet made, it may still fail: the delete waits for the next apply.
	g = w.newGuard(t, false)
	g.Check(ctx, creating(grantContent("terraform manages policies")))
	if ok, _ := g.AllowDelete(ctx, grant.ID, grant.What); ok {
		t.Errorf("before the new grant is made, the old one's delete should be refused")
	}
}

// allowed says whether a delete went with nothing to report.
func allowed(ok bool, found []Finding) bool { return ok && len(found) == 0 }

// Two deletes that are harmless alone, run at the same time by one apply
// (two replacements): one is refused, whichever checks second.
func TestLockoutGuardDeleteAtApply_concurrent(t *testing.T) {
	w := newGuardWorld(t, "grant a", "grant b")
	for range 10 {
		g := w.newGuard(t, false)
		var wg sync.WaitGroup
		allowed := make([]bool, 2)
		for i, name := range []string{"grant a", "grant b"} {
			wg.Go(func() {
				c := w.deleting(name)
				allowed[i], _ = g.AllowDelete(t.Context(), c.ID, c.What)
			})
		}
		wg.Wait()
		if allowed[0] == allowed[1] {
			t.Fatalf("two deletes that lock Terraform out together: allowed %v, want exactly one", allowed)
		}
	}
}

// A root user whom the root quorum lets act alone is judged with the
// quorum at apply too: its delete of the root's grant goes.
func TestLockoutGuardDeleteAtApply_rootQuorum(t *testing.T) {
	w := newTestWorld(t)
	got, err := w.Client.CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: []client.PolicyParams{{PolicyName: "root manages policies",
		Effect: client.EffectAllow, Condition: "activity.resource == 'POLICY'", Consensus: "approvers.any(u, u.id == 'user-root')"}}})
	if err != nil {
		t.Fatal(err)
	}
	ok, found := w.newGuard(t, false).AllowDelete(t.Context(), got.Result.PolicyIDs[0], "deleting policy \"root manages policies\"")
	if !allowed(ok, found) {
		t.Errorf("a root user acting through the root quorum should not be refused: %v", found)
	}
}

// A shared first read that fails is not kept: the caller whose context
// was canceled gets its error, and the next caller reads again. (That a
// read in progress is waited for, and that a waiter whose own context
// ends stops waiting, is percommand.FirstSuccess's test.)
func TestLockoutGuardFailuresNotKept(t *testing.T) {
	w := newGuardWorld(t, "terraform manages policies")
	g := w.newGuard(t, false)
	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := g.baseline(canceled); err == nil {
		t.Fatal("a canceled caller should get its error")
	}
	if b, err := g.baseline(t.Context()); err != nil || b == nil {
		t.Fatalf("the next caller should read again, not get the first one's failure: %v", err)
	}
	if q := g.rootQuorum(canceled); q != nil {
		t.Fatal("a canceled caller cannot read the quorum")
	}
	if q := g.rootQuorum(t.Context()); q == nil || q.Threshold != 1 {
		t.Fatalf("the next caller should read the quorum again: %+v", q)
	}
}
