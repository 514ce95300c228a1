package emulator

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// The emulator refuses what the service's language refuses (CEL's syntax
// included), at the position of the mistake, and accepts what the
// documentation shows as valid, CEL refuses included.
func TestPolicyExpressionErrorsFailTheActivity(t *testing.T) {
	e := newTestEmulator(t)
	ok := client.PolicyParams{PolicyName: "ok", Effect: client.EffectAllow, Notes: "n"}
	condition := func(x string) client.PolicyParams { p := ok; p.Condition = x; return p }
	consensus := func(x string) client.PolicyParams { p := ok; p.Consensus = x; return p }
	timed := func(x string) client.PolicyParams { p := ok; p.Time = x; return p }
	for _, tc := range []struct {
		name string
		ps   []client.PolicyParams
		want string
	}{
		{"condition", []client.PolicyParams{ok, condition("activity.type == ")},
			"policies[1].condition is not a valid condition expression: line 1, column 18: expected a value"},
		{"consensus on line 2", []client.PolicyParams{consensus("true &&\n  (")},
			"policies[0].consensus is not a valid consensus expression: line 2, column 4: expected a value"},
		{"time", []client.PolicyParams{timed("a b")},
			"policies[0].time is not a valid time expression: line 1, column 3: expected an operator"},
		{"double quotes", []client.PolicyParams{condition(`activity.type == "x"`)},
			"line 1, column 18: double-quoted strings are not supported"},
		{"size()", []client.PolicyParams{consensus("approvers.size() >= 2")},
			"line 1, column 11: size() is not a function of the policy language"},
		{"exists()", []client.PolicyParams{consensus("approvers.exists(u, true)")},
			"line 1, column 11: exists() is not a function"},
		{"arithmetic", []client.PolicyParams{condition("eth.tx.value > 1 + 1")},
			"line 1, column 18: arithmetic"},
		{"?:", []client.PolicyParams{condition("true ? true : false")},
			"line 1, column 6: the conditional operator"},
		{"unknown keyword", []client.PolicyParams{condition("activty.type == 'x'")},
			"line 1, column 1: unknown name activty"},
		{"keyword of another field", []client.PolicyParams{consensus("activity.type == 'x'")},
			"activity is a keyword of the condition field"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := e.client.CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: tc.ps})
			wantFailedActivity(t, err, client.CodeInvalidArgument, tc.want)
		})
	}
	// Nothing of a failed create_policies is stored, not even its valid policies.
	if list, err := e.client.ListPolicies(t.Context(), client.ListPoliciesRequest{}); err != nil || len(list.Policies) != 0 {
		t.Fatalf("%+v %v", list, err)
	}

	id := createPolicies(t, e.client, client.PolicyParams{PolicyName: "p", Effect: client.EffectAllow, Notes: "n", Condition: "true"}).Result.PolicyIDs[0]
	_, err := e.client.UpdatePolicy(t.Context(), client.UpdatePolicyParams{PolicyID: id, PolicyNotes: strRef("changed"), PolicyCondition: strRef("1 +* 2")})
	wantFailedActivity(t, err, client.CodeInvalidArgument, "policyCondition is not a valid condition expression: line 1, column 3: arithmetic")
	if p := getPolicy(t, e.client, id); p.Notes != "n" || p.Condition != "true" {
		t.Fatalf("a failed update changed the policy: %+v", p)
	}

	// What the service accepts and CEL does not: slices, 128-bit integers,
	// and warnings (an unknown field, an undocumented value) do not refuse.
	created := createPolicies(t, e.client,
		client.PolicyParams{PolicyName: "slice", Effect: client.EffectDeny, Notes: "", Condition: "eth.tx.data[0..10] == '0xa9059cbb'"},
		client.PolicyParams{PolicyName: "i128", Effect: client.EffectDeny, Notes: "", Condition: "eth.tx.value > 170141183460469231731687303715884105727"},
		client.PolicyParams{PolicyName: "warned", Effect: client.EffectDeny, Notes: "", Condition: "activity.action == 'SIGNING' || eth.tx.gasPrice > 0"})
	if n := len(created.Result.PolicyIDs); n != 3 {
		t.Fatalf("created %d policies", n)
	}
}

// corpusPolicies reads one of policylang's corpus files as policies, each
// expression in its field.
func corpusPolicies(t *testing.T, file string) []client.PolicyParams {
	t.Helper()
	f, err := os.Open("../policylang/testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []client.PolicyParams
	for dec := json.NewDecoder(f); dec.More(); {
		var line struct{ Field, Expr string }
		if err := dec.Decode(&line); err != nil {
			t.Fatal(err)
		}
		p := client.PolicyParams{PolicyName: sprintf("corpus %d", len(out)), Effect: client.EffectAllow}
		switch line.Field {
		case "condition":
			p.Condition = line.Expr
		case "consensus":
			p.Consensus = line.Expr
		case "time":
			p.Time = line.Expr
		default:
			t.Fatalf("%s line %d: field %q", file, len(out)+1, line.Field)
		}
		out = append(out, p)
	}
	return out
}

// Every real expression of policylang's corpus (the documentation's and
// public code's) is accepted by create_policies in its field, CEL-refused
// slices and 128-bit integers included; every mistake of the corpus is
// refused, CEL-accepted double quotes, size() and arithmetic included.
func TestPolicyCorpus(t *testing.T) {
	e := newTestEmulator(t)
	valid := corpusPolicies(t, "valid.jsonl")
	for i := 0; i < len(valid); i += 20 {
		createPolicies(t, e.client, valid[i:min(i+20, len(valid))]...)
	}
	list, err := e.client.ListPolicies(t.Context(), client.ListPoliciesRequest{})
	if err != nil || len(list.Policies) != len(valid) || len(valid) < 95 {
		t.Fatalf("%d policies stored of %d expressions: %v", len(list.Policies), len(valid), err)
	}
	for _, p := range corpusPolicies(t, "invalid.jsonl") {
		_, err := e.client.CreatePolicies(t.Context(), client.CreatePoliciesParams{Policies: []client.PolicyParams{p}})
		wantFailedActivity(t, err, client.CodeInvalidArgument, "is not a valid")
	}
}
