package client

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"
)

// Defaults used when a Config field is left zero.
const (
	DefaultMaxRetries = 5
	// MaxRetryAfter is the longest the client waits before one retry,
	// whatever the service's Retry-After asks.
	MaxRetryAfter          = 60 * time.Second
	DefaultRetryWaitMin    = 250 * time.Millisecond
	DefaultRetryWaitMax    = 20 * time.Second
	DefaultPollInterval    = 1 * time.Second
	DefaultPollIntervalMax = 5 * time.Second
	DefaultInterruptGrace  = 30 * time.Second
	DefaultUserAgent       = "terraform-provider-custody-client"
)

// Config says where the service is and who is calling it.
type Config struct {
	// BaseURL is the service address, e.g. https://api.example.com. Plain
	// http is accepted only for loopback hosts (the local emulator).
	BaseURL string
	// OrganizationID is put in every request body.
	OrganizationID string
	// APIPublicKey is the compressed SEC1 P-256 public key, hex (66 chars).
	APIPublicKey string
	// APIPrivateKey is the 32-byte P-256 scalar, hex (64 chars).
	APIPrivateKey string

	// HTTPClient sends the requests; nil means a client with a 60 s timeout.
	// Its Timeout bounds one attempt: an attempt that times out is retried.
	HTTPClient *http.Client
	// UserAgent is sent as User-Agent; empty means DefaultUserAgent.
	UserAgent string

	// Retries bounds the retries of one request after a 429, any 5xx,
	// a dropped or reset connection, a timeout or another transport error;
	// submits included, since a retry resends the identical body, which the
	// service deduplicates. The zero value means DefaultMaxRetries; set
	// RetryUpTo(n) or NoRetries for anything else.
	Retries Retries
	// RetryWaitMin and RetryWaitMax bound the backoff between retries when
	// the service sends no Retry-After: the n-th retry waits a random time
	// up to min(RetryWaitMax, RetryWaitMin·2^(n-1)) (full jitter).
	RetryWaitMin, RetryWaitMax time.Duration
	// PollInterval and PollIntervalMax bound the backoff between
	// get_activity polls of an activity that is not yet terminal.
	PollInterval, PollIntervalMax time.Duration
	// ApprovalWait is how long a submit keeps polling an activity that
	// waits for consensus or authenticators before it returns an
	// *ConsensusNeededError. Zero returns that error at once;
	// ApprovalWaitUntilDeadline waits as long as the context allows. The
	// wait never outlasts its context: it ends ApprovalMargin before the
	// context's deadline.
	ApprovalWait time.Duration
	// InterruptGrace is how long a submit that may have reached the service
	// goes on after its context is canceled (an interrupt), to learn what
	// became of the activity; see SeeThrough. Zero means
	// DefaultInterruptGrace.
	InterruptGrace time.Duration
	// AdoptPending makes every submit first look for an activity of the
	// same type and intent that this key submitted earlier and that still
	// waits for approval, or completed after approval, and adopt it
	// instead of submitting again; see pendingActivities.
	AdoptPending bool
	// Budget, when set, caps the requests per second of every client that
	// shares it (see RequestBudget); nil sends each request as soon as it
	// is ready. Copies made by With* share it.
	Budget *RequestBudget
	// CheckIdentity makes the client confirm, with one whoami for
	// OrganizationID, that the API key belongs to a user of that
	// organization: the check starts with StartIdentityCheck or the first
	// request, runs beside the requests, and a failed check is the error
	// of every call (an *IdentityError), sent or not.
	CheckIdentity bool

	// Log, when set, receives debug events (retries, polls). It is never
	// given request bodies or keys. Its signature matches tflog.Debug.
	Log func(ctx context.Context, msg string, fields ...map[string]any)
	// Info, when set, receives the events a person may act on: an
	// activity that starts waiting for approvals, with its id, type and
	// fingerprint. Its signature matches tflog.Info.
	Info func(ctx context.Context, msg string, fields ...map[string]any)
}

