package emulator

import (
	"encoding/base64"
	"net/http"

	"github.com/custody-labs/terraform-provider-custody/internal/client"
)

// keySetCacheControl is the production value (spec 4.3), so that clients
// exercise their caching against the emulator as they would in production.
const keySetCacheControl = "public, max-age=86400, s-maxage=86400, stale-if-error=604800"

// keySetResponse answers GET /public/v1/discovery/webhooks/jwks: the one
// Ed25519 key that signs this emulator's webhook deliveries.
func (s *Server) keySetResponse() *response {
	pub := ed25519Public(s.webhookKey)
	resp := jsonResponse(http.StatusOK, client.WebhookKeySet{Keys: []client.WebhookKey{{
		Kid:                       s.webhookKid,
		Kty:                       "OKP",
		Crv:                       "Ed25519",
		Alg:                       "EdDSA",
		Use:                       "sig",
		X:                         base64.RawURLEncoding.EncodeToString(pub),
		ServiceSignatureAlgorithm: "ed25519",
		ServiceSignatureVersion:   "v1",
	}}})
	resp.header.Set("Cache-Control", keySetCacheControl)
	return resp
}
