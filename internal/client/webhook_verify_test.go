package client

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestWebhookSignedMessage(t *testing.T) {
	body := []byte(`{"a":1}` + "\n")
	want := []byte("v1.ed25519.key-1.1748779200000.evt-9." + `{"a":1}` + "\n")
	if got := WebhookSignedMessage("key-1", "1748779200000", "evt-9", body); !bytes.Equal(got, want) {
		t.Fatalf("WebhookSignedMessage() = %q, want %q", got, want)
	}
}

// webhookTestDelivery is what a test signs; sign builds the message by hand,
// independently of WebhookSignedMessage.
type webhookTestDelivery struct {
	kid, ts, eventID string
	body             []byte
	priv             ed25519.PrivateKey
}

func (d webhookTestDelivery) headers() http.Header {
	msg := append([]byte(fmt.Sprintf("v1.ed25519.%s.%s.%s.", d.kid, d.ts, d.eventID)), d.body...)
	h := http.Header{}
	h.Set("X-Service-Signature", hex.EncodeToString(ed25519.Sign(d.priv, msg)))
	h.Set("X-Service-Signature-Key-Id", d.kid)
	h.Set("X-Service-Signature-Algorithm", "ed25519")
	h.Set("X-Service-Signature-Version", "v1")
	h.Set("X-Service-Timestamp", d.ts)
	h.Set("X-Service-Event-Id", d.eventID)
	h.Set("X-Service-Organization-Id", "org-1")
	h.Set("X-Service-Event-Type", "ACTIVITY_UPDATES")
	h.Set("X-Service-Webhook-Version", "1")
	return h
}

