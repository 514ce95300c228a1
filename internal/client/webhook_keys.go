package client

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
)

// WebhookKeySetPath is where the service publishes the public keys that sign
// webhook deliveries. It needs no authentication.
const WebhookKeySetPath = "/public/v1/discovery/webhooks/jwks"

// ErrWebhookUnknownKey matches, with errors.Is, a key id that is not in the
// key set even after refetching it.
var ErrWebhookUnknownKey = errors.New("webhook signing key not in key set")

const (
	// webhookMaxKeySetBytes bounds what we read from the key set endpoint.
	webhookMaxKeySetBytes = 1 << 20
	// webhookMaxDeltaSeconds caps Cache-Control deltas (RFC 9111 §1.2.2) so
	// that a huge max-age cannot overflow time.Duration.
	webhookMaxDeltaSeconds = 1<<31 - 1
)

// WebhookKey is one entry of the key set, exactly as on the wire.
type WebhookKey struct {
	Kid                       string `json:"kid"`
	Kty                       string `json:"kty"`
	Crv                       string `json:"crv"`
	Alg                       string `json:"alg"`
	Use                       string `json:"use"`
	X                         string `json:"x"` // base64url, no padding
	ServiceSignatureAlgorithm string `json:"service_signature_algorithm"`
	ServiceSignatureVersion   string `json:"service_signature_version"`
}

// WebhookKeySet is the body of GET WebhookKeySetPath.
type WebhookKeySet struct {
	Keys []WebhookKey `json:"keys"`
}

// PublicKey returns the Ed25519 key, after checking that the entry really is
// a v1 ed25519 signing key: a key published for anything else must not be
// accepted for deliveries.
func (k WebhookKey) PublicKey() (ed25519.PublicKey, error) {
	if k.Kid == "" {
		return nil, errors.New("webhook key: kid is empty")
	}
	for _, f := range []struct{ name, got, want string }{
		{"kty", k.Kty, "OKP"},
		{"crv", k.Crv, "Ed25519"},
		{"alg", k.Alg, "EdDSA"},
		{"use", k.Use, "sig"},
		{"service_signature_algorithm", k.ServiceSignatureAlgorithm, webhookAlgorithm},
		{"service_signature_version", k.ServiceSignatureVersion, webhookSignatureVersion},
	} {
		if f.got != f.want {
			return nil, fmt.Errorf("webhook key %q: %s is %q, want %q", k.Kid, f.name, f.got, f.want)
		}
	}
	raw, err := base64.RawURLEncoding.DecodeString(k.X)
	if err != nil {
		return nil, fmt.Errorf("webhook key %q: x is not unpadded base64url: %w", k.Kid, err)
	}
	if len(raw) != ed25519.PublicKeySize {
		return nil, fmt.Errorf("webhook key %q: x is %d bytes, want %d", k.Kid, len(raw), ed25519.PublicKeySize)
	}
	return ed25519.PublicKey(raw), nil
}

// WebhookKeyCache fetches the key set and caches it as its Cache-Control
// header allows. It is safe for concurrent use.
type WebhookKeyCache struct {
	httpClient *http.Client
	url        string
	now        func() time.Time // replaced by tests
	budget     *RequestBudget   // the client's, when New made the cache

	// sem is a one-slot lock held across fetches, so concurrent callers
	// wait for one fetch instead of each making their own, and a waiter
	// can still give up when its context ends (a sync.Mutex cannot).
	sem chan struct{}

	// Guarded by sem. set is nil when nothing may be reused.
	set        *WebhookKeySet
	freshUntil time.Time
	staleUntil time.Time // last moment set may stand in for a failed fetch
}

// NewWebhookKeyCache returns a cache of the key set at keySetURL, usually
// baseURL + WebhookKeySetPath. A nil httpClient means http.DefaultClient.
func NewWebhookKeyCache(httpClient *http.Client, keySetURL string) *WebhookKeyCache {
	if httpClient == nil {
		httpClient = http.DefaultClient
	}
	return &WebhookKeyCache{httpClient: httpClient, url: keySetURL, now: time.Now, sem: make(chan struct{}, 1)}
}

