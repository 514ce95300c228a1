package provider

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/function"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// benchDecisionPolicies are n policies as a configuration would pass them,
// each with its own expressions (salt makes them new text, which no cache
// has seen): denies on tags, allows with consensus, time windows.
func benchDecisionPolicies(n int, salt string) string {
	ps := make([]map[string]string, n)
	for i := range ps {
		tag := fmt.Sprintf("tag-%s-%d", salt, i)
		switch i % 4 {
		case 0:
			ps[i] = map[string]string{"name": tag, "effect": "EFFECT_DENY",
				"condition": fmt.Sprintf("activity.action == 'SIGN' && private_key.tags.contains('%s')", tag)}
		case 1:
			ps[i] = map[string]string{"name": tag, "effect": "EFFECT_ALLOW",
				"condition": fmt.Sprintf("activity.resource == 'PRIVATE_KEY' && private_key.tags.contains('%s')", tag),
				"consensus": fmt.Sprintf("approvers.filter(u, u.tags.contains('%s')).count() >= 2", tag)}
		case 2:
			ps[i] = map[string]string{"name": tag, "effect": "EFFECT_ALLOW",
				"condition": "activity.type == 'ACTIVITY_TYPE_CREATE_POLICIES'", "consensus": fmt.Sprintf("approvers.any(u, u.id == '%s')", tag)}
		default:
			ps[i] = map[string]string{"name": tag, "effect": "EFFECT_ALLOW", "condition": "activity.resource == 'WALLET'",
				"consensus": fmt.Sprintf("approvers.any(u, u.email == '%s@example.com')", tag)}
		}
	}
	for i, p := range ps {
		// As values(custody_policy.x) passes them: every attribute of the
		// resource, most of which the function ignores.
		p["id"] = fmt.Sprintf("00000000-0000-4000-8000-%012d", i)
		p["notes"] = "Managed by Terraform."
		p["created_at"], p["updated_at"] = "2026-11-25T12:00:00Z", "2026-11-25T12:00:00Z"
		if _, ok := p["consensus"]; !ok {
			p["consensus"] = ""
		}
		p["time"] = ""
	}
	raw, _ := json.Marshal(ps)
	return string(raw)
}

const benchDecisionRequest = `{"type":"ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2","approvers":[{"id":"alice","tags":["tag-x-1"]},{"id":"bob"}],` +
	`"private_key":{"id":"key","tags":["tag-x-1","cold"]}}`

// benchmarkPolicyDecision calls policy_decision over 1,000 policies and
// one request, with the policies' text from policies(i) for iteration i.
// It times what a call costs the provider: the framework's reading of the
// arguments from Terraform's values (as the plugin server does), and Run.
func benchmarkPolicyDecision(b *testing.B, policies func(i int) string) {
	ctx := context.Background()
	terraformValue := func(s string) tftypes.Value {
		tv, ok := fuzzTerraformValue(s)
		if !ok {
			b.Fatalf("no JSON: %s", s)
		}
		return tv
	}
	rv := terraformValue(benchDecisionRequest)
	var pv tftypes.Value
	last := ""
	for i := 0; b.Loop(); i++ {
		if text := policies(i); text != last {
			b.StopTimer()
			pv, last = terraformValue(text), text
			b.StartTimer()
		}
		// What the framework does with the arguments before Run.
		var args [2]attr.Value
		for j, tv := range []tftypes.Value{pv, rv} {
			v, err := rawDynamicType{}.ValueFromTerraform(ctx, tv)
			if err != nil {
				b.Fatal(err)
			}
			args[j] = v
		}
		resp := function.RunResponse{Result: function.NewResultData(types.ObjectUnknown(decisionAttrTypes))}
		policyDecisionFunction{}.Run(ctx, function.RunRequest{Arguments: function.NewArgumentsData(args[:])}, &resp)
		if resp.Error != nil {
			b.Fatal(resp.Error)
		}
	}
}

// BenchmarkPolicyDecisionWarm: the same 1,000 policies every call, as in
// a plan that calls the function many times; their expressions are
// compiled once (the cache of compiled expressions).
func BenchmarkPolicyDecisionWarm(b *testing.B) {
	policies := benchDecisionPolicies(1000, "x")
	benchmarkPolicyDecision(b, func(int) string { return policies })
}

// BenchmarkPolicyDecisionCold: 1,000 policies whose expressions no call
// has seen, as in the first call of a command: every one is compiled.
func BenchmarkPolicyDecisionCold(b *testing.B) {
	benchmarkPolicyDecision(b, func(i int) string { return benchDecisionPolicies(1000, fmt.Sprint("cold", i)) })
}
