package review

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/symbolic"
)

// Two denies that both cover export, deleted together: neither change
// alone moves a decision, the pair does; Compare shows it.
func TestCompareJointEffects(t *testing.T) {
	ps := append(org(),
		policyset.Policy{ID: "d1", Name: "no export", Effect: client.EffectDeny, Condition: "activity.type == '" + export + "'"},
		policyset.Policy{ID: "d2", Name: "no key export", Effect: client.EffectDeny,
			Condition: "activity.resource == 'PRIVATE_KEY' && activity.action == 'EXPORT'"})
	o := NewOrg(ps, nil)
	for _, id := range []string{"d1", "d2"} {
		if r := o.Report(Change{Before: find(ps, id)}); len(r.Rows) != 0 {
			t.Errorf("deleting %s alone: %s", id, r.Detail(10))
		}
	}
	after := ps[:3]
	r := Compare(ps, after, nil)
	crossCheck(t, ps, after, r.Rows)
	if len(r.Rows) == 0 || !r.Rows[0].Widening() {
		t.Fatalf("joint delete: %s", r.Detail(10))
	}
	for _, row := range r.Rows {
		if row.Type != export || row.Before != client.OutcomeDenyExplicit {
			t.Errorf("row %+v", row)
		}
	}
	if r := Compare(ps, ps, nil); len(r.Rows) != 0 || r.Types != 0 {
		t.Errorf("same sets: %s", r.Detail(10))
	}
}

func TestReportSignRawPayloadParams(t *testing.T) {
	raw := "ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2"
	ps := []policyset.Policy{{ID: "a", Name: "raw signing by two", Effect: client.EffectAllow,
		Condition: "activity.type == '" + raw + "'", Consensus: "approvers.count() >= 2"}}
	after := &policyset.Policy{ID: "b", Name: "no-op hashes alone", Effect: client.EffectAllow,
		Condition: "activity.type == '" + raw + "' && activity.params.hash_function == 'HASH_FUNCTION_NO_OP'"}
	r := report(t, ps, Change{After: after})
	if len(r.Rows) != 1 || r.Rows[0].Before != client.OutcomeRequiresConsensus || r.Rows[0].After != client.OutcomeAllow ||
		!strings.Contains(r.Rows[0].Example, `params = { hash_function = "HASH_FUNCTION_NO_OP" }`) {
		t.Errorf("%s", r.Detail(10))
	}
}

func TestOrgConcurrentUse(t *testing.T) {
	ps := benchCorpus(200, "")
	o := NewOrg(ps, nil)
	controls := []Control{{Name: "c", ActivityTypes: symbolic.PolicyTypes[:40], AtMost: AtMostConsensus}}
	var wg sync.WaitGroup
	for k := 0; k < 8; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := changeOf(ps, 4*k, 1)
			o.Report(c)
			o.Findings(c)
			o.CheckControls(c, controls)
		}()
	}
	wg.Wait()
}

