package client

import "context"

// UpdateOrganizationNameParams are the parameters of update_organization_name.
type UpdateOrganizationNameParams struct {
	OrganizationName string `json:"organizationName"`
}

// UpdateOrganizationNameResult is the result of update_organization_name.
type UpdateOrganizationNameResult struct {
	OrganizationID   string `json:"organizationId"`
	OrganizationName string `json:"organizationName"`
}

// UpdateOrganizationName renames the organization.
func (c *Client) UpdateOrganizationName(ctx context.Context, p UpdateOrganizationNameParams) (*Submitted[UpdateOrganizationNameResult], error) {
	return submit[UpdateOrganizationNameResult](ctx, c, OpUpdateOrganizationName, p)
}

// WhoamiRequest is the body of whoami.
type WhoamiRequest = OrganizationRequest

// WhoamiResponse says which organization and user the key belongs to.
type WhoamiResponse struct {
	OrganizationID   string `json:"organizationId"`
	OrganizationName string `json:"organizationName"`
	UserID           string `json:"userId"`
	Username         string `json:"username"`
}

// Whoami reads the organization and user behind the API key.
func (c *Client) Whoami(ctx context.Context, req WhoamiRequest) (*WhoamiResponse, error) {
	return query[WhoamiResponse](ctx, c, QueryWhoami, &req, &req.OrganizationID)
}
