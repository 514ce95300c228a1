package policyset

import (
	"maps"
	"slices"

	"github.com/custody-labs/terraform-provider-custody/internal/policylang"
)

// CarriedKeywords lists the condition keywords r carries beyond activity,
// sorted: private_key when it has one, and those SetKeyword set.
func (r Request) CarriedKeywords() []string {
	out := slices.Collect(maps.Keys(r.keywords))
	if r.PrivateKey != nil {
		out = append(out, "private_key")
	}
	slices.Sort(out)
	return out
}

// Conforms refuses a request that cannot exist by the catalogue's request
// table (policylang.LookupRequestModel): a keyword r's type never carries,
// or carries only under a condition its params exclude, two keywords of
// which the type carries at most one, or an activity.params field the type
// does not expose. The error is a *policylang.RequestModelError. A request
// that lacks something its type carries is incomplete, not impossible, and
// conforms: a policy that reads what it lacks errs, as it would in the
// service.
func (r Request) Conforms() error {
	return policylang.LookupRequestModel(r.Type).Check(r.CarriedKeywords(), r.Params)
}

// Missing lists what a complete request of r's type carries and r lacks,
// in words (policylang.RequestModel.Missing).
func (r Request) Missing() []string {
	return policylang.LookupRequestModel(r.Type).Missing(r.CarriedKeywords(), r.Params)
}
