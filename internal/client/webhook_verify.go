package client

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"time"
)

// Headers of a webhook delivery.
const (
	WebhookHeaderSignature          = "X-Service-Signature" // lowercase hex, 64 bytes
	WebhookHeaderSignatureKeyID     = "X-Service-Signature-Key-Id"
	WebhookHeaderSignatureAlgorithm = "X-Service-Signature-Algorithm" // "ed25519"
	WebhookHeaderSignatureVersion   = "X-Service-Signature-Version"   // "v1"
	WebhookHeaderTimestamp          = "X-Service-Timestamp"           // ms since epoch
	WebhookHeaderEventID            = "X-Service-Event-Id"            // same across retries
	WebhookHeaderOrganizationID     = "X-Service-Organization-Id"
	WebhookHeaderEventType          = "X-Service-Event-Type"
	WebhookHeaderWebhookVersion     = "X-Service-Webhook-Version" // "1"
)

const (
	webhookAlgorithm        = "ed25519"
	webhookSignatureVersion = "v1"
	webhookPayloadVersion   = "1"
	webhookDefaultTolerance = 5 * time.Minute
)

var (
	// ErrWebhookStale matches a delivery whose timestamp is outside the
	// tolerance, too old or too far in the future: a replay, or a clock
	// too far off to trust.
	ErrWebhookStale = errors.New("webhook timestamp outside tolerance")
	// ErrWebhookBadSignature matches a delivery whose signature does not
	// verify over its headers and body.
	ErrWebhookBadSignature = errors.New("webhook signature does not verify")
)

// webhookRequiredHeaders are checked, in this order, by Verify.
var webhookRequiredHeaders = []string{
	WebhookHeaderSignature,
	WebhookHeaderSignatureKeyID,
	WebhookHeaderSignatureAlgorithm,
	WebhookHeaderSignatureVersion,
	WebhookHeaderTimestamp,
	WebhookHeaderEventID,
	WebhookHeaderOrganizationID,
	WebhookHeaderEventType,
	WebhookHeaderWebhookVersion,
}

// WebhookSignedMessage is what the service signs for a delivery:
// "v1.ed25519.<keyID>.<timestampMs>.<eventID>." followed by the raw body.
// The arguments are the header strings as received, not re-formatted.
func WebhookSignedMessage(keyID, timestampMs, eventID string, body []byte) []byte {
	prefix := webhookSignatureVersion + "." + webhookAlgorithm + "." + keyID + "." + timestampMs + "." + eventID + "."
	msg := make([]byte, 0, len(prefix)+len(body))
	return append(append(msg, prefix...), body...)
}

// WebhookDelivery is a verified delivery. EventType and OrganizationID come
// from headers the signature does not cover; trust the body for anything
// that matters. Body is the caller's slice, not a copy.
type WebhookDelivery struct {
	EventID        string
	EventType      string
	OrganizationID string
	KeyID          string
	Timestamp      time.Time
	Body           []byte
}

// WebhookVerifier checks deliveries against the service's key set.
type WebhookVerifier struct {
	Keys      *WebhookKeyCache
	Tolerance time.Duration    // how far the timestamp may be from now; 0 means 5 minutes
	now       func() time.Time // nil means time.Now; replaced by tests
}

// NewWebhookVerifier returns a verifier with the default tolerance.
func NewWebhookVerifier(keys *WebhookKeyCache) *WebhookVerifier {
	return &WebhookVerifier{Keys: keys}
}

// Verify checks a delivery's headers h and raw body and returns it decoded.
// The cheap checks come first so that a malformed or replayed delivery never
// causes a key set fetch.
func (v *WebhookVerifier) Verify(ctx context.Context, h http.Header, body []byte) (*WebhookDelivery, error) {
	if v == nil || v.Keys == nil {
		return nil, errors.New("webhook verifier has no key cache")
	}
	hv := make(map[string]string, len(webhookRequiredHeaders))
	for _, name := range webhookRequiredHeaders {
		vals := h.Values(name)
		switch {
		case len(vals) == 0 || vals[0] == "":
			return nil, fmt.Errorf("webhook delivery has no %s header", name)
		case len(vals) > 1:
			// Which one the signer meant is unknowable; refuse to guess.
			return nil, fmt.Errorf("webhook delivery has %d %s headers, want one", len(vals), name)
		}
		hv[name] = vals[0]
	}
	for _, want := range []struct{ name, value string }{
		{WebhookHeaderSignatureAlgorithm, webhookAlgorithm},
		{WebhookHeaderSignatureVersion, webhookSignatureVersion},
		{WebhookHeaderWebhookVersion, webhookPayloadVersion},
	} {
		if got := hv[want.name]; got != want.value {
			return nil, fmt.Errorf("webhook delivery %s is %q, want %q", want.name, got, want.value)
		}
	}

	tsRaw := hv[WebhookHeaderTimestamp]
	ms, err := strconv.ParseInt(tsRaw, 10, 64)
	if err != nil {
		return nil, fmt.Errorf("webhook delivery %s %q is not milliseconds since the epoch", WebhookHeaderTimestamp, tsRaw)
	}
	ts := time.UnixMilli(ms)
	tol := v.Tolerance
	if tol <= 0 {
		tol = webhookDefaultTolerance
	}
	now := time.Now
	if v.now != nil {
		now = v.now
	}
	// Compare instants, not now.Sub(ts): a Duration saturates and negating
	// the minimum one overflows, which would let an absurd timestamp pass.
	switch n := now(); {
	case ts.Before(n.Add(-tol)):
		return nil, fmt.Errorf("%w: timestamp %s is %s old, more than %s", ErrWebhookStale, ts.UTC().Format(time.RFC3339Nano), n.Sub(ts), tol)
	case ts.After(n.Add(tol)):
		return nil, fmt.Errorf("%w: timestamp %s is %s in the future, more than %s", ErrWebhookStale, ts.UTC().Format(time.RFC3339Nano), ts.Sub(n), tol)
	}

	sig, err := hex.DecodeString(hv[WebhookHeaderSignature])
	if err != nil {
		return nil, fmt.Errorf("webhook delivery %s is not hex: %w", WebhookHeaderSignature, err)
	}
	if len(sig) != ed25519.SignatureSize {
		return nil, fmt.Errorf("webhook delivery %s is %d bytes, want %d", WebhookHeaderSignature, len(sig), ed25519.SignatureSize)
	}

	kid, eventID := hv[WebhookHeaderSignatureKeyID], hv[WebhookHeaderEventID]
	key, err := v.Keys.Key(ctx, kid)
	if err != nil {
		return nil, fmt.Errorf("webhook delivery %s: %w", eventID, err)
	}
	if !ed25519.Verify(key, WebhookSignedMessage(kid, tsRaw, eventID, body), sig) {
		return nil, fmt.Errorf("%w: event %s, key %q", ErrWebhookBadSignature, eventID, kid)
	}
	return &WebhookDelivery{
		EventID:        eventID,
		EventType:      hv[WebhookHeaderEventType],
		OrganizationID: hv[WebhookHeaderOrganizationID],
		KeyID:          kid,
		Timestamp:      ts,
		Body:           body,
	}, nil
}
