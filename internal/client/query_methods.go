package client

import (
	"context"
	"errors"
)

// The query methods, one per endpoint and in the order of Queries. Each
// request and answer type is declared with the data it carries, in the
// file of its area (policies.go, earn.go, ...).

// Whoami reads the organization and user behind the API key.
func (c *Client) Whoami(ctx context.Context, req WhoamiRequest) (*WhoamiResponse, error) {
	return query[WhoamiResponse](ctx, c, QueryWhoami, &req, &req.OrganizationID)
}

// GetOrganizationConfigs reads the organization's root quorum and features.
func (c *Client) GetOrganizationConfigs(ctx context.Context, req GetOrganizationConfigsRequest) (*GetOrganizationConfigsResponse, error) {
	return query[GetOrganizationConfigsResponse](ctx, c, QueryGetOrganizationConfigs, &req, &req.OrganizationID)
}

// GetActivity reads one activity (timestamps in the {seconds, nanos} shape).
func (c *Client) GetActivity(ctx context.Context, req GetActivityRequest) (*Activity, error) {
	resp, err := query[ActivityResponse](ctx, c, QueryGetActivity, &req, &req.OrganizationID)
	if err != nil {
		return nil, err
	}
	// A body such as {} or null decodes without error; it must not pass
	// for an activity (the poll would read its empty status).
	if resp.Activity.ID == "" {
		return nil, errors.New("get_activity: the answer holds no activity id")
	}
	return &resp.Activity, nil
}

// ListActivities lists activities, filtered by status and type, one page.
func (c *Client) ListActivities(ctx context.Context, req ListActivitiesRequest) (*ListActivitiesResponse, error) {
	return query[ListActivitiesResponse](ctx, c, QueryListActivities, &req, &req.OrganizationID)
}

// GetPolicyEvaluations reads the policy evaluations of an activity.
func (c *Client) GetPolicyEvaluations(ctx context.Context, req GetPolicyEvaluationsRequest) (*GetPolicyEvaluationsResponse, error) {
	return query[GetPolicyEvaluationsResponse](ctx, c, QueryGetPolicyEvaluations, &req, &req.OrganizationID)
}

// GetPolicy reads one policy; an unknown id is an error matching ErrNotFound.
func (c *Client) GetPolicy(ctx context.Context, req GetPolicyRequest) (*GetPolicyResponse, error) {
	return query[GetPolicyResponse](ctx, c, QueryGetPolicy, &req, &req.OrganizationID)
}

// ListPolicies lists every policy of the organization.
func (c *Client) ListPolicies(ctx context.Context, req ListPoliciesRequest) (*ListPoliciesResponse, error) {
	return query[ListPoliciesResponse](ctx, c, QueryListPolicies, &req, &req.OrganizationID)
}

// GetIPAllowlist reads the organization's (empty PublicKey) or a key's
// allowlist.
func (c *Client) GetIPAllowlist(ctx context.Context, req GetIPAllowlistRequest) (*GetIPAllowlistResponse, error) {
	return query[GetIPAllowlistResponse](ctx, c, QueryGetIPAllowlist, &req, &req.OrganizationID)
}

// GetOauthProviders lists the OAuth providers of a user (or of the caller
// when UserID is empty).
func (c *Client) GetOauthProviders(ctx context.Context, req GetOauthProvidersRequest) (*GetOauthProvidersResponse, error) {
	return query[GetOauthProvidersResponse](ctx, c, QueryGetOauthProviders, &req, &req.OrganizationID)
}

// ListPrivateKeys lists the organization's private keys.
func (c *Client) ListPrivateKeys(ctx context.Context, req ListPrivateKeysRequest) (*ListPrivateKeysResponse, error) {
	return query[ListPrivateKeysResponse](ctx, c, QueryListPrivateKeys, &req, &req.OrganizationID)
}

// ListPrivateKeyTags lists the organization's private key tags.
func (c *Client) ListPrivateKeyTags(ctx context.Context, req ListPrivateKeyTagsRequest) (*ListPrivateKeyTagsResponse, error) {
	return query[ListPrivateKeyTagsResponse](ctx, c, QueryListPrivateKeyTags, &req, &req.OrganizationID)
}

// ListWebhookEndpoints lists the organization's webhook endpoints.
func (c *Client) ListWebhookEndpoints(ctx context.Context, req ListWebhookEndpointsRequest) (*ListWebhookEndpointsResponse, error) {
	return query[ListWebhookEndpointsResponse](ctx, c, QueryListWebhookEndpoints, &req, &req.OrganizationID)
}

// GetMfaPolicy reads one MFA policy of a user.
func (c *Client) GetMfaPolicy(ctx context.Context, req GetMfaPolicyRequest) (*GetMfaPolicyResponse, error) {
	return query[GetMfaPolicyResponse](ctx, c, QueryGetMfaPolicy, &req, &req.OrganizationID)
}

// GetMfaPolicies lists the MFA policies of a user.
func (c *Client) GetMfaPolicies(ctx context.Context, req GetMfaPoliciesRequest) (*GetMfaPoliciesResponse, error) {
	return query[GetMfaPoliciesResponse](ctx, c, QueryGetMfaPolicies, &req, &req.OrganizationID)
}

// ListSupportedAssets lists the assets the service supports on a chain.
func (c *Client) ListSupportedAssets(ctx context.Context, req ListSupportedAssetsRequest) (*ListSupportedAssetsResponse, error) {
	return query[ListSupportedAssetsResponse](ctx, c, QueryListSupportedAssets, &req, &req.OrganizationID)
}

// ListEarnEnabledVaults lists the organization's earn vaults.
func (c *Client) ListEarnEnabledVaults(ctx context.Context, req ListEarnEnabledVaultsRequest) (*ListEarnEnabledVaultsResponse, error) {
	return query[ListEarnEnabledVaultsResponse](ctx, c, QueryListEarnEnabledVaults, &req, &req.OrganizationID)
}

// ListEarnPositions lists a wallet's active earn positions.
func (c *Client) ListEarnPositions(ctx context.Context, req ListEarnPositionsRequest) (*ListEarnPositionsResponse, error) {
	return query[ListEarnPositionsResponse](ctx, c, QueryListEarnPositions, &req, &req.OrganizationID)
}

// GetAppStatus reads the runtime status of an app.
func (c *Client) GetAppStatus(ctx context.Context, req GetAppStatusRequest) (*GetAppStatusResponse, error) {
	return query[GetAppStatusResponse](ctx, c, QueryGetAppStatus, &req, &req.OrganizationID)
}

// GetSendTransactionStatus reads the status of a sent transaction.
func (c *Client) GetSendTransactionStatus(ctx context.Context, req GetSendTransactionStatusRequest) (*GetSendTransactionStatusResponse, error) {
	return query[GetSendTransactionStatusResponse](ctx, c, QueryGetSendTransactionStatus, &req, &req.OrganizationID)
}
