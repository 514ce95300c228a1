package client

import "context"

// The submit methods, one per endpoint and in the order of Operations.
// Each parameters and result type is declared with the data it carries, in
// the file of its area (policies.go, private_keys.go, ...).

// ApproveActivity votes to approve the activity with this fingerprint. It
// returns the activity record the service answers with, without waiting:
// more votes may still be needed.
func (c *Client) ApproveActivity(ctx context.Context, p VoteParams) (*Activity, error) {
	return c.submitActivity(ctx, ctx, OpApproveActivity, p)
}

// RejectActivity votes to reject the activity with this fingerprint.
func (c *Client) RejectActivity(ctx context.Context, p VoteParams) (*Activity, error) {
	return c.submitActivity(ctx, ctx, OpRejectActivity, p)
}

// CreatePolicies creates policies in one activity.
func (c *Client) CreatePolicies(ctx context.Context, p CreatePoliciesParams) (*Submitted[CreatePoliciesResult], error) {
	p.Policies = nonNil(p.Policies)
	return submit[CreatePoliciesResult](ctx, c, OpCreatePolicies, p)
}

// UpdatePolicy changes a policy in place.
func (c *Client) UpdatePolicy(ctx context.Context, p UpdatePolicyParams) (*Submitted[PolicyIDResult], error) {
	return submit[PolicyIDResult](ctx, c, OpUpdatePolicy, p)
}

// DeletePolicy deletes a policy.
func (c *Client) DeletePolicy(ctx context.Context, p DeletePolicyParams) (*Submitted[PolicyIDResult], error) {
	return submit[PolicyIDResult](ctx, c, OpDeletePolicy, p)
}

// DeletePolicies deletes several policies in one activity, all or none.
func (c *Client) DeletePolicies(ctx context.Context, p DeletePoliciesParams) (*Submitted[PolicyIDsResult], error) {
	p.PolicyIDs = nonNil(p.PolicyIDs)
	return submit[PolicyIDsResult](ctx, c, OpDeletePolicies, p)
}

// SetIPAllowlist creates or replaces an allowlist.
func (c *Client) SetIPAllowlist(ctx context.Context, p SetIPAllowlistParams) (*Submitted[EmptyResult], error) {
	p.Rules = nonNil(p.Rules)
	return submit[EmptyResult](ctx, c, OpSetIPAllowlist, p)
}

// RemoveIPAllowlist removes the organization's (empty PublicKey) or a
// key's allowlist.
func (c *Client) RemoveIPAllowlist(ctx context.Context, p RemoveIPAllowlistParams) (*Submitted[EmptyResult], error) {
	return submit[EmptyResult](ctx, c, OpRemoveIPAllowlist, p)
}

// CreateOauthProviders adds OAuth providers to a user.
func (c *Client) CreateOauthProviders(ctx context.Context, p CreateOauthProvidersParams) (*Submitted[ProviderIDsResult], error) {
	p.OauthProviders = nonNil(p.OauthProviders)
	return submit[ProviderIDsResult](ctx, c, OpCreateOauthProviders, p)
}

// DeleteOauthProviders removes OAuth providers from a user.
func (c *Client) DeleteOauthProviders(ctx context.Context, p DeleteOauthProvidersParams) (*Submitted[ProviderIDsResult], error) {
	p.ProviderIDs = nonNil(p.ProviderIDs)
	return submit[ProviderIDsResult](ctx, c, OpDeleteOauthProviders, p)
}

// UpdateOrganizationName renames the organization.
func (c *Client) UpdateOrganizationName(ctx context.Context, p UpdateOrganizationNameParams) (*Submitted[UpdateOrganizationNameResult], error) {
	return submit[UpdateOrganizationNameResult](ctx, c, OpUpdateOrganizationName, p)
}

// CreatePrivateKeys creates private keys.
func (c *Client) CreatePrivateKeys(ctx context.Context, p CreatePrivateKeysParams) (*Submitted[CreatePrivateKeysResult], error) {
	p.PrivateKeys = nonNil(p.PrivateKeys)
	for i := range p.PrivateKeys {
		p.PrivateKeys[i].PrivateKeyTags = nonNil(p.PrivateKeys[i].PrivateKeyTags)
		p.PrivateKeys[i].AddressFormats = nonNil(p.PrivateKeys[i].AddressFormats)
	}
	return submit[CreatePrivateKeysResult](ctx, c, OpCreatePrivateKeys, p)
}