// Retries is how many times a request may be retried. Its zero value
// means DefaultMaxRetries, so a Config that says nothing gets the default
// and "never retry" has to be asked for by name.
type Retries struct {
	n   int
	set bool
}

// RetryUpTo allows up to n retries of each request (n+1 attempts in all);
// RetryUpTo(0) is NoRetries. New refuses a negative n.
func RetryUpTo(n int) Retries { return Retries{n: n, set: true} }

// NoRetries sends each request once.
var NoRetries = RetryUpTo(0)

// limit is the number of retries allowed.
func (r Retries) limit() int {
	if !r.set {
		return DefaultMaxRetries
	}
	return r.n
}

// Client is safe for concurrent use. Its With* methods return copies that
// share the HTTP client and key.
type Client struct {
	baseURL *url.URL
	orgID   string
	key     *APIKey
	http    *http.Client
	ua      string

	maxRetries         int
	retryMin, retryMax time.Duration
	pollMin, pollMax   time.Duration
	approvalWait       time.Duration
	interruptGrace     time.Duration
	log, info          func(ctx context.Context, msg string, fields ...map[string]any)
	now                func() time.Time
	sleep              func(ctx context.Context, d time.Duration) error
	jitter             func(d time.Duration) time.Duration
	webhookKeys        *WebhookKeyCache
	stamps             *submitClock
	pending            *pendingActivities // nil unless Config.AdoptPending
	submitted          *submittedLog      // FindSubmission's listings
	identity           *identityCheck     // nil unless Config.CheckIdentity
	budget             *RequestBudget     // nil: no cap
}

// submitClock hands out strictly increasing timestampMs values. The
// service treats a byte-identical body as a resubmission of the same
// activity, so two distinct submits with equal parameters in the same
// millisecond (Terraform creating two identical objects in parallel) would
// otherwise become one activity and one object. Copies made by With* share
// it.
type submitClock struct {
	mu   sync.Mutex
	last int64
}

func (sc *submitClock) next(now time.Time) int64 {
	sc.mu.Lock()
	defer sc.mu.Unlock()
	ms := max(now.UnixMilli(), sc.last+1)
	sc.last = ms
	return ms
}

// New checks cfg and returns a client. Errors name the offending field.
func New(cfg Config) (*Client, error) {
	u, err := parseBaseURL(cfg.BaseURL)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(cfg.OrganizationID) == "" {
		return nil, configError(FieldOrganizationID, "organization id is required")
	}
	key, err := ParseAPIKey(cfg.APIPublicKey, cfg.APIPrivateKey)
	if err != nil {
		return nil, err
	}
	if n := cfg.Retries.limit(); n < 0 {
		return nil, configError(FieldRetries, "retries must not be negative, got %d (use NoRetries to send each request once)", n)
	}
	c := &Client{
		baseURL:        u,
		orgID:          cfg.OrganizationID,
		key:            key,
		http:           cfg.HTTPClient,
		ua:             cfg.UserAgent,
		maxRetries:     cfg.Retries.limit(),
		retryMin:       orDefault(cfg.RetryWaitMin, DefaultRetryWaitMin),
		retryMax:       orDefault(cfg.RetryWaitMax, DefaultRetryWaitMax),
		pollMin:        orDefault(cfg.PollInterval, DefaultPollInterval),
		pollMax:        orDefault(cfg.PollIntervalMax, DefaultPollIntervalMax),
		approvalWait:   cfg.ApprovalWait,
		interruptGrace: orDefault(cfg.InterruptGrace, DefaultInterruptGrace),
		log:            cfg.Log,
		info:           cfg.Info,
		now:            time.Now,
		sleep:          sleepContext,
		jitter:         fullJitter,
		stamps:         &submitClock{},
		submitted:      &submittedLog{},
		budget:         cfg.Budget,
	}
	if cfg.AdoptPending {
		c.pending = newPendingActivities()
	}
	if cfg.CheckIdentity {
		c.identity = &identityCheck{orgID: c.orgID, done: make(chan struct{})}
	}
	if c.http == nil {
		c.http = &http.Client{Timeout: 60 * time.Second}
	}
	if c.ua == "" {
		c.ua = DefaultUserAgent
	}
	if c.pollMax < c.pollMin {
		c.pollMax = c.pollMin
	}
	if c.retryMax < c.retryMin {
		c.retryMax = c.retryMin
	}
	c.webhookKeys = NewWebhookKeyCache(c.http, c.endpoint(WebhookKeySetPath))
	c.webhookKeys.budget = c.budget
	return c, nil
}

