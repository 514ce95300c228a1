package provider

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/diag"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// providerData is what Configure hands to resources and data sources. It
// lives for one Terraform command (Terraform configures the provider at the
// start of each), so its caches never outlive a plan or an apply.
type providerData struct {
	client          *client.Client
	approvalTimeout time.Duration
	pending         *pendingActivities
	lists           *listCache
}

func newProviderData(c *client.Client, approval time.Duration) *providerData {
	return &providerData{client: c, approvalTimeout: approval, pending: newPendingActivities(), lists: newListCache()}
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
	return e.value.(T), nil
}

// forget drops a list after a write that may have changed it.
func (lc *listCache) forget(key string) {
	lc.mu.Lock()
	delete(lc.entries, key)
	lc.mu.Unlock()
}