func TestWebhookVerify(t *testing.T) {
	k1, priv := newWebhookTestKey(t, "k1")
	_, otherPriv := newWebhookTestKey(t, "k1")
	srv := newWebhookTestServer(t, webhookTestProdCacheControl, k1)
	msAgo := func(now time.Time, d time.Duration) string { return strconv.FormatInt(now.Add(-d).UnixMilli(), 10) }

	type testCase struct {
		name      string
		pre       func(d *webhookTestDelivery, now time.Time) // before signing
		post      func(h http.Header, body *[]byte)           // after signing
		tolerance time.Duration
		wantIs    error
		wantMsg   string // empty with nil wantIs: must verify
		fetches   int64  // key set fetches expected (0: rejected before key lookup)
	}
	tests := []testCase{
		{name: "valid", fetches: 1},
		{name: "4 minutes old", pre: func(d *webhookTestDelivery, now time.Time) { d.ts = msAgo(now, 4*time.Minute) }, fetches: 1},
		{name: "4 minutes ahead", pre: func(d *webhookTestDelivery, now time.Time) { d.ts = msAgo(now, -4*time.Minute) }, fetches: 1},
		{name: "uppercase hex", post: func(h http.Header, _ *[]byte) {
			h.Set(WebhookHeaderSignature, strings.ToUpper(h.Get(WebhookHeaderSignature)))
		}, fetches: 1},
		{name: "changed body", post: func(_ http.Header, b *[]byte) { *b = append(*b, ' ') }, wantIs: ErrWebhookBadSignature, fetches: 1},
		{name: "changed event id", post: func(h http.Header, _ *[]byte) { h.Set(WebhookHeaderEventID, "evt-124") }, wantIs: ErrWebhookBadSignature, fetches: 1},
		{name: "changed timestamp", post: func(h http.Header, _ *[]byte) {
			ms, _ := strconv.ParseInt(h.Get(WebhookHeaderTimestamp), 10, 64)
			h.Set(WebhookHeaderTimestamp, strconv.FormatInt(ms+1, 10))
		}, wantIs: ErrWebhookBadSignature, fetches: 1},
		{name: "signed by another key", pre: func(d *webhookTestDelivery, _ time.Time) { d.priv = otherPriv }, wantIs: ErrWebhookBadSignature, fetches: 1},
		{name: "unknown key id", pre: func(d *webhookTestDelivery, _ time.Time) { d.kid = "k9" }, wantIs: ErrWebhookUnknownKey, fetches: 1},
		{name: "6 minutes old", pre: func(d *webhookTestDelivery, now time.Time) { d.ts = msAgo(now, 6*time.Minute) }, wantIs: ErrWebhookStale, wantMsg: "old"},
		{name: "6 minutes ahead", pre: func(d *webhookTestDelivery, now time.Time) { d.ts = msAgo(now, -6*time.Minute) }, wantIs: ErrWebhookStale, wantMsg: "future"},
		{name: "absurd future", pre: func(d *webhookTestDelivery, _ time.Time) { d.ts = "9223372036854775807" }, wantIs: ErrWebhookStale},
		{name: "absurd past", pre: func(d *webhookTestDelivery, _ time.Time) { d.ts = "-9223372036854775808" }, wantIs: ErrWebhookStale},
		{name: "custom tolerance", pre: func(d *webhookTestDelivery, now time.Time) { d.ts = msAgo(now, 2*time.Minute) }, tolerance: time.Minute, wantIs: ErrWebhookStale},
		{name: "timestamp not a number", pre: func(d *webhookTestDelivery, _ time.Time) { d.ts = "2025-06-01T12:00:00Z" }, wantMsg: "not milliseconds"},
		{name: "wrong algorithm", post: func(h http.Header, _ *[]byte) { h.Set(WebhookHeaderSignatureAlgorithm, "p256") }, wantMsg: `"p256", want "ed25519"`},
		{name: "wrong version", post: func(h http.Header, _ *[]byte) { h.Set(WebhookHeaderSignatureVersion, "v2") }, wantMsg: `"v2", want "v1"`},
		{name: "wrong webhook version", post: func(h http.Header, _ *[]byte) { h.Set(WebhookHeaderWebhookVersion, "2") }, wantMsg: `"2", want "1"`},
		{name: "malformed hex", post: func(h http.Header, _ *[]byte) { h.Set(WebhookHeaderSignature, "zz"+h.Get(WebhookHeaderSignature)[2:]) }, wantMsg: "not hex"},
		{name: "short signature", post: func(h http.Header, _ *[]byte) { h.Set(WebhookHeaderSignature, h.Get(WebhookHeaderSignature)[:64]) }, wantMsg: "32 bytes, want 64"},
		{name: "two signatures", post: func(h http.Header, _ *[]byte) { h.Add(WebhookHeaderSignature, h.Get(WebhookHeaderSignature)) }, wantMsg: "2 X-Service-Signature headers"},
	}
	for _, name := range webhookRequiredHeaders {
		tests = append(tests, testCase{
			name:    "missing " + name,
			post:    func(h http.Header, _ *[]byte) { h.Del(name) },
			wantMsg: "no " + name + " header",
		}, testCase{
			name:    "empty " + name,
			post:    func(h http.Header, _ *[]byte) { h.Set(name, "") },
			wantMsg: "no " + name + " header",
		})
	}

	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv.requests.Store(0)
			cache, clock := newWebhookTestCache(srv)
			v := NewWebhookVerifier(cache)
			v.now, v.Tolerance = clock.Now, tt.tolerance
			now := clock.Now()
			d := webhookTestDelivery{kid: "k1", ts: msAgo(now, 30*time.Second), eventID: "evt-123",
				body: []byte(`{"type":"ACTIVITY_UPDATES","activity":{"id":"a-1"}}`), priv: priv}
			if tt.pre != nil {
				tt.pre(&d, now)
			}
			h, body := d.headers(), bytes.Clone(d.body)
			if tt.post != nil {
				tt.post(h, &body)
			}

			got, err := v.Verify(context.Background(), h, body)
			webhookWantFetches(t, srv, tt.fetches)
			if tt.wantIs == nil && tt.wantMsg == "" {
				if err != nil {
					t.Fatalf("Verify() error = %v", err)
				}
				ms, _ := strconv.ParseInt(d.ts, 10, 64)
				want := WebhookDelivery{EventID: "evt-123", EventType: "ACTIVITY_UPDATES", OrganizationID: "org-1",
					KeyID: "k1", Timestamp: time.UnixMilli(ms), Body: d.body}
				if got.EventID != want.EventID || got.EventType != want.EventType || got.OrganizationID != want.OrganizationID ||
					got.KeyID != want.KeyID || !got.Timestamp.Equal(want.Timestamp) || !bytes.Equal(got.Body, want.Body) {
					t.Fatalf("Verify() = %+v, want %+v", got, want)
				}
				return
			}
			if err == nil {
				t.Fatalf("Verify() = %+v, want an error", got)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("Verify() error = %v, want errors.Is %v", err, tt.wantIs)
			}
			if !strings.Contains(err.Error(), tt.wantMsg) {
				t.Errorf("Verify() error = %v, want it to contain %q", err, tt.wantMsg)
			}
		})
	}
}

func TestWebhookVerifyWithoutKeys(t *testing.T) {
	_, priv := newWebhookTestKey(t, "k1")
	d := webhookTestDelivery{kid: "k1", ts: strconv.FormatInt(time.Now().UnixMilli(), 10), eventID: "e", body: []byte("{}"), priv: priv}
	if _, err := NewWebhookVerifier(nil).Verify(context.Background(), d.headers(), d.body); err == nil {
		t.Fatal("a verifier without a key cache accepted a delivery")
	}
}
