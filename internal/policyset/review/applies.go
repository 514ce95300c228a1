package review

import (
	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// Which activity types a policy can apply to, from the atoms on
// activity.type, kind, resource and action alone: a disjunct that requires
// one of them to equal (or be in) values the type does not have, or to
// differ from the value it has, cannot hold for that type. Anything else may hold. A policy that cannot apply
// to a type gives it not-applicable or an error, which neither allow nor
// deny, so leaving it out of that type's tallies changes no decision.

// policyTypes are the activity types the policies decide (root-quorum-only
// types never change) in catalogue order.
var policyTypes = func() []string {
	var out []string
	for _, t := range policylang.ActivityTypes() {
		if info, _ := policylang.LookupActivity(t); !info.RootQuorumOnly {
			out = append(out, t)
		}
	}
	return out
}()

// typeFixed are each policy type's activity fields, by path.
var typeFixed = func() []map[string]string {
	out := make([]map[string]string, len(policyTypes))
	for i, typ := range policyTypes {
		info := policyset.DescribeActivity(typ)
		out[i] = map[string]string{"activity.type": typ, "activity.kind": info.Kind, "activity.resource": info.Resource,
			"activity.action": info.Action}
	}
	return out
}()

// appliesTo lists the types a policy can apply to, in catalogue order.
func appliesTo(p policyset.Policy) []string {
	for _, f := range []struct {
		field policylang.Field
		expr  string
	}{{policylang.FieldCondition, p.Condition}, {policylang.FieldConsensus, p.Consensus}, {policylang.FieldTime, p.Time}} {
		if f.expr == "" {
			continue
		}
		if _, d := policyset.Compile(f.field, f.expr); d != nil {
			return nil // always an error: neither allows nor denies anything
		}
	}
	if p.Condition == "" {
		return policyTypes
	}
	n, err := policylang.Parse(p.Condition)
	if err != nil {
		return nil
	}
	// Each disjunct's atoms on the activity fields, read once: the types
	// are then a few map lookups each.
	var ds [][]atom
	w := walker{lambdas: map[string]string{}}
	for _, d := range disjuncts(n) {
		var fixed []atom
		for _, c := range conjuncts(d) {
			if at, ok := w.atomOf(c); ok && activityFields[at.path] {
				fixed = append(fixed, at)
			}
		}
		ds = append(ds, fixed)
	}
	var out []string
	for i, typ := range policyTypes {
		for _, d := range ds {
			if disjunctMayHold(d, typeFixed[i]) {
				out = append(out, typ)
				break
			}
		}
	}
	return out
}

func disjunctMayHold(d []atom, fixed map[string]string) bool {
	for _, at := range d {
		have := fixed[at.path]
		match := false
		for _, v := range at.vals {
			if s, ok := v.(string); ok && s == have {
				match = true
			}
		}
		if (at.op == "==" || at.op == "in") && !match || at.op == "!=" && match {
			return false
		}
	}
	return true
}
