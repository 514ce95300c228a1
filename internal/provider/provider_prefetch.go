package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-log/tflog"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/percommand"
)

// prefetch sends the command's first reads together, beside the
// credentials check that Configure waits for: the policies (refresh, the
// lockout guard and the access review) and the root quorum (the guard's
// root decision, the review's root users, and whether a create may go
// alone). Each was read in turn, after the check, when first needed. Each
// read lands in the cache its users read (percommand). Each is sent once,
// never retried (client.SingleAttempt): one that fails is read again by
// its first user, with that user's deadline and retries, so that its
// error, if any, says what the service answered.
//
// The adoption listing (list_activities: what an earlier apply left
// waiting) is not among them, though an apply's first submit waits for
// it: it pages through the day's completed creates, three pages after an
// apply of 200 policies, and a provider process cannot tell a plan from an
// apply when it is configured. Sent with every command's first reads, it
// made a plan 7 requests and a destroy 21 (bench, N = 200); it stays with
// the first submit of each type, one round trip more for an apply.
//
// Under a request budget (max_requests_per_second) nothing is read ahead:
// the user has said that requests cost more than waiting.
func (pd *providerData) prefetch(ctx context.Context) {
	if pd.client.Budget() != nil {
		return
	}
	ctx = client.SingleAttempt(context.WithoutCancel(ctx)) // Configure returns before the reads do
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
