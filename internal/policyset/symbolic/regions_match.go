package symbolic

import (
	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset"
)

// On is what the atom gives for the request e evaluates, by the engine:
// its source compiled in the field that can read it. ok is false for a
// source no field compiles.
func (a AtomValue) On(e *policyset.Evaluator) (holds, errs, ok bool) {
	src := a.source()
	for _, f := range []policylang.Field{policylang.FieldCondition, policylang.FieldConsensus, policylang.FieldTime} {
		if _, d := policyset.Compile(f, src); d != nil {
			continue
		}
		p := policyset.Policy{Effect: client.EffectAllow}
		switch f {
		case policylang.FieldCondition:
			p.Condition = src
		case policylang.FieldConsensus:
			p.Consensus = src
		default:
			p.Time = src
		}
		switch e.Outcome(p).Outcome {
		case client.OutcomeAllow:
			return true, false, true
		case client.OutcomeError:
			return false, true, true
		}
		return false, false, true
	}
	return false, false, false
}

// InRegion tells whether the request e evaluates is in the region the
// atoms state: each holds, fails or errs as its value says. The replay
// groups the activities a change moves by the report's regions with it.
func InRegion(atoms []AtomValue, e *policyset.Evaluator) bool {
	for _, a := range atoms {
		holds, errs, ok := a.On(e)
		if !ok || errs != a.Errs || (!a.Errs && holds != a.Holds) {
			return false
		}
	}
	return true
}
