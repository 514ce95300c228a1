package emulator

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

func TestAuthenticationFailures(t *testing.T) {
	e := newTestEmulator(t)
	stranger, _ := client.GenerateAPIKey()
	body := []byte(`{"organizationId":"org-test"}`)
	validStamp, _ := e.key.Stamp(body)
	otherBodyStamp, _ := e.key.Stamp([]byte(`{"organizationId":"org-test" }`))
	stampJSON := func(m map[string]string) string {
		b, _ := json.Marshal(m)
		return base64.RawURLEncoding.EncodeToString(b)
	}
	sig := func(stamp string) map[string]string {
		raw, _ := base64.RawURLEncoding.DecodeString(stamp)
		var m map[string]string
		_ = json.Unmarshal(raw, &m)
		return m
	}(validStamp)

	tests := []struct {
		name    string
		headers map[string]string
		body    []byte
		key     *client.APIKey // stamps body when set and headers has no X-Stamp
		status  int
		want    string
	}{
		{"no stamp", nil, body, nil, 401, "missing X-Stamp"},
		{"passkey stamp", map[string]string{"X-Stamp-WebAuthn": `{"credentialId":"x"}`}, body, nil, 401, "does not verify passkey"},
		{"not base64url", map[string]string{"X-Stamp": "%%%"}, body, nil, 401, "not base64url"},
		{"padded base64", map[string]string{"X-Stamp": validStamp + "=="}, body, nil, 401, "not base64url"},
		{"not JSON", map[string]string{"X-Stamp": base64.RawURLEncoding.EncodeToString([]byte("nope"))}, body, nil, 401, "malformed X-Stamp"},
		{"extra stamp field", map[string]string{"X-Stamp": stampJSON(map[string]string{"publicKey": sig["publicKey"], "scheme": sig["scheme"], "signature": sig["signature"], "x": "1"})}, body, nil, 401, "malformed X-Stamp"},
		{"other scheme", map[string]string{"X-Stamp": stampJSON(map[string]string{"publicKey": sig["publicKey"], "scheme": "SIGNATURE_SCHEME_TK_API_ED25519", "signature": sig["signature"]})}, body, nil, 401, "unsupported stamp scheme"},
		{"bad public key", map[string]string{"X-Stamp": stampJSON(map[string]string{"publicKey": "04ab", "scheme": sig["scheme"], "signature": sig["signature"]})}, body, nil, 401, "compressed P-256"},
		{"signature over other bytes", map[string]string{"X-Stamp": otherBodyStamp}, body, nil, 401, "does not verify over the request body"},
		{"key of no user", nil, body, stranger, 403, "belongs to no user"},
		{"other organization", nil, []byte(`{"organizationId":"org-elsewhere"}`), e.key, 403, "not registered in organization org-elsewhere"},
		{"no organization", nil, []byte(`{}`), e.key, 400, "organizationId is required"},
		{"valid", map[string]string{"X-Stamp": validStamp}, body, nil, 200, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest(http.MethodPost, e.http.URL+"/public/v1/query/whoami", strings.NewReader(string(tt.body)))
			for k, v := range tt.headers {
				req.Header.Set(k, v)
			}
			if tt.key != nil {
				s, _ := tt.key.Stamp(tt.body)
				req.Header.Set(client.StampHeader, s)
			}
			a := do(t, req)
			if tt.status == 200 {
				if a.Status != 200 || a.Body["organizationId"] != testOrg {
					t.Fatalf("valid request: %d %s", a.Status, a.Raw)
				}
				return
			}
			wantError(t, a, tt.status, tt.want)
		})
	}
}

func TestKeySetNeedsNoStamp(t *testing.T) {
	e := newTestEmulator(t)
	resp, err := http.Get(e.http.URL + client.WebhookKeySetPath)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("key set: HTTP %d without a stamp", resp.StatusCode)
	}
}
