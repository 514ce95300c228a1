package client

import (
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestWebhookKeySetDecode(t *testing.T) {
	wire := `{"keys":[{"kid":"k1","kty":"OKP","crv":"Ed25519","alg":"EdDSA","use":"sig",
		"x":"11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
		"service_signature_algorithm":"ed25519","service_signature_version":"v1"}]}`
	var set WebhookKeySet
	if err := json.Unmarshal([]byte(wire), &set); err != nil {
		t.Fatal(err)
	}
	want := WebhookKeySet{Keys: []WebhookKey{{
		Kid: "k1", Kty: "OKP", Crv: "Ed25519", Alg: "EdDSA", Use: "sig",
		X:                         "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo",
		ServiceSignatureAlgorithm: "ed25519", ServiceSignatureVersion: "v1",
	}}}
	if !reflect.DeepEqual(set, want) {
		t.Fatalf("decoded %+v, want %+v", set, want)
	}
	pub, err := set.Keys[0].PublicKey()
	if err != nil || len(pub) != ed25519.PublicKeySize {
		t.Fatalf("PublicKey() = %x, %v", pub, err)
	}
}

func TestWebhookKeyPublicKey(t *testing.T) {
	good, priv := newWebhookTestKey(t, "k1")
	pub, ok := priv.Public().(ed25519.PublicKey)
	if !ok {
		t.Fatalf("public key is %T", priv.Public())
	}
	tests := []struct {
		name    string
		mutate  func(k *WebhookKey)
		wantErr string // empty: valid
	}{
		{"valid", func(k *WebhookKey) {}, ""},
		{"empty kid", func(k *WebhookKey) { k.Kid = "" }, "kid is empty"},
		{"wrong kty", func(k *WebhookKey) { k.Kty = "EC" }, `kty is "EC"`},
		{"wrong crv", func(k *WebhookKey) { k.Crv = "X25519" }, `crv is "X25519"`},
		{"wrong alg", func(k *WebhookKey) { k.Alg = "ES256" }, `alg is "ES256"`},
		{"wrong use", func(k *WebhookKey) { k.Use = "enc" }, `use is "enc"`},
		{"wrong service algorithm", func(k *WebhookKey) { k.ServiceSignatureAlgorithm = "p256" }, "service_signature_algorithm"},
		{"wrong service version", func(k *WebhookKey) { k.ServiceSignatureVersion = "v2" }, "service_signature_version"},
		{"x padded", func(k *WebhookKey) { k.X += "=" }, "base64url"},
		{"x std alphabet", func(k *WebhookKey) { k.X = "+/" + k.X[2:] }, "base64url"},
		{"x too short", func(k *WebhookKey) { k.X = base64.RawURLEncoding.EncodeToString(pub[:31]) }, "31 bytes"},
		{"x empty", func(k *WebhookKey) { k.X = "" }, "0 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			k := good
			tt.mutate(&k)
			got, err := k.PublicKey()
			if tt.wantErr == "" {
				if err != nil || !got.Equal(pub) {
					t.Fatalf("PublicKey() = %x, %v; want %x", got, err, pub)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("PublicKey() error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestWebhookParseCacheControl(t *testing.T) {
	const s = time.Second
	tests := []struct {
		in   string
		want webhookCacheControl
	}{
		{"", webhookCacheControl{}},
		{webhookTestProdCacheControl, webhookCacheControl{maxAge: 86400 * s, hasMaxAge: true, staleIfError: 604800 * s}},
		{"MAX-AGE=60, Stale-If-Error=30", webhookCacheControl{maxAge: 60 * s, hasMaxAge: true, staleIfError: 30 * s}},
		{`max-age="45"`, webhookCacheControl{maxAge: 45 * s, hasMaxAge: true}},
		{"max-age=0", webhookCacheControl{hasMaxAge: true}},
		{"max-age=10, max-age=5", webhookCacheControl{maxAge: 5 * s, hasMaxAge: true}},
		{"max-age=5, max-age=10, stale-if-error=9, stale-if-error=99", webhookCacheControl{maxAge: 5 * s, hasMaxAge: true, staleIfError: 9 * s}},
		{"max-age=99999999999999999999", webhookCacheControl{maxAge: webhookMaxDeltaSeconds * s, hasMaxAge: true}},
		{"max-age=abc", webhookCacheControl{}},
		{"max-age=-1", webhookCacheControl{}},
		{"max-age=+5", webhookCacheControl{}},
		{"max-age", webhookCacheControl{}},
		{"s-maxage=60", webhookCacheControl{}},
		{"no-store", webhookCacheControl{noStore: true}},
		{"No-Cache, max-age=60", webhookCacheControl{maxAge: 60 * s, hasMaxAge: true, noCache: true}},
		{`no-cache="Set-Cookie"`, webhookCacheControl{noCache: true}},
		{" private ,  max-age=7 ,,", webhookCacheControl{maxAge: 7 * s, hasMaxAge: true}},
		{"stale-if-error=600", webhookCacheControl{staleIfError: 600 * s}},
	}
	for _, tt := range tests {
		if got := webhookParseCacheControl(tt.in); got != tt.want {
			t.Errorf("webhookParseCacheControl(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func TestWebhookNewKeyCacheDefaultClient(t *testing.T) {
	if c := NewWebhookKeyCache(nil, "http://127.0.0.1/x"); c.httpClient != http.DefaultClient {
		t.Fatalf("nil client gave %v, want http.DefaultClient", c.httpClient)
	}
}

func TestWebhookKeySetReturnsCopy(t *testing.T) {
	k1, _ := newWebhookTestKey(t, "k1")
	srv := newWebhookTestServer(t, webhookTestProdCacheControl, k1)
	cache, _ := newWebhookTestCache(srv)
	set, err := cache.KeySet(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	set.Keys[0].X = "tampered"
	if _, err := cache.Key(context.Background(), "k1"); err != nil {
		t.Fatalf("changing KeySet's result changed the cache: %v", err)
	}
}
