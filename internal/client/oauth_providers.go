package client

// OidcClaims identify a provider without a token.
type OidcClaims struct {
	Iss string `json:"iss"`
	Sub string `json:"sub"`
	Aud string `json:"aud"`
}

// OauthProviderParams is one provider to create: either OidcToken (a
// secret) or OidcClaims.
type OauthProviderParams struct {
	ProviderName string      `json:"providerName"`
	OidcToken    string      `json:"oidcToken,omitempty"`
	OidcClaims   *OidcClaims `json:"oidcClaims,omitempty"`
}

// CreateOauthProvidersParams are the parameters of create_oauth_providers (V2).
type CreateOauthProvidersParams struct {
	UserID         string                `json:"userId"`
	OauthProviders []OauthProviderParams `json:"oauthProviders"`
}

// ProviderIDsResult is the result of creating or deleting OAuth providers.
type ProviderIDsResult struct {
	ProviderIDs []string `json:"providerIds"`
}

// DeleteOauthProvidersParams are the parameters of delete_oauth_providers.
type DeleteOauthProvidersParams struct {
	UserID      string   `json:"userId"`
	ProviderIDs []string `json:"providerIds"`
}

// OauthProvider is a provider as stored.
type OauthProvider struct {
	ProviderID   string    `json:"providerId"`
	ProviderName string    `json:"providerName"`
	Issuer       string    `json:"issuer"`
	Audience     string    `json:"audience"`
	Subject      string    `json:"subject"`
	CreatedAt    Timestamp `json:"createdAt"`
	UpdatedAt    Timestamp `json:"updatedAt"`
}

// GetOauthProvidersRequest is the body of get_oauth_providers.
type GetOauthProvidersRequest struct {
	OrganizationID string `json:"organizationId"`
	UserID         string `json:"userId,omitempty"`
}

// GetOauthProvidersResponse is the answer of get_oauth_providers.
type GetOauthProvidersResponse struct {
	OauthProviders []OauthProvider `json:"oauthProviders"`
}
