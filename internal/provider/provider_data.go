package provider

import (
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/lockout"
	"github.com/custody-labs/terraform-provider-custody/internal/percommand"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/review"
	"github.com/custody-labs/terraform-provider-custody/internal/submit"
)

// providerData is what Configure hands to resources and data sources. It
// lives for one Terraform command (Terraform configures the provider at the
// start of each), so its caches never outlive a plan or an apply.
type providerData struct {
	client          *client.Client // nil when configured without credentials
	keys            *client.WebhookKeyCache
	approvalTimeout time.Duration
	lists           *percommand.Lists
	// quorum is the organization's root quorum, read once when first
	// needed (RootQuorum).
	quorum *percommand.FirstSuccess[*client.Quorum]
	// guard checks planned policy changes for a lockout; nil without the
	// credentials check, whose whoami it needs.
	guard *lockout.Guard
	// review is the access review of the command's policy changes (see
	// resource_policy_access_review.go), and controls what it holds them
	// to.
	review   *accessReview
	controls []review.Control
	// replay is the replay of recent activities under each change's
	// access report, nil when off (access_review_replay.go).
	replay *replaySettings
	// neverApplyingDenyWarns: a deny proved never to apply is a warning,
	// not an error (never_applying_deny = "warning").
	neverApplyingDenyWarns bool
	// planned are the custody_policy resources planned so far, and
	// claims the exclusive resources (exclusive.go).
	planned plannedPolicies
	claims  exclusiveClaims
	// runner submits activities, and gathers the creates and deletes
	// that go out as one (runner.Batches, nil when batching is off).
	runner *submit.Runner
}

func newProviderData(c *client.Client, approval time.Duration) *providerData {
	pd := &providerData{client: c, keys: c.WebhookKeys(), approvalTimeout: approval, lists: percommand.NewLists(),
		quorum: percommand.NewFirstSuccess[*client.Quorum](), runner: &submit.Runner{Client: c}}
	if accessReviewEnabled {
		pd.review = newAccessReview(pd)
	}
	return pd
}

// newKeySetOnlyData serves the unauthenticated webhook key set only.
func newKeySetOnlyData(baseURL string) (*providerData, error) {
	if err := client.CheckBaseURL(baseURL); err != nil {
		return nil, err
	}
	keys := client.NewWebhookKeyCache(&http.Client{Timeout: 60 * time.Second}, strings.TrimSuffix(baseURL, "/")+client.WebhookKeySetPath)
	return &providerData{keys: keys, lists: percommand.NewLists()}, nil
}

// keySetFrom is providerDataFrom for the one data source that needs no
// credentials.
func keySetFrom(data any, diags *diag.Diagnostics) *client.WebhookKeyCache {
	if data == nil {
		return nil
	}
	pd, ok := data.(*providerData)
	if !ok {
		diags.AddError("Unexpected provider data", fmt.Sprintf("Expected *providerData, got %T. This is always a bug in the provider; please report it.", data))
		return nil
	}
	return pd.keys
}

// providerDataFrom checks the type of what the framework hands to a
// resource's Configure; nil means the provider is not configured yet.
func providerDataFrom(data any, diags *diag.Diagnostics) *providerData {
	if data == nil {
		return nil
	}
	pd, ok := data.(*providerData)
	if !ok {
		diags.AddError("Unexpected provider data",
			fmt.Sprintf("Expected *providerData, got %T. This is always a bug in the provider; please report it.", data))
		return nil
	}
	if pd.client == nil {
		diags.AddError("Missing provider credentials",
			"This needs the provider's credentials: set organization_id, api_public_key and api_private_key in the provider block "+
				"or CUSTODY_ORGANIZATION_ID, CUSTODY_API_PUBLIC_KEY and CUSTODY_API_PRIVATE_KEY. Only custody_webhook_verification_keys works without them.")
		return nil
	}
	return pd
}
