package client

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

// UpdateWebhookEndpointParams are the parameters of update_webhook_endpoint.
// The service cannot change subscriptions in place.
type UpdateWebhookEndpointParams struct {
	EndpointID string `json:"endpointId"`
	URL        string `json:"url,omitempty"`
	Name       string `json:"name,omitempty"`
	IsActive   *bool  `json:"isActive,omitempty"`
}

// DeleteWebhookEndpointParams are the parameters of delete_webhook_endpoint:
// the endpoint's id, which its result echoes.
type DeleteWebhookEndpointParams struct {
	EndpointID string `json:"endpointId"`
}

// DeleteWebhookEndpointResult is the result of delete_webhook_endpoint.
type DeleteWebhookEndpointResult = DeleteWebhookEndpointParams

// ListWebhookEndpointsRequest is the body of list_webhook_endpoints.
type ListWebhookEndpointsRequest = OrganizationRequest

// ListWebhookEndpointsResponse is the answer of list_webhook_endpoints.
type ListWebhookEndpointsResponse struct {
	WebhookEndpoints []WebhookEndpoint `json:"webhookEndpoints"`
}
