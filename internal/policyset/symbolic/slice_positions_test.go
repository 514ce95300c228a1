package symbolic

import (
	"fmt"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// TestSlicesRewritten: the ERC-20 selector deny written as overlapping,
// adjacent or nested slices, or with the string's length, is the same
// deny: no region, and no question past its guard.
func TestSlicesRewritten(t *testing.T) {
	cond := "activity.type == '" + diffType + "' && "
	selector := policyset.Policy{ID: "d", Name: "no transfer", Effect: client.EffectDeny, Condition: cond + "eth.tx.data[0..10] == '0xa9059cbb'"}
	for _, rewrite := range []string{
		"eth.tx.data[0..6] == '0xa905' && eth.tx.data[5..10] == '59cbb'",
		"eth.tx.data[0..6] == '0xa905' && eth.tx.data[6..10] == '9cbb'",
		"eth.tx.data[0..2] == '0x' && eth.tx.data[0..10][2..10] == 'a9059cbb'",
		"eth.tx.data[0..10][0..4] == '0xa9' && eth.tx.data[4..10][0..6] == '059cbb'",
		"eth.tx.data[0..2] == '0x' && eth.tx.data[2] == 'a' && eth.tx.data[3..10] == '9059cbb'",
		"eth.tx.data[0..10] in ['0xa9059cbb'] && eth.tx.data[0..3] == '0xa'",
	} {
		rewritten := selector
		rewritten.Condition = cond + rewrite
		rs, more, guarded := Regions(diffType, []policyset.Policy{selector}, []policyset.Policy{rewritten}, []policyset.Policy{selector, rewritten}, nil)
		if len(rs) != 0 || more != 0 || guarded {
			t.Errorf("%s is the selector deny, yet %d regions (guarded %v): %+v", rewrite, len(rs), guarded, rs)
		}
	}
}

// TestSlicesInconsistent: slices that no string can satisfy together make
// a deny that never applies. Its replacing the selector deny is a proved
// widening whose witness carries the selector, and whose words the
// witness satisfies (no string that cannot exist).
func TestSlicesInconsistent(t *testing.T) {
	cond := "activity.type == '" + diffType + "' && "
	allow := policyset.Policy{ID: "a", Name: "a", Effect: client.EffectAllow, Condition: cond + "eth.tx.value <= 10"}
	selector := policyset.Policy{ID: "d", Name: "no transfer", Effect: client.EffectDeny, Condition: cond + "eth.tx.data[0..10] == '0xa9059cbb'"}
	typo := selector
	typo.Condition = cond + "eth.tx.data[0..6] == '0xa905' && eth.tx.data[5..10] == '69cbb'"
	before, after := []policyset.Policy{allow, selector}, []policyset.Policy{allow, typo}
	rs, _, guarded := Regions(diffType, before, after, []policyset.Policy{selector, typo}, nil)
	if len(rs) == 0 || guarded {
		t.Fatalf("the typo lets transfers through, yet %d regions (guarded %v)", len(rs), guarded)
	}
	allowed := false
	for _, r := range rs {
		if !r.Proved || r.Before != client.OutcomeDenyExplicit {
			t.Errorf("want proved rows from DENY_EXPLICIT, got %s -> %s (%s): %s", r.Before, r.After, r.NotProved, r.Words())
		}
		allowed = allowed || r.After == client.OutcomeAllow
		tx, _ := r.Witness.Keyword("eth.tx")
		if data, _ := tx.(map[string]any)["data"].(string); !strings.HasPrefix(data, "0xa9059cbb") {
			t.Errorf("the witness should carry the selector: %q", data)
		}
		if why := wordsHold(r); why != "" {
			t.Error(why)
		}
	}
	if !allowed {
		t.Error("no row says that the typo allows a transfer")
	}
}

// TestSliceWitnessShortest: a widening that needs a string of a length
// between the slices' ends is shown with the shortest such string, and
// the analysis tells the string's length apart from its slices.
func TestSliceWitnessShortest(t *testing.T) {
	cond := "activity.type == '" + diffType + "' && "
	allow := policyset.Policy{ID: "a", Name: "a", Effect: client.EffectAllow, Condition: cond + "eth.tx.data[0..4] == '0xab'"}
	deny := policyset.Policy{ID: "d", Name: "d", Effect: client.EffectDeny, Condition: cond + "eth.tx.data[4..8] == 'cdef'"}
	whole := policyset.Policy{ID: "w", Name: "w", Effect: client.EffectDeny, Condition: cond + "eth.tx.data == '0xabcdef00'"}
	data := func(r Region) any {
		tx, _ := r.Witness.Keyword("eth.tx")
		m, _ := tx.(map[string]any)
		return m["data"]
	}
	before := []policyset.Policy{allow, deny, whole}
	rs, _, guarded := Regions(diffType, before, []policyset.Policy{allow, whole}, []policyset.Policy{deny}, nil)
	if len(rs) != 2 || guarded || !rs[0].Proved || rs[0].After != client.OutcomeAllow {
		t.Fatalf("want a proved region to ALLOW (and one to DENY_IMPLICIT), got %+v (guarded %v)", rs, guarded)
	}
	if got := data(rs[0]); got != "0xabcdef" {
		t.Errorf("the shortest witness is 0xabcdef, got %q", got)
	}
	// Removing the whole-string deny where it alone denies widens the
	// string of exactly its length and characters.
	rs, _, _ = Regions(diffType, []policyset.Policy{allow, whole}, []policyset.Policy{allow}, []policyset.Policy{whole}, nil)
	if len(rs) != 1 || !rs[0].Proved {
		t.Fatalf("want one proved region, got %+v", rs)
	}
	if got := data(rs[0]); got != "0xabcdef00" {
		t.Errorf("the witness is the whole string, got %q", got)
	}
	for _, r := range rs {
		if why := wordsHold(r); why != "" {
			t.Error(why)
		}
	}
}

// wordsHold evaluates each atom a region states with the engine, on the
// region's witness: a word the witness does not satisfy is a defect.
func wordsHold(r Region) string {
	e := policyset.NewEvaluator(r.Witness)
	for _, a := range r.Atoms {
		got := atomOutcome(e, a)
		want := "holds"
		switch {
		case a.Errs:
			want = "errs"
		case !a.Holds:
			want = "fails"
		}
		if got != want {
			return "the region says " + a.Text + " " + want + ", its witness gives " + got + ": " + r.Words() +
				fmt.Sprintf("\nwitness %+v", r.Witness)
		}
	}
	return ""
}

// atomOutcome is an atom's value on the request e evaluates, in words.
func atomOutcome(e *policyset.Evaluator, a AtomValue) string {
	holds, errs, ok := a.On(e)
	switch {
	case !ok:
		return "does not compile"
	case errs:
		return "errs"
	case holds:
		return "holds"
	}
	return "fails"
}

// TestDifferentialSlices: conditions that read eth.tx.data whole, by
// overlapping, adjacent and nested slices and by index are answered
// exactly on the small domain: each move enumeration finds is a proved
// row whose words its witness satisfies, and none is "not proved".
func TestDifferentialSlices(t *testing.T) {
	differentialDrawing(t, &diffSlices, 40, 30, "slice eth.tx.data",
		func(p policyset.Policy) bool { return strings.Contains(p.Condition, "eth.tx.data[") })
}
