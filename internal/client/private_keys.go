package client

// PrivateKeyParams is one private key to create.
type PrivateKeyParams struct {
	PrivateKeyName string   `json:"privateKeyName"`
	Curve          string   `json:"curve"` // CURVE_SECP256K1, CURVE_ED25519, CURVE_P256
	PrivateKeyTags []string `json:"privateKeyTags"`
	AddressFormats []string `json:"addressFormats"`
}

// CreatePrivateKeysParams are the parameters of create_private_keys (V2).
type CreatePrivateKeysParams struct {
	PrivateKeys []PrivateKeyParams `json:"privateKeys"`
}

// Address is an address derived from a key.
type Address struct {
	Format  string `json:"format,omitempty"`
	Address string `json:"address,omitempty"`
}

// CreatedPrivateKey is one created key and its addresses.
type CreatedPrivateKey struct {
	PrivateKeyID string    `json:"privateKeyId,omitempty"`
	Addresses    []Address `json:"addresses,omitempty"`
}

// CreatePrivateKeysResult is the result of create_private_keys (V2).
type CreatePrivateKeysResult struct {
	PrivateKeys []CreatedPrivateKey `json:"privateKeys"`
}

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
type ListPrivateKeysRequest = OrganizationRequest

// ListPrivateKeysResponse is the answer of list_private_keys.
type ListPrivateKeysResponse struct {
	PrivateKeys []PrivateKey `json:"privateKeys"`
}
