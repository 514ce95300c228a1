package symbolic

import (
	"slices"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// TestDifferentialSameUser: consensus atoms that compare two approvers'
// ids (two distinct officers) are answered exactly on the small domains,
// as every other atom: each move enumeration finds is a proved row, and
// none is "not proved".
func TestDifferentialSameUser(t *testing.T) {
	differentialDrawing(t, &diffOfficers, 30, 10, "compare approvers' ids",
		func(p policyset.Policy) bool { return strings.Contains(p.Consensus, "v.id") })
}

// differentialDrawing runs the differential test over seeds 1..seeds
// with the generator's *flag set, and wants at least least cases whose
// policies drew the atoms it adds (drew tells), so that it compares them.
func differentialDrawing(t *testing.T, flag *bool, seeds uint64, least int, what string, drew func(policyset.Policy) bool) {
	t.Helper()
	defer func() { *flag = false }()
	*flag = true
	drawn := 0
	for seed := uint64(1); seed <= seeds; seed++ {
		before, after := newGen(seed).policySets()
		if slices.ContainsFunc(append(before, after...), drew) {
			drawn++
		}
		if why := checkDifferential(seed); why != "" {
			t.Fatal(why)
		}
	}
	if drawn < least {
		t.Errorf("only %d cases %s: the test compares too little", drawn, what)
	}
}

// TestTwoOfficersRewritten: "two distinct officers" written the nested way
// is the filter count it replaces (no row), and one officer alone is a
// proved widening.
func TestTwoOfficersRewritten(t *testing.T) {
	cond := "activity.type == '" + diffType + "'"
	counted := policyset.Policy{ID: "p", Name: "two officers", Effect: client.EffectAllow, Condition: cond,
		Consensus: "approvers.filter(u, u.tags.contains('officer')).count() >= 2"}
	nested := counted
	nested.Consensus = "approvers.any(u, u.tags.contains('officer') && approvers.any(v, v.id != u.id && v.tags.contains('officer')))"
	viaCredentials := counted
	viaCredentials.Consensus = "approvers.any(u, u.tags.contains('officer') && credentials.any(c, c.user_id != u.id && " +
		"approvers.any(w, w.id == c.user_id && w.tags.contains('officer'))))"
	one := counted
	one.Consensus = "approvers.any(u, u.tags.contains('officer'))"

	if rs, _, guarded := Regions(diffType, []policyset.Policy{counted}, []policyset.Policy{nested}, []policyset.Policy{counted, nested}, nil); len(rs) != 0 || guarded {
		t.Errorf("the nested rewrite is the same consensus, yet %d regions: %+v", len(rs), rs)
	}
	rs, _, _ := Regions(diffType, []policyset.Policy{nested}, []policyset.Policy{one}, []policyset.Policy{nested, one}, nil)
	widened := false
	for _, r := range rs {
		if r.NotProved != "" {
			t.Errorf("not proved: %s", r.NotProved)
		}
		if r.Proved && r.Before == client.OutcomeRequiresConsensus && r.After == client.OutcomeAllow {
			widened = true
			if d := policyset.Decide([]policyset.Policy{one}, r.Witness); d.Verdict != client.OutcomeAllow {
				t.Errorf("the witness %+v is not allowed by one officer", r.Witness)
			}
		}
	}
	if !widened {
		t.Errorf("one officer alone should widen consensus to allow: %+v", rs)
	}
	// A credential's user is its approver: an officer and the credential
	// of another approver who is one are two officers.
	if rs, _, guarded := Regions(diffType, []policyset.Policy{counted}, []policyset.Policy{viaCredentials}, []policyset.Policy{counted, viaCredentials}, nil); len(rs) != 0 || guarded {
		t.Errorf("compared through credentials, the same consensus, yet %d regions: %+v", len(rs), rs)
	}
}

// TestDifferentialStringsEqual: condition atoms that compare the sender
// with the destination (the self-send deny) or with a constant are
// answered exactly on the small domains: each move enumeration finds is a
// proved row, and none is "not proved".
func TestDifferentialStringsEqual(t *testing.T) {
	differentialDrawing(t, &diffSends, 20, 6, "compare the sender",
		func(p policyset.Policy) bool { return strings.Contains(p.Condition, " eth.tx.from") })
}

// TestSelfSendDecided: removing the self-send deny widens exactly the
// requests whose sender is their destination, a proved row whose witness
// shares the value; narrowing it to leave one address out widens that
// address alone.
func TestSelfSendDecided(t *testing.T) {
	cond := "activity.type == '" + diffType + "'"
	allow := policyset.Policy{ID: "a", Name: "a", Effect: client.EffectAllow, Condition: cond}
	deny := policyset.Policy{ID: "d", Name: "no self-send", Effect: client.EffectDeny, Condition: cond + " && eth.tx.to == eth.tx.from"}
	narrowed := deny
	narrowed.Condition += " && eth.tx.to != '0xaa'"
	for _, c := range []struct {
		after  []policyset.Policy
		sameTo string // the witness's destination, "" for any
	}{{[]policyset.Policy{allow}, ""}, {[]policyset.Policy{allow, narrowed}, "0xaa"}} {
		before := []policyset.Policy{allow, deny}
		rs, _, guarded := Regions(diffType, before, c.after, append(slices.Clone(before), c.after...), nil)
		if len(rs) != 1 || guarded || !rs[0].Proved || rs[0].Before != client.OutcomeDenyExplicit || rs[0].After != client.OutcomeAllow {
			t.Fatalf("want one proved DENY_EXPLICIT -> ALLOW row, got %+v (guarded %v)", rs, guarded)
		}
		tx, _ := rs[0].Witness.Keyword("eth.tx")
		m, _ := tx.(map[string]any)
		if m["to"] != m["from"] || (c.sameTo != "" && m["to"] != c.sameTo) {
			t.Errorf("the witness should send from its destination (%q): %v", c.sameTo, m)
		}
		if w := rs[0].Words(); !strings.Contains(w, "eth.tx.to == eth.tx.from") {
			t.Errorf("the region's words should say the sender is the destination: %q", w)
		}
	}
}
