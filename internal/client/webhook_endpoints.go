package client

import "context"

// WebhookSubscription is one event type an endpoint receives.
type WebhookSubscription struct {
	EventType   string `json:"eventType"`
	FiltersJSON string `json:"filtersJson,omitempty"`
	IsActive    *bool  `json:"isActive,omitempty"`
}

// WebhookEndpoint is an endpoint as stored.
type WebhookEndpoint struct {
	EndpointID     string                `json:"endpointId"`
	OrganizationID string                `json:"organizationId"`
	URL            string                `json:"url"`
	Name           string                `json:"name"`
	IsActive       bool                  `json:"isActive"`
	Subscriptions  []WebhookSubscription `json:"subscriptions,omitempty"`
}

// CreateWebhookEndpointParams are the parameters of create_webhook_endpoint.
type CreateWebhookEndpointParams struct {
	URL           string                `json:"url"`
	Name          string                `json:"name"`
	Subscriptions []WebhookSubscription `json:"subscriptions,omitempty"`
}

// WebhookEndpointResult is the result of creating or updating an endpoint.
type WebhookEndpointResult struct {
	EndpointID      string          `json:"endpointId"`
	WebhookEndpoint WebhookEndpoint `json:"webhookEndpoint"`
}

// CreateWebhookEndpoint creates a webhook endpoint.
func (c *Client) CreateWebhookEndpoint(ctx context.Context, p CreateWebhookEndpointParams) (*Submitted[WebhookEndpointResult], error) {
	return submit[WebhookEndpointResult](ctx, c, OpCreateWebhookEndpoint, p)
}

// UpdateWebhookEndpointParams are the parameters of update_webhook_endpoint.
// The service cannot change subscriptions in place.
type UpdateWebhookEndpointParams struct {
	EndpointID string `json:"endpointId"`
	URL        string `json:"url,omitempty"`
	Name       string `json:"name,omitempty"`
	IsActive   *bool  `json:"isActive,omitempty"`
}

// UpdateWebhookEndpoint changes an endpoint's URL, name or activity.
func (c *Client) UpdateWebhookEndpoint(ctx context.Context, p UpdateWebhookEndpointParams) (*Submitted[WebhookEndpointResult], error) {
	return submit[WebhookEndpointResult](ctx, c, OpUpdateWebhookEndpoint, p)
}

// DeleteWebhookEndpointParams are the parameters of delete_webhook_endpoint.
type DeleteWebhookEndpointParams struct {
	EndpointID string `json:"endpointId"`
}

// DeleteWebhookEndpointResult is the result of delete_webhook_endpoint.
type DeleteWebhookEndpointResult struct {
	EndpointID string `json:"endpointId"`
}

// DeleteWebhookEndpoint deletes an endpoint.
func (c *Client) DeleteWebhookEndpoint(ctx context.Context, p DeleteWebhookEndpointParams) (*Submitted[DeleteWebhookEndpointResult], error) {
	return submit[DeleteWebhookEndpointResult](ctx, c, OpDeleteWebhookEndpoint, p)
}

// ListWebhookEndpointsRequest is the body of list_webhook_endpoints.
type ListWebhookEndpointsRequest = OrganizationRequest

// ListWebhookEndpointsResponse is the answer of list_webhook_endpoints.
type ListWebhookEndpointsResponse struct {
	WebhookEndpoints []WebhookEndpoint `json:"webhookEndpoints"`
}

// ListWebhookEndpoints lists the organization's webhook endpoints.
func (c *Client) ListWebhookEndpoints(ctx context.Context, req ListWebhookEndpointsRequest) (*ListWebhookEndpointsResponse, error) {
	return query[ListWebhookEndpointsResponse](ctx, c, QueryListWebhookEndpoints, &req, &req.OrganizationID)
}
