package provider

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
	"github.com/custody-labs/terraform-provider-custody/internal/policyset/review"
)

// providerData is what Configure hands to resources and data sources. It
// lives for one Terraform command (Terraform configures the provider at the
// start of each), so its caches never outlive a plan or an apply.
type providerData struct {
	client          *client.Client // nil when configured without credentials
	keys            *client.WebhookKeyCache
	approvalTimeout time.Duration
	lists           *listCache
	// guard checks planned policy changes for a lockout; nil without the
	// credentials check, whose whoami it needs.
	guard *lockoutGuard
	// review is the access review of the command's policy changes (see
	// resource_policy_access_review.go), and controls what it holds them
	// to.
	review   *accessReview
	controls []review.Control
	// neverApplyingDenyWarns: a deny proved never to apply is a warning,
	// not an error (never_applying_deny = "warning").
	neverApplyingDenyWarns bool
	// batches gathers the creates and deletes that go out as one activity;
	// nil when batching is off.
	batches *batcher
}

func newProviderData(c *client.Client, approval time.Duration) *providerData {
	pd := &providerData{client: c, keys: c.WebhookKeys(), approvalTimeout: approval, lists: newListCache()}
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
	return &providerData{keys: keys, lists: newListCache()}, nil
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

// listCache shares one list query among the resources of one command, so
// that refreshing N tags or webhook endpoints costs one request, not N.
// A write through this provider drops the list it may have changed.
type listCache struct {
	mu      sync.Mutex
	entries map[string]*listEntry
}

type listEntry struct {
	once  sync.Once
	value any
	err   error
}

func newListCache() *listCache { return &listCache{entries: map[string]*listEntry{}} }

// cachedList returns the cached answer of key, fetching it once.
func cachedList[T any](ctx context.Context, lc *listCache, key string, fetch func(context.Context) (T, error)) (T, error) {
	lc.mu.Lock()
	e, ok := lc.entries[key]
	if !ok {
		e = &listEntry{}
		lc.entries[key] = e
	}
	lc.mu.Unlock()
	e.once.Do(func() { e.value, e.err = fetch(ctx) })
	if e.err != nil {
		lc.forget(key) // a failure is not cached: the next caller retries
		var zero T
		return zero, e.err
	}
	v, ok := e.value.(T)
	if !ok { // two callers used one key for different types
		panic(fmt.Sprintf("list cache: key %q holds %T, not %T", key, e.value, v))
	}
	return v, nil
}

// forget drops a list after a write that may have changed it.
func (lc *listCache) forget(key string) {
	lc.mu.Lock()
	delete(lc.entries, key)
	lc.mu.Unlock()
}
