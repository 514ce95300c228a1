package provider

import (
	"context"
	"encoding/json"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/policysettest"
)

// FuzzPolicyDecision calls policy_decision with arbitrary arguments, given
// as JSON whose string "(unknown)" stands for an unknown value. It
// asserts: no panic; an answer is an error, an unknown result, or a
// decision with one of its four outcomes and one outcome per policy given.
func FuzzPolicyDecision(f *testing.F) {
	cases := policysettest.Load(f)
	for _, c := range cases {
		f.Add(string(c.RawPolicies), string(c.RawRequest))
	}
	f.Add(`[{"effect":"EFFECT_ALLOW","condition":"(unknown)"}]`, `{"type":"ACTIVITY_TYPE_CREATE_POLICIES","approvers":[{"id":"a"}]}`)
	f.Add(`[{"effect":"EFFECT_DENY","time":"CronSpan('0 0 * * *', '1h', 'UTC')"}]`, `{"type":"(unknown)","approvers":[{"id":"a"}]}`)
	f.Add(`{"a":{"effect":"EFFECT_ALLOW"}}`, `{"type":"ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2","approvers":[{"id":"a","tags":[1]}],"params":{"x":[{"y":1e400}]}}`)
	f.Add(`[null]`, `{"type":"ACTIVITY_TYPE_CREATE_POLICIES","approvers":[{"id":"a"}],"root_quorum":{"user_ids":["a"],"threshold":1.5}}`)
	f.Fuzz(func(t *testing.T, policies, request string) {
		pv, ok1 := fuzzArgument(policies)
		rv, ok2 := fuzzArgument(request)
		if !ok1 || !ok2 {
			return // not JSON
		}
		ctx := context.Background()
		resp := function.RunResponse{Result: function.NewResultData(types.ObjectUnknown(decisionAttrTypes))}
		policyDecisionFunction{}.Run(ctx, function.RunRequest{Arguments: function.NewArgumentsData([]attr.Value{pv, rv})}, &resp)
		if resp.Error != nil {
			return
		}
		obj, ok := resp.Result.Value().(types.Object)
		if !ok {
			t.Fatalf("result is a %T", resp.Result.Value())
		}
		if obj.IsUnknown() {
			return
		}
		attrs := obj.Attributes()
		outcome, _ := attrs["outcome"].(types.String)
		outcomes := []string{client.OutcomeAllow, client.OutcomeDenyExplicit, client.OutcomeDenyImplicit, client.OutcomeRequiresConsensus}
		if !slices.Contains(outcomes, outcome.ValueString()) {
			t.Fatalf("outcome %s", outcome)
		}
		results, _ := attrs["policies"].(types.List)
		var given []any
		_ = json.Unmarshal([]byte(policies), &given)
		if len(results.Elements()) != len(given) {
			t.Fatalf("%d policy outcomes for %d policies", len(results.Elements()), len(given))
		}
		for _, r := range results.Elements() {
			o, _ := r.(types.Object).Attributes()["outcome"].(types.String)
			if !slices.Contains(append(outcomes, client.OutcomeTimeInactive, client.OutcomeError, policyset.OutcomeNotApplicable), o.ValueString()) {
				t.Fatalf("policy outcome %s", o)
			}
		}
	})
}

// fuzzArgument is JSON as the argument the framework hands the function,
// or false when s is not JSON.
func fuzzArgument(s string) (attr.Value, bool) {
	tv, ok := fuzzTerraformValue(s)
	if !ok {
		return nil, false
	}
	v, err := rawDynamicType{}.ValueFromTerraform(context.Background(), tv)
	return v, err == nil
}

// fuzzTerraformValue is JSON as Terraform's value, as the plugin protocol
// delivers it, or false when s is not JSON.
func fuzzTerraformValue(s string) (tftypes.Value, bool) {
	var v any
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	if err := dec.Decode(&v); err != nil {
		return tftypes.Value{}, false
	}
	return tfValueOf(v)
}

// tfValueOf is a decoded JSON value as Terraform would pass it: objects,
// tuples, strings, numbers, bools and nulls; "(unknown)" is an unknown
// string.
func tfValueOf(v any) (tftypes.Value, bool) {
	switch v := v.(type) {
	case nil:
		return tftypes.NewValue(tftypes.DynamicPseudoType, nil), true
	case string:
		if v == "(unknown)" {
			return tftypes.NewValue(tftypes.String, tftypes.UnknownValue), true
		}
		return tftypes.NewValue(tftypes.String, v), true
	case bool:
		return tftypes.NewValue(tftypes.Bool, v), true
	case json.Number:
		f, _, err := big.ParseFloat(v.String(), 10, 512, big.ToNearestEven)
		if err != nil {
			return tftypes.Value{}, false
		}
		return tftypes.NewValue(tftypes.Number, f), true
	case []any:
		elems := make([]tftypes.Value, len(v))
		typs := make([]tftypes.Type, len(v))
		for i, e := range v {
			tv, ok := tfValueOf(e)
			if !ok {
				return tftypes.Value{}, false
			}
			elems[i], typs[i] = tv, tv.Type()
		}
		return tftypes.NewValue(tftypes.Tuple{ElementTypes: typs}, elems), true
	case map[string]any:
		vals := make(map[string]tftypes.Value, len(v))
		typs := make(map[string]tftypes.Type, len(v))
		for k, e := range v {
			tv, ok := tfValueOf(e)
			if !ok {
				return tftypes.Value{}, false
			}
			vals[k], typs[k] = tv, tv.Type()
		}
		return tftypes.NewValue(tftypes.Object{AttributeTypes: typs}, vals), true
	}
	return tftypes.Value{}, false
}
