package review

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
	"github.com/zclconf/go-cty/cty/function"
	"github.com/zclconf/go-cty/cty/function/stdlib"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

const deleteUsers = "ACTIVITY_TYPE_DELETE_USERS"

// massDelete is an organization that lets anyone delete users but denies
// deleting more than k at once, and the change that removes the deny.
func massDelete(k string) ([]policyset.Policy, Change) {
	allow := policyset.Policy{ID: "allow", Name: "deletes", Effect: client.EffectAllow, Condition: "activity.type == '" + deleteUsers + "'"}
	deny := policyset.Policy{ID: "deny", Name: "mass delete", Effect: client.EffectDeny,
		Condition: "activity.type == '" + deleteUsers + "' && activity.params.user_ids.count() > " + k}
	return []policyset.Policy{allow, deny}, Change{Before: &deny}
}

// Removing a deny on a count widens whatever the count: past 2^16 it
// was once read as never true, and the review proved "no change". The
// row's witness has 70,001 user ids, said in words, written as a short
// example that Terraform reads back as the same list.
func TestReportCountPastTheSlots(t *testing.T) {
	for _, k := range []string{"7", "70000"} {
		ps, c := massDelete(k)
		r := report(t, ps, c)
		if len(r.Rows) != 1 {
			t.Fatalf("> %s: rows %+v", k, r.Rows)
		}
		row := r.Rows[0]
		if !row.Proved || row.Before != client.OutcomeDenyExplicit || row.After != client.OutcomeAllow {
			t.Fatalf("> %s: row %+v", k, row)
		}
		if k == "7" {
			continue
		}
		if !strings.Contains(row.Words, "shown with 70,001 user ids") {
			t.Errorf("the words do not say the witness's size: %s", row.Words)
		}
		if len(row.Example) > 400 {
			t.Errorf("the example is %d characters: %.300s...", len(row.Example), row.Example)
		}
		ids := evalExample(t, row.Example).GetAttr("params").GetAttr("user_ids").AsValueSlice()
		want, _ := row.Request.Params["user_ids"].([]any)
		if len(ids) != 70001 || len(want) != 70001 {
			t.Fatalf("the example has %d user ids, the witness %d", len(ids), len(want))
		}
		for i, id := range ids {
			if id.AsString() != want[i] {
				t.Fatalf("user id %d reads back as %s, not %v", i, id.AsString(), want[i])
			}
		}
	}
}

// A witness past what the analysis builds is "not proved", naming the
// count and its policy: never silence.
func TestReportCountPastTheWitnessCap(t *testing.T) {
	ps, c := massDelete("2000000")
	r := report(t, ps, c)
	if len(r.Rows) != 1 || r.Rows[0].Proved || r.Rows[0].After != NotProved {
		t.Fatalf("rows %+v", r.Rows)
	}
	for _, want := range []string{"2,000,001 elements", "activity.params.user_ids.count() > 2000000", `"mass delete"`} {
		if !strings.Contains(r.Rows[0].Words, want) {
			t.Errorf("the row does not say %q: %s", want, r.Rows[0].Words)
		}
	}
}