func TestExampleValues(t *testing.T) {
	req := policyset.Request{Type: signTx, Approvers: []policyset.User{{ID: "requester"}, {ID: "a${b}", Tags: []string{"t"}}},
		Params: map[string]any{"user_ids": []any{"x"}}}
	if err := req.SetKeywordAttribute("eth", map[string]any{"tx": map[string]any{"value": "9007199254740993", "gas": 21000}}); err != nil {
		t.Fatal(err)
	}
	want := `{ type = "ACTIVITY_TYPE_SIGN_TRANSACTION_V2", approvers = [{ id = "requester" }, { id = "a$${b}", tags = ["t"] }], ` +
		`params = { user_ids = ["x"] }, eth = { tx = { gas = 21000, value = "9007199254740993" } } }`
	if got := example(req); got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// A change checked twice counts once: counting it again would take its
// old outcome out twice, and a deny still in force would vanish.
func TestCheckControlsCountsAChangeOnce(t *testing.T) {
	hot := "activity.type == '" + signTx + "' && private_key.tags.contains('hot')"
	ps := []policyset.Policy{
		{ID: "a", Name: "hot keys alone", Effect: client.EffectAllow, Condition: hot},
		{ID: "d1", Name: "hot frozen", Effect: client.EffectDeny, Condition: hot},
		{ID: "d2", Name: "hot frozen too", Effect: client.EffectDeny, Condition: hot},
	}
	controls := []Control{{Name: "signing never alone", ActivityTypes: []string{signTx}, AtMost: AtMostConsensus}}
	lifted := ps[1]
	lifted.Effect = client.EffectAllow
	o := NewOrg(ps, nil)
	for i := 0; i < 2; i++ {
		if b := o.CheckControls(Change{Before: &ps[1], After: &lifted}, controls); len(b) != 0 {
			t.Fatalf("check %d: d2 still denies, yet %+v", i, b[0].Row)
		}
	}
}

// Expressions the language refuses, or that read what the sampler cannot
// fill, give reports and findings, never a panic.
func TestOddExpressions(t *testing.T) {
	ps := org()
	for _, cond := range []string{
		"activity.type == ", "activity.params.nope == 'x'", "solana.tx.transfers.any(t, t.amount > 5)",
		"eth.tx.contract_call_args['wad'] == 5", "wallets.count() > 2", "wallet_account.address == 'a' || wallet.id == 'w'",
		"activity.type == '" + signTx + "' && private_key.tags.contains('a') && 'b' in private_key.tags",
		"activity.type == '" + signTx + "' && eth.tx.chain_id in [1, 137] && eth.tx.data[0..10] == '0x'",
		"!(activity.type == '" + signTx + "') && private_key.exported",
	} {
		for _, cons := range []string{"", "approvers.filter(u, u.tags.contains('x')).count() >= 2", "credentials.any(c, c.type == 'x')",
			"approvers.any(u, u.id == 'alice') && approvers.count() > 1", "approvers.count() >= 10"} {
			p := &policyset.Policy{ID: "odd", Name: "odd", Effect: client.EffectAllow, Condition: cond, Consensus: cons}
			c := Change{Before: find(ps, "p-sign"), After: p}
			o := NewOrg(ps, nil)
			r := o.Report(c)
			crossCheck(t, ps, apply(ps, c), r.Rows)
			o.Findings(c)
			o.CheckControls(c, []Control{{Name: "c", ActivityTypes: []string{signTx}, AtMost: AtMostDenied}})
			cmp := Compare(ps, apply(ps, c), nil)
			crossCheck(t, ps, apply(ps, c), cmp.Rows)
		}
	}
}

// The breaches over a command are the same set in either order, even for
// requests only one change's values make (cold keys, named by A alone).
func TestCheckControlsSameBreachesEitherOrder(t *testing.T) {
	ps := org()
	controls := []Control{{Name: "signing never alone", ActivityTypes: []string{signTx}, AtMost: AtMostConsensus}}
	a := &policyset.Policy{ID: "a", Name: "cold keys by two", Effect: client.EffectAllow,
		Condition: "activity.type == '" + signTx + "' && private_key.tags.contains('cold')", Consensus: "approvers.count() >= 2"}
	sign := find(ps, "p-sign")
	alone := *sign
	alone.Consensus = ""
	changes := []Change{{After: a}, {Before: sign, After: &alone}}
	// The verdicts (which controls break, newly or before the plan) are
	// the same in either order; which request shows a breach may differ.
	breaches := func(order ...int) map[string]bool {
		o, out := NewOrg(ps, nil), map[string]bool{}
		for _, i := range order {
			for _, b := range o.CheckControls(changes[i], controls) {
				out[fmt.Sprint(b.Control.Name, b.Row.Type, b.NotProved != "")] = true
				crossCheck(t, ps, ps, []Row{{Type: b.Row.Type, Before: b.Row.Before, After: b.Row.Before, Request: b.Row.Request, Proved: b.Row.Proved}})
			}
		}
		return out
	}
	ab, ba := breaches(0, 1), breaches(1, 0)
	if len(ab) == 0 || len(ab) != len(ba) {
		t.Errorf("%d verdicts in one order, %d in the other", len(ab), len(ba))
	}
	for k := range ab {
		if !ba[k] {
			t.Errorf("only in one order: %s", k)
		}
	}
}

// A weakened consensus on tagged approvers, without a condition: the
// policy's own tag and count make the approver set that tells.
func TestReportWeakenedTaggedConsensus(t *testing.T) {
	ps := []policyset.Policy{{ID: "s", Name: "signers", Effect: client.EffectAllow,
		Consensus: "approvers.filter(u, u.tags.contains('signer')).count() >= 3"}}
	after := ps[0]
	after.Consensus = "approvers.filter(u, u.tags.contains('signer')).count() >= 2"
	r := report(t, ps, Change{Before: &ps[0], After: &after})
	found := false
	for _, row := range r.Rows {
		if slices.Contains(row.Types, signTx) && row.After == client.OutcomeAllow && strings.Count(row.Example, `"signer"`) == 2 {
			found = true
		}
	}
	if !found {
		t.Errorf("no signing row with two signers:\n%s", r.Detail(5))
	}
}

// Lifting a deny shows on the requests another policy allows: hot keys
// sending to a blocked address, allowed alone once the deny is gone.
func TestReportLiftedDenyJoinsOtherPolicies(t *testing.T) {
	ps := append(org(), policyset.Policy{ID: "d", Name: "blocked address", Effect: client.EffectDeny,
		Condition: "activity.type == '" + signTx + "' && eth.tx.to == '0xbad'"})
	r := report(t, ps, Change{Before: find(ps, "d")})
	for _, row := range r.Rows {
		if row.Before == client.OutcomeDenyExplicit && row.After == client.OutcomeAllow && strings.Contains(row.Example, `"hot"`) &&
			strings.Contains(row.Example, `"0xbad"`) && len(row.Request.Approvers) == 1 {
			return
		}
	}
	t.Errorf("no row for a hot key sending to 0xbad alone:\n%s", r.Detail(20))
}
