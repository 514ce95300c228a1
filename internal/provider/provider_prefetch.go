package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/percommand"
)

// submittedOperations are the operations this provider's resources may
// submit: every one in the client's table but the few that no resource
// submits. An apply lists, before its first submit, the activities of
// their types that an earlier apply left waiting (client.PrefetchPending);
// an operation added to the table is listed without an edit here.
func submittedOperations() []client.Operation {
	notByResources := map[string]bool{
		client.OpApproveActivity.Name: true, client.OpRejectActivity.Name: true, client.OpCreatePrivateKeys.Name: true,
		client.OpSignRawPayload.Name: true, client.OpSignTransaction.Name: true,
		client.OpInitOtp.Name: true, client.OpVerifyOtp.Name: true, client.OpRecoverUser.Name: true,
	}
	var out []client.Operation
	for _, op := range client.Operations() {
		if !notByResources[op.Name] {
			out = append(out, op)
		}
	}
	return out
}

// prefetch sends the command's first reads together, beside the
// credentials check that Configure waits for: the policies (refresh, the
// lockout guard and the access review), the root quorum (the guard's
// root decision, the review's root users, and whether a create may go
// alone) and the adoption listing. Each was read in turn, after the
// check, when first needed: four round trips before an apply's first
// submit. Now the command's fixed cost is the one round trip of the check,
// whatever the command turns out to be (a plan does not use the adoption
// listing, but a provider cannot tell a plan's process from an apply's
// before its first resource call). Each read lands in the cache its users
// read (percommand). Each is sent once, never retried
// (client.SingleAttempt): one that fails is read again by its first user,
// with that user's deadline and retries, so that its error, if any, says
// what the service answered.
//
// Under a request budget (max_requests_per_second) nothing is read ahead:
// the user has said that requests cost more than waiting, and a plan would
// spend its budget on an adoption listing only an apply uses.
func (pd *providerData) prefetch(ctx context.Context) {
	if pd.client.Budget() != nil {
		return
	}
	ctx = client.SingleAttempt(context.WithoutCancel(ctx)) // Configure returns before the reads do
	pd.client.PrefetchPending(ctx, submittedOperations()...)
	logFailure := func(what client.Query, err error) {
		if err != nil {
			tflog.Debug(ctx, "prefetch failed; its first user reads again", map[string]any{"read": string(what), "error": err.Error()})
		}
	}
	go func() {
		logFailure(client.QueryListPolicies, percommand.Prefetch(ctx, pd.lists, policiesListKey, pd.listPolicies))
	}()
	go func() {
		_, err := pd.RootQuorum(ctx)
		logFailure(client.QueryGetOrganizationConfigs, err)
	}()
}