// Key returns the public key with id kid. A kid missing from the cached set
// triggers one refetch first, since the service may have rotated in a new key
// before our cached copy expired.
func (c *WebhookKeyCache) Key(ctx context.Context, kid string) (ed25519.PublicKey, error) {
	return withCurrentSet(ctx, c, func(set *WebhookKeySet, attempted bool, fetchErr error) (ed25519.PublicKey, error) {
		if k, ok := webhookFindKey(set, kid); ok {
			return k.PublicKey()
		}
		if !attempted {
			if fresh, err := c.refresh(ctx); err != nil {
				fetchErr = err
			} else if k, ok := webhookFindKey(fresh, kid); ok {
				return k.PublicKey()
			}
		}
		if fetchErr != nil {
			// We could not ask the service, so the kid is not known to be bad:
			// report the fetch failure (retryable), not ErrWebhookUnknownKey.
			return nil, fmt.Errorf("webhook key %q is not in the cached key set and refetching it failed: %w", kid, fetchErr)
		}
		return nil, fmt.Errorf("%w: kid %q (key set %s)", ErrWebhookUnknownKey, kid, c.url)
	})
}

// KeySet returns the cached key set, fetching it if it may not be reused.
// The result is a copy; changing it does not change the cache.
func (c *WebhookKeyCache) KeySet(ctx context.Context) (*WebhookKeySet, error) {
	return withCurrentSet(ctx, c, func(set *WebhookKeySet, _ bool, _ error) (*WebhookKeySet, error) {
		return &WebhookKeySet{Keys: slices.Clone(set.Keys)}, nil
	})
}

// withCurrentSet calls use with what current returns, holding the lock
// for both: the set (never nil), whether this call fetched it, and the
// fetch's failure when a stale set stands in. Without any set, the fetch's
// failure is the answer.
func withCurrentSet[T any](ctx context.Context, c *WebhookKeyCache,
	use func(set *WebhookKeySet, attempted bool, fetchErr error) (T, error),
) (T, error) {
	var none T
	if err := c.lock(ctx); err != nil {
		return none, err
	}
	defer c.unlock()
	set, attempted, fetchErr := c.current(ctx)
	if set == nil {
		return none, fetchErr
	}
	return use(set, attempted, fetchErr)
}

func (c *WebhookKeyCache) lock(ctx context.Context) error {
	select {
	case c.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for webhook key set: %w", ctx.Err())
	}
}

func (c *WebhookKeyCache) unlock() { <-c.sem }

// current returns the set to use now: the cached one while fresh, else a
// fetched one, else (stale-if-error) the cached one while still allowed.
// attempted says whether this call already fetched; fetchErr is the fetch
// failure, set even when a stale set is returned. Caller holds the lock.
func (c *WebhookKeyCache) current(ctx context.Context) (set *WebhookKeySet, attempted bool, fetchErr error) {
	if c.set != nil && c.now().Before(c.freshUntil) {
		return c.set, false, nil
	}
	set, err := c.refresh(ctx)
	if err == nil {
		return set, true, nil
	}
	if c.set != nil && !c.now().After(c.staleUntil) {
		return c.set, true, err
	}
	return nil, true, err
}

// refresh fetches the set and, on success, replaces the cache according to
// the answer's Cache-Control. A failed fetch leaves the cache as it was, so
// the old set can still serve stale-if-error. Caller holds the lock.
func (c *WebhookKeyCache) refresh(ctx context.Context) (*WebhookKeySet, error) {
	set, header, err := c.fetch(ctx)
	if err != nil {
		return nil, err
	}
	c.set, c.freshUntil, c.staleUntil = nil, time.Time{}, time.Time{}
	cc := webhookParseCacheControl(strings.Join(header.Values("Cache-Control"), ","))
	if cc.noStore || cc.noCache || !cc.hasMaxAge {
		return set, nil // good for this call only
	}
	// Age is the time a shared cache (the CDN that s-maxage targets) already
	// held the answer; without subtracting it a key set could outlive the
	// service's intended lifetime by up to one max-age.
	lifetime := cc.maxAge
	if age, ok := webhookParseDelta(header.Get("Age")); ok {
		lifetime -= age
	}
	c.set = set
	c.freshUntil = c.now().Add(lifetime)
	c.staleUntil = c.freshUntil.Add(cc.staleIfError)
	return set, nil
}