// CreatePrivateKeyTag creates a tag on the given keys.
func (c *Client) CreatePrivateKeyTag(ctx context.Context, p CreatePrivateKeyTagParams) (*Submitted[CreatePrivateKeyTagResult], error) {
	p.PrivateKeyIDs = nonNil(p.PrivateKeyIDs)
	return submit[CreatePrivateKeyTagResult](ctx, c, OpCreatePrivateKeyTag, p)
}

// UpdatePrivateKeyTag renames a tag and changes its keys.
func (c *Client) UpdatePrivateKeyTag(ctx context.Context, p UpdatePrivateKeyTagParams) (*Submitted[UpdatePrivateKeyTagResult], error) {
	p.AddPrivateKeyIDs = nonNil(p.AddPrivateKeyIDs)
	p.RemovePrivateKeyIDs = nonNil(p.RemovePrivateKeyIDs)
	return submit[UpdatePrivateKeyTagResult](ctx, c, OpUpdatePrivateKeyTag, p)
}

// DeletePrivateKeyTags deletes tags (the keys stay).
func (c *Client) DeletePrivateKeyTags(ctx context.Context, p DeletePrivateKeyTagsParams) (*Submitted[DeletePrivateKeyTagsResult], error) {
	p.PrivateKeyTagIDs = nonNil(p.PrivateKeyTagIDs)
	return submit[DeletePrivateKeyTagsResult](ctx, c, OpDeletePrivateKeyTags, p)
}

// SignRawPayload signs a payload with a key or wallet account.
func (c *Client) SignRawPayload(ctx context.Context, p SignRawPayloadParams) (*Submitted[SignRawPayloadResult], error) {
	return submit[SignRawPayloadResult](ctx, c, OpSignRawPayload, p)
}

// SignTransaction signs a transaction with a key or wallet account.
func (c *Client) SignTransaction(ctx context.Context, p SignTransactionParams) (*Submitted[SignTransactionResult], error) {
	return submit[SignTransactionResult](ctx, c, OpSignTransaction, p)
}

// InitOtp starts an OTP flow.
func (c *Client) InitOtp(ctx context.Context, p InitOtpParams) (*Submitted[InitOtpResult], error) {
	return submit[InitOtpResult](ctx, c, OpInitOtp, p)
}

// VerifyOtp checks an OTP code and issues a verification token.
func (c *Client) VerifyOtp(ctx context.Context, p VerifyOtpParams) (*Submitted[VerifyOtpResult], error) {
	return submit[VerifyOtpResult](ctx, c, OpVerifyOtp, p)
}

// RecoverUser gives a user a new authenticator.
func (c *Client) RecoverUser(ctx context.Context, p RecoverUserParams) (*Submitted[RecoverUserResult], error) {
	p.Authenticator.Attestation.Transports = nonNil(p.Authenticator.Attestation.Transports)
	return submit[RecoverUserResult](ctx, c, OpRecoverUser, p)
}

// CreateWebhookEndpoint creates a webhook endpoint.
func (c *Client) CreateWebhookEndpoint(ctx context.Context, p CreateWebhookEndpointParams) (*Submitted[WebhookEndpointResult], error) {
	return submit[WebhookEndpointResult](ctx, c, OpCreateWebhookEndpoint, p)
}

// UpdateWebhookEndpoint changes an endpoint's URL, name or activity.
func (c *Client) UpdateWebhookEndpoint(ctx context.Context, p UpdateWebhookEndpointParams) (*Submitted[WebhookEndpointResult], error) {
	return submit[WebhookEndpointResult](ctx, c, OpUpdateWebhookEndpoint, p)
}

// DeleteWebhookEndpoint deletes an endpoint.
func (c *Client) DeleteWebhookEndpoint(ctx context.Context, p DeleteWebhookEndpointParams) (*Submitted[DeleteWebhookEndpointResult], error) {
	return submit[DeleteWebhookEndpointResult](ctx, c, OpDeleteWebhookEndpoint, p)
}
