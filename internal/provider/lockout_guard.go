package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/lockout"
)

// The lockout guard's judgment is package lockout's. The glue gives it
// the command's shared reads (providerData is its lockout.Reader) and
// turns what it finds into diagnostics on the resource being planned or
// deleted.

var _ lockout.Reader = (*providerData)(nil)

// Identity is the provider's own user: the credentials check's whoami.
func (pd *providerData) Identity(ctx context.Context) (*client.WhoamiResponse, error) {
	return pd.client.Identity(ctx)
}

// Policies are the command's one list_policies (cachedPolicies).
func (pd *providerData) Policies(ctx context.Context) ([]client.Policy, error) {
	list, err := cachedPolicies(ctx, pd)
	if err != nil {
		return nil, err
	}
	return list.all, nil
}

// RootQuorum reads the organization's root quorum once per command, when
// first asked; a failed read is read again by the next caller.
func (pd *providerData) RootQuorum(ctx context.Context) (*client.Quorum, error) {
	return pd.quorum.Get(ctx, func(ctx context.Context) (*client.Quorum, error) {
		got, err := pd.client.GetOrganizationConfigs(ctx, client.GetOrganizationConfigsRequest{})
		if err != nil {
			return nil, err
		}
		return got.Configs.Quorum, nil
	})
}

// PublicKey is the provider's API key.
func (pd *providerData) PublicKey() string { return pd.client.PublicKey() }

// addFindings reports the guard's findings as diagnostics.
func addFindings(diags *diag.Diagnostics, found []lockout.Finding) {
	for _, f := range found {
		if f.Severity == lockout.Error {
			diags.AddError(f.Summary, f.Detail)
		} else {
			diags.AddWarning(f.Summary, f.Detail)
		}
	}
}
