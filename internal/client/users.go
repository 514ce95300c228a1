package client

// User is a user record, as carried by votes.
type User struct {
	UserID          string          `json:"userId"`
	UserName        string          `json:"userName"`
	UserEmail       string          `json:"userEmail,omitempty"`
	UserPhoneNumber string          `json:"userPhoneNumber,omitempty"`
	Authenticators  []Authenticator `json:"authenticators"`
	APIKeys         []UserAPIKey    `json:"apiKeys"`
	UserTags        []string        `json:"userTags"`
	OauthProviders  []OauthProvider `json:"oauthProviders"`
	MfaPolicies     []MfaPolicy     `json:"mfaPolicies"`
	CreatedAt       Timestamp       `json:"createdAt"`
	UpdatedAt       Timestamp       `json:"updatedAt"`
}

// CredentialTypeAPIKeyP256 is the credential type of an API key on the
// P-256 curve, the kind this client stamps with.
const CredentialTypeAPIKeyP256 = "CREDENTIAL_TYPE_API_KEY_P256"

// Credential is the public part of an authenticator or API key.
type Credential struct {
	PublicKey        string `json:"publicKey"`
	Type             string `json:"type"` // CREDENTIAL_TYPE_...
	SessionProfileID string `json:"sessionProfileId,omitempty"`
}

// Authenticator is a user's passkey.
type Authenticator struct {
	Transports        []string   `json:"transports"`
	AttestationType   string     `json:"attestationType"`
	AAGUID            string     `json:"aaguid"`
	CredentialID      string     `json:"credentialId"`
	Model             string     `json:"model"`
	Credential        Credential `json:"credential"`
	AuthenticatorID   string     `json:"authenticatorId"`
	AuthenticatorName string     `json:"authenticatorName"`
	CreatedAt         Timestamp  `json:"createdAt"`
	UpdatedAt         Timestamp  `json:"updatedAt"`
}

// UserAPIKey is a user's API key record.
type UserAPIKey struct {
	Credential        Credential `json:"credential"`
	APIKeyID          string     `json:"apiKeyId"`
	APIKeyName        string     `json:"apiKeyName"`
	CreatedAt         Timestamp  `json:"createdAt"`
	UpdatedAt         Timestamp  `json:"updatedAt"`
	ExpirationSeconds string     `json:"expirationSeconds,omitempty"`
}