// Many approvers, each with a credential: the example writes them as
// runs whose ids follow their index, and the words name a few.
func TestExampleManyApprovers(t *testing.T) {
	req := policyset.Request{Type: signTx, Approvers: []policyset.User{{ID: "requester", Tags: []string{"ops"}}}}
	req.Credentials = []policyset.Credential{{UserID: "requester", Type: "CREDENTIAL_TYPE_API_KEY_P256"}}
	for i := 1; i < 3000; i++ {
		id := fmt.Sprint("approver-", i)
		req.Approvers = append(req.Approvers, policyset.User{ID: id, Tags: []string{"ops"}})
		req.Credentials = append(req.Credentials, policyset.Credential{UserID: id, Type: "CREDENTIAL_TYPE_API_KEY_P256"})
	}
	src := example(req)
	if len(src) > 800 {
		t.Errorf("the example is %d characters: %.300s...", len(src), src)
	}
	v := evalExample(t, src)
	users, creds := v.GetAttr("approvers").AsValueSlice(), v.GetAttr("credentials").AsValueSlice()
	if len(users) != 3000 || len(creds) != 3000 {
		t.Fatalf("%d approvers, %d credentials read back: %s", len(users), len(creds), src)
	}
	for i, u := range users {
		if id := u.GetAttr("id").AsString(); id != req.Approvers[i].ID || creds[i].GetAttr("user_id").AsString() != id {
			t.Fatalf("approver %d reads back as %s: %s", i, id, src)
		}
		if tags := u.GetAttr("tags").AsValueSlice(); len(tags) != 1 || tags[0].AsString() != "ops" {
			t.Fatalf("approver %d's tags read back as %v", i, tags)
		}
	}
	if w := who(req.Approvers); w != "3,000 non-root approvers: requester (tags ops), approver-1 (tags ops), approver-2 (tags ops) and 2,997 more" {
		t.Errorf("who says %q", w)
	}
}

// A long list is written by runs: single elements as they are, a run of
// lists without flatten (which would open them), a run of strings past
// Terraform's 1,024 values of range as a flatten of blocks; every
// element reads back in place, and a literal "${" stays text.
func TestExampleLongListRuns(t *testing.T) {
	var list []any
	list = append(list, "a", "b-1", "${x}-2")
	for range 40 {
		list = append(list, []any{"x", "y"})
	}
	for range 5000 {
		list = append(list, "same")
	}
	list = append(list, "last")
	req := policyset.Request{Type: deleteUsers, Approvers: []policyset.User{{ID: "requester"}}, Params: map[string]any{"user_ids": list}}
	src := example(req)
	if len(src) > 800 || !strings.Contains(src, "flatten(") {
		t.Errorf("the example is %d characters: %.400s...", len(src), src)
	}
	got := evalExample(t, src).GetAttr("params").GetAttr("user_ids").AsValueSlice()
	if len(got) != len(list) {
		t.Fatalf("%d elements read back, want %d", len(got), len(list))
	}
	for i, v := range got {
		want := fmt.Sprint(list[i])
		var have string
		if v.Type().IsTupleType() {
			var parts []string
			for _, e := range v.AsValueSlice() {
				parts = append(parts, e.AsString())
			}
			have = fmt.Sprint(parts)
		} else {
			have = v.AsString()
		}
		if have != want {
			t.Fatalf("element %d reads back as %s, want %s", i, have, want)
		}
	}
	// Up to symbolic.LongList elements, a list is written element by
	// element.
	short := policyset.Request{Type: deleteUsers, Approvers: []policyset.User{{ID: "requester"}},
		Params: map[string]any{"user_ids": []any{"u", "u", "u", "u", "u", "u", "u", "u", "u"}}}
	if src := example(short); !strings.Contains(src, `user_ids = ["u", "u", "u", "u", "u", "u", "u", "u", "u"]`) {
		t.Errorf("a short list is not written whole: %s", src)
	}
}

// evalExample evaluates an example as Terraform does, with the functions
// it uses (concat, flatten, range: Terraform's are go-cty's).
func evalExample(t *testing.T, src string) cty.Value {
	t.Helper()
	expr, diags := hclsyntax.ParseExpression([]byte(src), "example.hcl", hcl.InitialPos)
	if diags.HasErrors() {
		t.Fatalf("%.300s: %s", src, diags)
	}
	ctx := &hcl.EvalContext{Functions: map[string]function.Function{
		"concat": stdlib.ConcatFunc, "flatten": stdlib.FlattenFunc, "range": stdlib.RangeFunc}}
	v, diags := expr.Value(ctx)
	if diags.HasErrors() {
		t.Fatalf("%.300s: %s", src, diags)
	}
	if slices.Contains([]bool{v.IsNull(), !v.IsKnown()}, true) {
		t.Fatalf("%.300s is null or unknown", src)
	}
	return v
}