// OrganizationID is the organization named in every request.
func (c *Client) OrganizationID() string { return c.orgID }

// PublicKey is the API public key that stamps every request.
func (c *Client) PublicKey() string { return c.key.PublicKeyHex() }

// WithOrganization returns a client that acts on another organization
// (a sub-organization) with the same key.
func (c *Client) WithOrganization(id string) *Client {
	cp := *c
	cp.orgID = id
	return &cp
}

// WithApprovalWait returns a client whose submits keep polling an activity
// that needs consensus or authenticators for up to d before giving up with
// a *ConsensusNeededError.
func (c *Client) WithApprovalWait(d time.Duration) *Client {
	cp := *c
	cp.approvalWait = d
	return &cp
}

// WebhookKeys is the cache of the service's webhook verification key set.
func (c *Client) WebhookKeys() *WebhookKeyCache { return c.webhookKeys }

func (c *Client) endpoint(path string) string {
	return strings.TrimSuffix(c.baseURL.String(), "/") + path
}

func (c *Client) debug(ctx context.Context, msg string, fields map[string]any) {
	if c.log != nil {
		c.log(ctx, msg, fields)
	}
}

// CheckBaseURL applies New's rule for base URLs on its own, for callers
// that reach the service without credentials (the webhook key set).
func CheckBaseURL(raw string) error {
	_, err := parseBaseURL(raw)
	return err
}

// parseBaseURL refuses anything but https, except http to a loopback host,
// so that API keys and stamps never cross a network in the clear. Its
// errors are *ConfigError about FieldBaseURL.
func parseBaseURL(raw string) (*url.URL, error) {
	if strings.TrimSpace(raw) == "" {
		return nil, configError(FieldBaseURL, "base URL is required")
	}
	// Without "://" Go reads api.example.com:443 as the scheme
	// "api.example.com" and refuses 127.0.0.1:8443 outright ("first path
	// segment in URL cannot contain colon"): say what is missing instead.
	// (https:api.example.com has its scheme and is refused below for
	// having no host.)
	if trimmed := strings.TrimSpace(raw); !strings.Contains(trimmed, "://") && !hasHTTPScheme(trimmed) {
		return nil, configError(FieldBaseURL,
			"base_url %q has no scheme: write it as %q (http:// only for an emulator on a loopback address)",
			raw, "https://"+strings.TrimPrefix(trimmed, "//"))
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, &ConfigError{Field: FieldBaseURL, Err: fmt.Errorf("base URL %q: %w", raw, err)}
	}
	if u.Host == "" {
		return nil, configError(FieldBaseURL, "base URL %q has no host", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, configError(FieldBaseURL, "base URL %q must not have a query or fragment", raw)
	}
	switch u.Scheme {
	case "https":
	case "http":
		if !isLoopback(u.Hostname()) {
			return nil, configError(FieldBaseURL, "base URL %q: plain http is allowed only for a loopback host such as 127.0.0.1 or localhost (the local emulator); use https", raw)
		}
	default:
		return nil, configError(FieldBaseURL, "base URL %q: scheme must be https (or http for a loopback host)", raw)
	}
	return u, nil
}

// hasHTTPScheme reports whether s starts with http: or https:, in any case.
func hasHTTPScheme(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "http:") || strings.HasPrefix(l, "https:")
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

func orDefault(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// GetWebhookKeySet reads the webhook verification key set
// (GET /public/v1/discovery/webhooks/jwks, unstamped) through the client's
// cache, which honours the answer's Cache-Control.
func (c *Client) GetWebhookKeySet(ctx context.Context) (*WebhookKeySet, error) {
	return c.webhookKeys.KeySet(ctx)
}
