package emulator

import (
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

func TestWebhookKeySet(t *testing.T) {
	e := newTestEmulator(t)
	resp, err := http.Get(e.http.URL + client.WebhookKeySetPath) // no stamp: the key set is public
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Cache-Control") != "public, max-age=86400, s-maxage=86400, stale-if-error=604800" {
		t.Fatalf("status %d, Cache-Control %q", resp.StatusCode, resp.Header.Get("Cache-Control"))
	}
	set, err := e.client.GetWebhookKeySet(t.Context())
	if err != nil || len(set.Keys) != 1 {
		t.Fatalf("key set %+v, %v", set, err)
	}
	k := set.Keys[0]
	want := client.WebhookKey{Kid: e.srv.webhookKid, Kty: "OKP", Crv: "Ed25519", Alg: "EdDSA", Use: "sig",
		X:                         base64.RawURLEncoding.EncodeToString(ed25519Public(e.srv.webhookKey)),
		ServiceSignatureAlgorithm: "ed25519", ServiceSignatureVersion: "v1"}
	if k != want {
		t.Fatalf("key %+v, want %+v", k, want)
	}
	if _, err := k.PublicKey(); err != nil {
		t.Fatal(err)
	}
	a := e.post(t, client.WebhookKeySetPath, []byte(`{}`), nil)
	wantError(t, a, http.StatusMethodNotAllowed, "use GET")
}