func (c *WebhookKeyCache) fetch(ctx context.Context) (*WebhookKeySet, http.Header, error) {
	if err := c.budget.take(ctx, nil); err != nil {
		return nil, nil, fmt.Errorf("fetch webhook key set: not sent: waiting for the request budget: %w", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.url, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("webhook key set %s: %w", c.url, err)
	}
	req.Header.Set("Accept", "application/json")
	resp, err := c.httpClient.Do(req)
	if err != nil {
		return nil, nil, fmt.Errorf("fetch webhook key set: %w", err) // *url.Error names the URL
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(io.LimitReader(resp.Body, webhookMaxKeySetBytes+1))
	if err != nil {
		return nil, nil, fmt.Errorf("fetch webhook key set %s: HTTP %s: reading body: %w", c.url, resp.Status, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		var status struct {
			Message string `json:"message"`
		}
		msg := ""
		if json.Unmarshal(body, &status) == nil && status.Message != "" {
			msg = ": " + status.Message
		}
		return nil, nil, fmt.Errorf("fetch webhook key set %s: HTTP %s%s", c.url, resp.Status, msg)
	}
	if len(body) > webhookMaxKeySetBytes {
		return nil, nil, fmt.Errorf("fetch webhook key set %s: body larger than %d bytes", c.url, webhookMaxKeySetBytes)
	}
	var set WebhookKeySet
	if err := json.Unmarshal(body, &set); err != nil {
		return nil, nil, fmt.Errorf("fetch webhook key set %s: decoding body: %w", c.url, err)
	}
	// An empty set can verify nothing; treat it as a bad answer so a
	// stale set that can still serve is not replaced by it.
	if len(set.Keys) == 0 {
		return nil, nil, fmt.Errorf("fetch webhook key set %s: body has no keys", c.url)
	}
	return &set, resp.Header, nil
}

func webhookFindKey(set *WebhookKeySet, kid string) (WebhookKey, bool) {
	for _, k := range set.Keys {
		if k.Kid == kid {
			return k, true
		}
	}
	return WebhookKey{}, false
}

// webhookCacheControl holds the Cache-Control directives the key cache uses.
type webhookCacheControl struct {
	maxAge       time.Duration
	hasMaxAge    bool
	staleIfError time.Duration
	noStore      bool
	noCache      bool
}

// webhookParseCacheControl parses a Cache-Control value. Unknown directives
// and malformed values are ignored; a repeated delta keeps the smallest,
// the conservative reading.
func webhookParseCacheControl(v string) webhookCacheControl {
	var cc webhookCacheControl
	hasStale := false
	for _, part := range strings.Split(v, ",") {
		name, value, _ := strings.Cut(part, "=")
		name = strings.ToLower(strings.TrimSpace(name))
		value = strings.Trim(strings.TrimSpace(value), `"`)
		switch name {
		case "no-store":
			cc.noStore = true
		case "no-cache":
			cc.noCache = true
		case "max-age":
			if d, ok := webhookParseDelta(value); ok && (!cc.hasMaxAge || d < cc.maxAge) {
				cc.maxAge, cc.hasMaxAge = d, true
			}
		case "stale-if-error":
			if d, ok := webhookParseDelta(value); ok && (!hasStale || d < cc.staleIfError) {
				cc.staleIfError, hasStale = d, true
			}
		}
	}
	return cc
}

// webhookParseDelta parses delta-seconds: digits only, capped.
func webhookParseDelta(s string) (time.Duration, bool) {
	if s == "" || strings.Trim(s, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n > webhookMaxDeltaSeconds {
		n = webhookMaxDeltaSeconds // only overflow can fail once s is all digits
	}
	return time.Duration(n) * time.Second, true
}
