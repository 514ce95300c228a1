package provider

import (
	"context"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/percommand"
)

// policiesListKey caches *policyList.
const policiesListKey = "policies"

// policyList is one list_policies answer, indexed by id.
type policyList struct {
	all  []client.Policy
	byID map[string]*client.Policy
}

// cachedPolicies lists the organization's policies once per command for
// every custody_policy resource and data source (see percommand.Lists).
func cachedPolicies(ctx context.Context, pd *providerData) (*policyList, error) {
	return percommand.List(ctx, pd.lists, policiesListKey, pd.listPolicies)
}

// listPolicies is one list_policies, indexed.
func (pd *providerData) listPolicies(ctx context.Context) (*policyList, error) {
	out, err := pd.client.ListPolicies(ctx, client.ListPoliciesRequest{})
	if err != nil {
		return nil, err
	}
	l := &policyList{all: out.Policies, byID: make(map[string]*client.Policy, len(out.Policies))}
	for i := range l.all {
		l.byID[l.all[i].PolicyID] = &l.all[i]
	}
	return l, nil
}
