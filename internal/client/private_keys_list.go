package client

import "context"

// PrivateKey is a private key as listed (v1PrivateKey).
type PrivateKey struct {
	PrivateKeyID   string    `json:"privateKeyId"`
	PublicKey      string    `json:"publicKey"`
	PrivateKeyName string    `json:"privateKeyName"`
	Curve          string    `json:"curve"` // CURVE_SECP256K1, CURVE_ED25519, CURVE_P256
	Addresses      []Address `json:"addresses"`
	PrivateKeyTags []string  `json:"privateKeyTags"` // tag ids
	CreatedAt      Timestamp `json:"createdAt"`
	UpdatedAt      Timestamp `json:"updatedAt"`
	Exported       bool      `json:"exported"`
	Imported       bool      `json:"imported"`
}

// ListPrivateKeysRequest is the body of list_private_keys.
type ListPrivateKeysRequest struct {
	OrganizationID string `json:"organizationId"`
}

// ListPrivateKeysResponse is the answer of list_private_keys.
type ListPrivateKeysResponse struct {
	PrivateKeys []PrivateKey `json:"privateKeys"`
}

// ListPrivateKeys lists the organization's private keys.
func (c *Client) ListPrivateKeys(ctx context.Context, req ListPrivateKeysRequest) (*ListPrivateKeysResponse, error) {
	req.OrganizationID = c.org(req.OrganizationID)
	return query[ListPrivateKeysResponse](ctx, c, QueryListPrivateKeys, req)
}
